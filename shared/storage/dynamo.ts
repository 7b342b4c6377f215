import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsClient, ENDPOINT_VARIABLES } from '../aws/clients';

/** DYNAMODB_ENDPOINT points the SDK at DynamoDB Local; unset on AWS, where the SDK's defaults apply. */
export function createDynamoClient(env: NodeJS.ProcessEnv = process.env): DynamoDBClient {
  return awsClient((config) => new DynamoDBClient(config), 'dynamodb', env);
}

export function createDocumentClient(client: DynamoDBClient = createDynamoClient()): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}

const sharedClients = new Map<string, DynamoDBDocumentClient>();

/**
 * One document client per process, endpoint and (locally) set of grants, so the use cases of one
 * function share a single connection pool and the cold start builds one client, not one per use case.
 */
export function sharedDocumentClient(env: NodeJS.ProcessEnv = process.env): DynamoDBDocumentClient {
  const key = `${env[ENDPOINT_VARIABLES.dynamodb] ?? ''}|${env.AWS_REGION ?? ''}`;
  let doc = sharedClients.get(key);
  if (!doc) {
    doc = createDocumentClient(createDynamoClient(env));
    sharedClients.set(key, doc);
  }
  return doc;
}
