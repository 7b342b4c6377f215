import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  SQSClient,
  type SQSClientConfig,
  SQSServiceException,
} from '@aws-sdk/client-sqs';
import { LOCAL_GRANT_CHECK_STEP, localGrantMiddleware, sqsCallsOf } from '../iam/local-grants';
import { DEPLOYED_REQUEST_HANDLER, deployedClient } from '../observability/aws-clients';

/**
 * SQS_ENDPOINT points the SDK at the local emulator, whose queue URL host names do not resolve.
 * Under the local runtime a function's client also refuses what its catalogue grants do not allow.
 */
export function createSqsClient(env: NodeJS.ProcessEnv = process.env): SQSClient {
  if (!env.SQS_ENDPOINT) return deployedClient(new SQSClient({ requestHandler: DEPLOYED_REQUEST_HANDLER }));
  const config: SQSClientConfig = {
    endpoint: env.SQS_ENDPOINT,
    region: env.AWS_REGION ?? 'eu-west-2',
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID ?? 'local', secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? 'local' },
  };
  const client = new SQSClient(config);
  const grants = localGrantMiddleware(env, sqsCallsOf, accessDenied);
  if (grants) client.middlewareStack.add(grants, LOCAL_GRANT_CHECK_STEP);
  return client;
}

/** SQS reports a call IAM denies with the query-compatible code AccessDenied, which is the name the SDK gives the error. */
const accessDenied = (message: string) =>
  new SQSServiceException({ name: 'AccessDenied', $fault: 'client', $metadata: { httpStatusCode: 403 }, message });

/** SendMessageBatch takes at most ten entries. */
const SEND_BATCH = 10;
const SEND_ATTEMPTS = 5;
/** Batches in flight at once: enough to keep a page of deliveries moving, few enough to be polite. */
const SEND_CONCURRENCY = 8;

export class PartialSendError extends Error {
  constructor(failed: number, reason: string) {
    super(`${failed} message(s) could not be queued: ${reason}`);
    this.name = 'PartialSendError';
  }
}

/**
 * Queues JSON messages in batches of ten, retrying the entries SQS refuses, and throws if any is
 * still refused: the caller's own message is then retried, and nothing is acknowledged unsent.
 */
export class JsonQueue<T> {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(messages: readonly T[]): Promise<void> {
    const batches: T[][] = [];
    for (let start = 0; start < messages.length; start += SEND_BATCH) batches.push(messages.slice(start, start + SEND_BATCH));
    let next = 0;
    const worker = async () => {
      while (next < batches.length) await this.sendBatch(batches[next++] as T[]);
    };
    await Promise.all(Array.from({ length: Math.min(SEND_CONCURRENCY, batches.length) }, worker));
  }

  private async sendBatch(batch: readonly T[]): Promise<void> {
    let entries: SendMessageBatchRequestEntry[] = batch.map((message, index) => ({
      Id: String(index),
      MessageBody: JSON.stringify(message),
    }));
    let reason = '';
    for (let attempt = 0; attempt < SEND_ATTEMPTS && entries.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
      const result = await this.sqs.send(new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: entries }));
      const failed = new Set((result.Failed ?? []).map((failure) => failure.Id));
      reason = (result.Failed ?? []).map((failure) => `${failure.Code}: ${failure.Message}`).join('; ');
      entries = entries.filter((entry) => failed.has(entry.Id));
    }
    if (entries.length > 0) throw new PartialSendError(entries.length, reason);
  }
}

/** Makes a received message visible again after `seconds`: how the sender schedules a retry. */
export async function delayRedelivery(sqs: SQSClient, queueUrl: string, receiptHandle: string, seconds: number): Promise<void> {
  await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }));
}
