import { tracer } from './tracer';

/**
 * What every AWS SDK client of a deployed function is built with: connection and request timeouts
 * well inside the 10-second function timeout (three attempts of 2 s still leave time to answer), and
 * each call traced as an X-Ray subsegment. Clients pointed at the local emulators keep the SDK's
 * defaults: DynamoDB Local can take seconds under a bulk load that DynamoDB serves in milliseconds.
 */
export const DEPLOYED_REQUEST_HANDLER = { connectionTimeout: 1_000, requestTimeout: 2_000 } as const;

export function deployedClient<Client>(client: Client): Client {
  return tracer.captureAWSv3Client(client);
}
