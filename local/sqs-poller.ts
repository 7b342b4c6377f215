import {
  DeleteMessageBatchCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';

export interface SqsPollerOptions {
  /** An SQS client with an explicit endpoint (fauxqs). */
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly queueArn: string;
  /** The consumer: a Lambda handler's invoke. A `{batchItemFailures}` result reports partial failure. */
  readonly invoke: (event: SQSEvent) => Promise<unknown>;
  /** Messages per invocation (the mapping's BatchSize, at most 10 here); default 10. */
  readonly batchSize?: number;
  /** Pollers receiving in parallel; default 2. */
  readonly concurrency?: number;
  /** Long-poll wait; default 20 s, as Lambda does. */
  readonly waitTimeSeconds?: number;
  readonly region?: string;
  readonly log?: (line: string) => void;
}

export interface SqsPoller {
  start(): void;
  /** Stops receiving (abandoning any long poll) and waits for invocations in flight. */
  stop(): Promise<void>;
}

function toLambdaMessageAttributes(attributes: Record<string, MessageAttributeValue> = {}): SQSMessageAttributes {
  const converted: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(attributes)) {
    converted[name] = {
      dataType: value.DataType ?? 'String',
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map((item) => Buffer.from(item).toString('base64')),
    };
    if (value.StringValue !== undefined) converted[name].stringValue = value.StringValue;
    if (value.BinaryValue !== undefined) converted[name].binaryValue = Buffer.from(value.BinaryValue).toString('base64');
  }
  return converted;
}

export function toLambdaSqsRecord(message: Message, queueArn: string, region: string): SQSRecord {
  const record: SQSRecord = {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: (message.Attributes ?? {}) as unknown as SQSRecordAttributes,
    messageAttributes: toLambdaMessageAttributes(message.MessageAttributes),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
  if (message.MD5OfMessageAttributes) record.md5OfMessageAttributes = message.MD5OfMessageAttributes;
  return record;
}

/**
 * Which messages to delete after an invocation, the way the SQS event source mapping with
 * ReportBatchItemFailures decides: all on success, none when the handler throws or names a message
 * that is not in the batch, all but the named ones otherwise. Kept messages reappear when their
 * visibility timeout (or whatever the handler set with ChangeMessageVisibility) runs out.
 */
export function messagesToDelete(result: unknown, batch: readonly Message[]): Message[] {
  if (typeof result !== 'object' || result === null) return [...batch];
  const failures = (result as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return [...batch];
  if (!Array.isArray(failures)) return [];
  const ids = new Set(batch.map((message) => message.MessageId));
  const failed = new Set<unknown>(failures.map((failure: unknown) => (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier));
  if ([...failed].some((id) => typeof id !== 'string' || !ids.has(id))) return [];
  return batch.filter((message) => !failed.has(message.MessageId));
}

/** Plays the SQS event source mapping on this machine: long-poll, invoke with a batch, delete what succeeded. */
export function createSqsPoller(options: SqsPollerOptions): SqsPoller {
  const batchSize = Math.min(options.batchSize ?? 10, 10);
  const concurrency = options.concurrency ?? 2;
  const waitTimeSeconds = options.waitTimeSeconds ?? 20;
  const region = options.region ?? process.env.AWS_REGION ?? 'eu-west-2';
  const log = options.log ?? (() => {});
  let stopping = false;
  let abort = new AbortController();
  let workers: Promise<void>[] = [];

  async function handle(messages: Message[]): Promise<void> {
    let result: unknown;
    try {
      result = await options.invoke({ Records: messages.map((message) => toLambdaSqsRecord(message, options.queueArn, region)) });
    } catch (error) {
      log(`sqs: batch of ${messages.length} failed (${error instanceof Error ? error.message : String(error)}); it will be received again`);
      return;
    }
    const done = messagesToDelete(result, messages);
    if (done.length < messages.length)
      log(`sqs: ${messages.length - done.length} of ${messages.length} message(s) failed; they will be received again`);
    if (done.length === 0) return;
    const deleted = await options.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: options.queueUrl,
        Entries: done.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
      }),
    );
    for (const failure of deleted.Failed ?? []) log(`sqs: could not delete a message (${failure.Code}: ${failure.Message})`);
  }

  async function work(): Promise<void> {
    let failures = 0;
    while (!stopping) {
      try {
        const received = await options.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: batchSize,
            WaitTimeSeconds: waitTimeSeconds,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        );
        failures = 0;
        const messages = received.Messages ?? [];
        if (messages.length > 0) await handle(messages);
      } catch (error) {
        if (stopping) return;
        failures += 1;
        log(`sqs: receiving failed (${error instanceof Error ? error.message : String(error)}); retrying`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 100 * 2 ** Math.min(failures, 6))));
      }
    }
  }

  return {
    start() {
      if (workers.length > 0) return;
      stopping = false;
      abort = new AbortController();
      workers = Array.from({ length: concurrency }, () => work());
    },
    async stop() {
      stopping = true;
      abort.abort();
      await Promise.all(workers);
      workers = [];
    },
  };
}
