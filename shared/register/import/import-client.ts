import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsClient, ENDPOINT_VARIABLES, IMPORT_CLIENT_TUNING } from '../../aws/clients';
import { type BatchPatience, setBatchPatience } from '../../storage/batch';
import { createDocumentClient } from '../../storage/dynamo';

/**
 * What DynamoDB leaves unprocessed is asked for again for about 40 s at most (20 s on average, with full
 * jitter) instead of the 3.5 s an API request allows: a throttled chunk waits for the table to split its
 * partitions rather than failing, and the Map's retries (infra/constructs/register-import.ts) come after.
 */
export const IMPORT_BATCH_PATIENCE: BatchPatience = { maxRounds: 15, capMs: 5_000 };

const clients = new Map<string, DynamoDBDocumentClient>();

/** A new document client tuned for the import; most callers want the one importDocumentClient shares. */
export function createImportDocumentClient(env: NodeJS.ProcessEnv = process.env): DynamoDBDocumentClient {
  const doc = createDocumentClient(awsClient((config) => new DynamoDBClient(config), 'dynamodb', env, IMPORT_CLIENT_TUNING));
  setBatchPatience(doc, IMPORT_BATCH_PATIENCE);
  return doc;
}

/** The register import's document client: one per process and endpoint, tuned to wait out throttling. */
export function importDocumentClient(env: NodeJS.ProcessEnv = process.env): DynamoDBDocumentClient {
  const key = `${env[ENDPOINT_VARIABLES.dynamodb] ?? ''}|${env.AWS_REGION ?? ''}`;
  let doc = clients.get(key);
  if (!doc) {
    doc = createImportDocumentClient(env);
    clients.set(key, doc);
  }
  return doc;
}
