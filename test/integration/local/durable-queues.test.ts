import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { createSqsClient, type LocalSqs, startLocalSqs } from '../../../infra/local/fauxqs';
import { ensureQueue } from '../../../infra/local/queues';

const spec = { name: 'work', visibilityTimeoutSeconds: 1, dlq: { name: 'work-dlq', maxReceiveCount: 2 } };

async function open(journalFile: string): Promise<{ sqs: LocalSqs; client: SQSClient; work: string; dlq: string }> {
  const sqs = await startLocalSqs({ journalFile });
  const client = createSqsClient(sqs.endpoint);
  const queue = await ensureQueue(client, spec);
  return { sqs, client, work: queue.queueUrl, dlq: queue.dlq?.queueUrl as string };
}

const receive = async (client: SQSClient, queueUrl: string, wait = 0, max = 1) =>
  (
    await client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: max,
        WaitTimeSeconds: wait,
        MessageSystemAttributeNames: ['All'],
      }),
    )
  ).Messages ?? [];

/** Sends one message and receives it back: one at a time, so no other is received by the way. */
async function sendAndReceive(client: SQSClient, queueUrl: string, body: string) {
  await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  const [message] = await receive(client, queueUrl, 1);
  if (message?.Body !== body) throw new Error(`received ${message?.Body} instead of ${body}`);
  return message;
}

describe('the local queues with a journal', () => {
  it('come back after a restart as SQS keeps them: hidden, delayed, dead-lettered, deleted, and the receive counts', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'bureau-journal-')), 'queues.jsonl');
    const before = await open(journal);
    const hidden = await sendAndReceive(before.client, before.work, 'retry-in-an-hour');
    await before.client.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: before.work, ReceiptHandle: hidden.ReceiptHandle, VisibilityTimeout: 3600 }),
    );
    const done = await sendAndReceive(before.client, before.work, 'done');
    await before.client.send(new DeleteMessageCommand({ QueueUrl: before.work, ReceiptHandle: done.ReceiptHandle }));
    // Handed back twice, then received a third time: over maxReceiveCount, fauxqs moves it to the dead-letter queue.
    const poison = await sendAndReceive(before.client, before.work, 'poison');
    await before.client.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: before.work, ReceiptHandle: poison.ReceiptHandle, VisibilityTimeout: 0 }),
    );
    const again = await receive(before.client, before.work);
    await before.client.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: before.work, ReceiptHandle: again[0]?.ReceiptHandle, VisibilityTimeout: 0 }),
    );
    expect(await receive(before.client, before.work)).toEqual([]);
    await sendAndReceive(before.client, before.work, 'in-flight');
    await before.client.send(new SendMessageCommand({ QueueUrl: before.work, MessageBody: 'waiting' }));
    await before.client.send(new SendMessageCommand({ QueueUrl: before.work, MessageBody: 'delayed', DelaySeconds: 600 }));
    before.client.destroy();
    await before.sqs.stop();

    const after = await open(journal);
    try {
      const back: string[] = [];
      for (let tries = 0; tries < 5 && back.length < 2; tries++)
        back.push(...(await receive(after.client, after.work, 1)).map((message) => message.Body as string));
      const attributes = await after.client.send(
        new GetQueueAttributesCommand({ QueueUrl: after.work, AttributeNames: ['ApproximateNumberOfMessagesDelayed'] }),
      );
      const parked = await receive(after.client, after.dlq, 1);

      expect(back.sort()).toEqual(['in-flight', 'waiting']);
      expect(attributes.Attributes?.ApproximateNumberOfMessagesDelayed).toBe('2');
      expect(parked.map((message) => message.Body)).toEqual(['poison']);
    } finally {
      after.client.destroy();
      await after.sqs.stop();
    }
  });

  it('keep every message whose send was answered when the process is killed with SIGKILL mid-stream', async () => {
    const journal = join(mkdtempSync(join(tmpdir(), 'bureau-journal-')), 'queues.jsonl');
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/send-until-killed.ts'), journal], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const acknowledged: string[] = [];
    await new Promise<void>((resolve, reject) => {
      let buffered = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) if (line !== 'ready') acknowledged.push(line);
        if (acknowledged.length >= 300) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.once('exit', (code) => (acknowledged.length < 300 ? reject(new Error(`the sender exited early (${code})`)) : undefined));
    });
    await new Promise((resolve) => child.once('exit', resolve));

    const sqs = await startLocalSqs({ journalFile: journal });
    const client = createSqsClient(sqs.endpoint);
    try {
      const { queueUrl } = await ensureQueue(client, { name: 'crashing', visibilityTimeoutSeconds: 30 });
      const kept = new Set<string>();
      for (let batch = await receive(client, queueUrl, 0, 10); batch.length > 0; batch = await receive(client, queueUrl, 0, 10)) {
        for (const message of batch) kept.add(message.Body as string);
      }
      expect(acknowledged.filter((n) => !kept.has(n))).toEqual([]);
    } finally {
      client.destroy();
      await sqs.stop();
    }
  });
});
