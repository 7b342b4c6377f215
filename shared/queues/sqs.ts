import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, type SendMessageBatchRequestEntry, SQSClient } from '@aws-sdk/client-sqs';
import pLimit from 'p-limit';
import { awsClient } from '../aws/clients';

/** SQS_ENDPOINT points the SDK at the local emulator, whose queue URL host names do not resolve. */
export function createSqsClient(env: NodeJS.ProcessEnv = process.env): SQSClient {
  return awsClient((config) => new SQSClient(config), 'sqs', env);
}

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
    const limit = pLimit(SEND_CONCURRENCY);
    const sends: Promise<void>[] = [];
    for (let start = 0; start < messages.length; start += SEND_BATCH) {
      const batch = messages.slice(start, start + SEND_BATCH);
      sends.push(limit(() => this.sendBatch(batch)));
    }
    await Promise.all(sends);
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
export class SqsRedeliveryQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async redeliverIn(receiptHandle: string, seconds: number): Promise<void> {
    await this.sqs.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }),
    );
  }
}
