import { randomUUID } from 'node:crypto';
import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSqsClient, type LocalSqs, startLocalSqs } from '../../../local/fauxqs';
import { ensureQueue, type LocalQueueSpec } from '../../../local/queues';
import { createSqsPoller, type SqsPoller, type SqsPollerOptions } from '../../../local/sqs-poller';

let local: LocalSqs;
let sqs: SQSClient;
const running: SqsPoller[] = [];

beforeAll(async () => {
  local = await startLocalSqs();
  sqs = createSqsClient(local.endpoint);
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((poller) => poller.stop()));
});

afterAll(async () => {
  await local.stop();
});

async function queue(overrides: Partial<LocalQueueSpec> = {}) {
  const name = `q-${randomUUID().slice(0, 8)}`;
  return ensureQueue(sqs, { name, visibilityTimeoutSeconds: 1, ...overrides });
}

function poll(queueUrl: string, queueArn: string, invoke: SqsPollerOptions['invoke'], overrides: Partial<SqsPollerOptions> = {}) {
  const poller = createSqsPoller({ sqs, queueUrl, queueArn, invoke, waitTimeSeconds: 1, ...overrides });
  running.push(poller);
  poller.start();
  return poller;
}

async function send(queueUrl: string, body: string) {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: body,
      MessageAttributes: { kind: { DataType: 'String', StringValue: 'test' } },
    }),
  );
}

async function messagesLeft(queueUrl: string): Promise<number> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible);
}

describe('local SQS event source mapping', () => {
  it('delivers messages as an SQS event and deletes them after success', async () => {
    const { queueUrl, queueArn } = await queue();
    await send(queueUrl, 'one');
    await send(queueUrl, 'two');
    const received: SQSRecord[] = [];

    poll(queueUrl, queueArn, async (event: SQSEvent) => {
      received.push(...event.Records);
    });

    await vi.waitFor(() => expect(received).toHaveLength(2));
    expect(received.map((record) => record.body).sort()).toEqual(['one', 'two']);
    expect(received[0]).toMatchObject({
      messageId: expect.any(String),
      receiptHandle: expect.any(String),
      md5OfBody: expect.any(String),
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: 'eu-west-2',
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: expect.any(String) },
      messageAttributes: { kind: { dataType: 'String', stringValue: 'test' } },
    });
    await vi.waitFor(async () => expect(await messagesLeft(queueUrl)).toBe(0));
  });

  it('keeps only the messages named in batchItemFailures, which come back after the visibility timeout', async () => {
    const { queueUrl, queueArn } = await queue();
    await send(queueUrl, 'good');
    await send(queueUrl, 'bad');
    const seen: Array<[string, string]> = [];

    poll(
      queueUrl,
      queueArn,
      async (event) => {
        for (const record of event.Records) seen.push([record.body, record.attributes.ApproximateReceiveCount]);
        const bad = event.Records.filter((record) => record.body === 'bad' && record.attributes.ApproximateReceiveCount === '1');
        return { batchItemFailures: bad.map((record) => ({ itemIdentifier: record.messageId })) };
      },
      { concurrency: 1 },
    );

    await vi.waitFor(() => expect(seen).toContainEqual(['bad', '2']), { timeout: 5000 });
    expect(seen.filter(([body]) => body === 'good')).toEqual([['good', '1']]);
    await vi.waitFor(async () => expect(await messagesLeft(queueUrl)).toBe(0));
  });

  it('fails the whole batch when the handler throws', async () => {
    const { queueUrl, queueArn } = await queue();
    await send(queueUrl, 'a');
    await send(queueUrl, 'b');
    const receipts: string[] = [];

    poll(
      queueUrl,
      queueArn,
      async (event) => {
        for (const record of event.Records) receipts.push(`${record.body}${record.attributes.ApproximateReceiveCount}`);
        if (event.Records.some((record) => record.attributes.ApproximateReceiveCount === '1')) throw new Error('downstream unavailable');
      },
      { concurrency: 1 },
    );

    await vi.waitFor(() => expect(receipts).toEqual(expect.arrayContaining(['a1', 'b1', 'a2', 'b2'])), { timeout: 5000 });
  });

  it('moves a message to the dead-letter queue after maxReceiveCount, honouring the visibility the handler set', async () => {
    const { queueUrl, queueArn, dlq } = await queue({
      visibilityTimeoutSeconds: 30,
      dlq: { name: `dlq-${randomUUID().slice(0, 8)}`, maxReceiveCount: 3 },
    });
    await send(queueUrl, 'doomed');
    const counts: string[] = [];

    poll(queueUrl, queueArn, async (event) => {
      for (const record of event.Records) {
        counts.push(record.attributes.ApproximateReceiveCount);
        // Retry at once instead of after 30 s, as a handler with its own backoff schedule would.
        await sqs.send(
          new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: 0 }),
        );
      }
      throw new Error('always failing');
    });

    await vi.waitFor(() => expect(counts).toEqual(['1', '2', '3']), { timeout: 5000 });
    const deadLetters = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq?.queueUrl, WaitTimeSeconds: 2 }));
    expect(deadLetters.Messages?.map((message) => message.Body)).toEqual(['doomed']);
    expect(counts).toEqual(['1', '2', '3']);
  });

  it('stops promptly while long-polling and lets an invocation in flight finish', async () => {
    const { queueUrl, queueArn } = await queue();
    await send(queueUrl, 'slow');
    let started = false;
    let finished = false;
    const poller = poll(
      queueUrl,
      queueArn,
      async () => {
        started = true;
        await new Promise((resolve) => setTimeout(resolve, 300));
        finished = true;
      },
      { waitTimeSeconds: 20 },
    );
    await vi.waitFor(() => expect(started).toBe(true));
    const stopping = Date.now();

    await poller.stop();

    expect(finished).toBe(true);
    expect(Date.now() - stopping).toBeLessThan(2000);
  });
});
