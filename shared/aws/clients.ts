import { tracer } from '../observability/tracer';
import { type AwsService, type HookableClient, installedHooks } from './client-hooks';

export type { AwsService } from './client-hooks';

/**
 * Where a service's emulator or stand-in listens, when one does (the local runtime, the tests, the
 * CLI against a local runtime). Unset on AWS, where the SDK finds the service itself.
 */
export const ENDPOINT_VARIABLES: Readonly<Record<AwsService, string>> = {
  dynamodb: 'DYNAMODB_ENDPOINT',
  sqs: 'SQS_ENDPOINT',
  secretsmanager: 'SECRETS_MANAGER_ENDPOINT',
  kms: 'KMS_ENDPOINT',
  s3: 'S3_ENDPOINT',
};

/**
 * What every client of a deployed function is built with: connection and request timeouts well
 * inside the 10-second function timeout (three attempts of 2 s still leave time to answer), and each
 * call traced as an X-Ray subsegment. Clients pointed at an emulator keep the SDK's defaults:
 * DynamoDB Local can take seconds under a bulk load that DynamoDB serves in milliseconds.
 */
export const DEPLOYED_REQUEST_HANDLER = { connectionTimeout: 1_000, requestTimeout: 2_000 } as const;

/**
 * The register import's clients: a whole register is written in minutes, so DynamoDB throttles while
 * the table's partitions split. Those writes can wait where an API request cannot: more attempts, the
 * SDK's adaptive mode (a client that was throttled sends more slowly instead of failing faster), and
 * longer requests; each attempt's backoff is capped at 20 s by the SDK, so ten attempts wait about a
 * minute at most before the batch kit (shared/storage/batch.ts) and then the Map's retries take over.
 */
export const IMPORT_CLIENT_TUNING = {
  maxAttempts: 10,
  retryMode: 'adaptive',
  requestHandler: { connectionTimeout: 2_000, requestTimeout: 10_000 },
} as const;

/** The part of the SDK's client configuration this module sets. */
export interface AwsClientConfig {
  endpoint?: string;
  region?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  requestHandler?: { readonly connectionTimeout: number; readonly requestTimeout: number };
  maxAttempts?: number;
  retryMode?: 'standard' | 'adaptive';
}

/** What a kind of client changes in the defaults: the register import's (IMPORT_CLIENT_TUNING). */
export type AwsClientTuning = Pick<AwsClientConfig, 'maxAttempts' | 'retryMode' | 'requestHandler'>;

/**
 * The one way a client is built. `make` is the client's constructor, given the configuration:
 * `awsClient((config) => new SQSClient(config), 'sqs')`.
 */
export function awsClient<Client extends HookableClient>(
  make: (config: AwsClientConfig) => Client,
  service: AwsService,
  env: NodeJS.ProcessEnv = process.env,
  tuning: AwsClientTuning = {},
): Client {
  const endpoint = env[ENDPOINT_VARIABLES[service]];
  const { requestHandler, ...retries } = tuning;
  // Retries are tuned alike on AWS and against an emulator, so a test of throttling exercises what deploys.
  const client = endpoint
    ? make({
        endpoint,
        region: env.AWS_REGION ?? 'eu-west-2',
        credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID ?? 'local', secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? 'local' },
        ...retries,
      })
    : tracer.captureAWSv3Client(make({ requestHandler: requestHandler ?? DEPLOYED_REQUEST_HANDLER, ...retries }));
  for (const hook of installedHooks()) hook(client, service);
  return client;
}
