import { DynamoDBClient, type DynamoDBClientConfig, DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoCallsOf, LOCAL_GRANT_CHECK_STEP, LOCAL_GRANTS_VARIABLE, localGrantMiddleware } from '../iam/local-grants';
import { DEPLOYED_REQUEST_HANDLER, deployedClient } from '../observability/aws-clients';

/**
 * DYNAMODB_ENDPOINT points the SDK at DynamoDB Local; unset on AWS, where the SDK's defaults apply.
 * Under the local runtime a function's client also refuses what its catalogue grants do not allow.
 */
export function createDynamoClient(env: NodeJS.ProcessEnv = process.env): DynamoDBClient {
  if (!env.DYNAMODB_ENDPOINT) return deployedClient(new DynamoDBClient({ requestHandler: DEPLOYED_REQUEST_HANDLER }));
  const config: DynamoDBClientConfig = {
    endpoint: env.DYNAMODB_ENDPOINT,
    region: env.AWS_REGION ?? 'eu-west-2',
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID ?? 'local', secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? 'local' },
  };
  const client = new DynamoDBClient(config);
  const grants = localGrantMiddleware(env, dynamoCallsOf, accessDenied);
  if (grants) client.middlewareStack.add(grants, LOCAL_GRANT_CHECK_STEP);
  return client;
}

/** Refused as DynamoDB refuses a call IAM denies: a client error, never retried. */
const accessDenied = (message: string) =>
  new DynamoDBServiceException({ name: 'AccessDeniedException', $fault: 'client', $metadata: { httpStatusCode: 400 }, message });

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
  const key = `${env.DYNAMODB_ENDPOINT ?? ''}|${env.AWS_REGION ?? ''}|${env[LOCAL_GRANTS_VARIABLE] ?? ''}`;
  let doc = sharedClients.get(key);
  if (!doc) {
    doc = createDocumentClient(createDynamoClient(env));
    sharedClients.set(key, doc);
  }
  return doc;
}
