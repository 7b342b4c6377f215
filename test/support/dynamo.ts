import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { ensureTable } from '../../shared/storage/create-tables';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { allTables, type TableDefinition } from '../../shared/storage/tables';

export interface TestTables {
  readonly client: DynamoDBClient;
  readonly doc: DynamoDBDocumentClient;
  /** Physical names by table id (clients, companies, watches). */
  readonly names: Record<string, string>;
  /** Environment with DYNAMODB_ENDPOINT and every <TABLE>_TABLE variable set. */
  readonly env: NodeJS.ProcessEnv;
}

/** Creates fresh, uniquely named tables in the run's DynamoDB Local. */
export async function createTestTables(defs: readonly TableDefinition[] = allTables): Promise<TestTables> {
  const endpoint = inject('dynamodbEndpoint');
  const env: NodeJS.ProcessEnv = { DYNAMODB_ENDPOINT: endpoint, AWS_REGION: 'eu-west-2' };
  const client = createDynamoClient(env);
  const suffix = randomUUID().slice(0, 8);
  const names: Record<string, string> = {};
  for (const def of defs) {
    const name = `${def.id}-${suffix}`;
    await ensureTable(client, def, name);
    names[def.id] = name;
    env[def.envVar] = name;
  }
  return { client, doc: createDocumentClient(client), names, env };
}
