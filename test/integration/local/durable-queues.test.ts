import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { createSqsClient, type LocalSqs, startLocalSqs } from '../../../local/fauxqs';
import { ensureQueue } from '../../../local/queues';

const spec = { name: 'work', visibilityTimeoutSeconds: 1, dlq: { name: 'work-dlq', maxReceiveCount: 2 } };
const HOUR_MS = 3600 * 1000;

const journalFile = () => join(mkdtempSync(join(tmpdir(), 'bureau-journal-')), 'queues.jsonl');

async function open(
  journal: string,
  compactJournalAtBytes?: number,
): Promise<{ sqs: LocalSqs; client: SQSClient; work: string; dlq: string; close(): Promise<void> }> {
  const sqs = await startLocalSqs({ journalFile: journal, ...(compactJournalAtBytes ? { compactJournalAtBytes } : {}) });
  const client = createSqsClient(sqs.endpoint);
  const queue = await ensureQueue(client, spec);
  return {
    sqs,
    client,
    work: queue.queueUrl,
    dlq: queue.dlq?.queueUrl as string,
    async close() {
      client.destroy();
      await sqs.stop();
    },
  };
}

interface InspectedMessage {
  readonly body: string;
  readonly approximateReceiveCount: number;
  readonly delayUntil?: number;
}

/** What fauxqs holds, read through its inspection endpoint: nothing is received, nothing changes. */
async function inspect(sqs: LocalSqs, queueName: string) {
  const response = await fetch(`${sqs.endpoint}/_fauxqs/queues/${queueName}`);
  const { messages } = (await response.json()) as {
    messages: { ready: InspectedMessage[]; delayed: InspectedMessage[]; inflight: Array<{ message: InspectedMessage }> };
  };
  const byBody = (list: InspectedMessage[]) => list.map((message) => message.body).sort();
  return { ...messages, readyBodies: byBody(messages.ready), delayedBodies: byBody(messages.delayed) };
}

const receive = async (client: SQSClient, queueUrl: string, max = 1) =>
  (
    await client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: max, WaitTimeSeconds: 0, MessageSystemAttributeNames: ['All'] }),
    )
  ).Messages ?? [];

/** Sends one message and receives it back: one at a time, so no other is received by the way. */
async function sendAndReceive(client: SQSClient, queueUrl: string, body: string) {
  await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  const [message] = await receive(client, queueUrl);
  if (message?.Body !== body) throw new Error(`received ${message?.Body} instead of ${body}`);
  return message;
}

describe('the local queues with a journal', () => {
  it('come back after a restart as SQS keeps them: hidden until their time, delayed, dead-lettered, deleted, and the receive counts', async () => {
    const journal = journalFile();
    const before = await open(journal);
    const hidden = await sendAndReceive(before.client, before.work, 'retry-in-an-hour');
    const hiddenFrom = Date.now();
    await before.client.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: before.work, ReceiptHandle: hidden.ReceiptHandle, VisibilityTimeout: 3600 }),
    );
    const hiddenTo = Date.now();
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
    const delayedFrom = Date.now();
    await before.client.send(new SendMessageCommand({ QueueUrl: before.work, MessageBody: 'delayed', DelaySeconds: 600 }));
    const delayedTo = Date.now();
    await before.close();

    const after = await open(journal);
    try {
      const work = await inspect(after.sqs, 'work');
      const dlq = await inspect(after.sqs, 'work-dlq');
      const served = await receive(after.client, after.work, 10);

      expect(work.readyBodies).toEqual(['in-flight', 'waiting']);
      expect(work.delayedBodies).toEqual(['delayed', 'retry-in-an-hour']);
      const retry = work.delayed.find((message) => message.body === 'retry-in-an-hour');
      expect(retry?.delayUntil).toBeGreaterThanOrEqual(hiddenFrom + HOUR_MS);
      expect(retry?.delayUntil).toBeLessThanOrEqual(hiddenTo + HOUR_MS);
      expect(retry?.approximateReceiveCount).toBe(1);
      const delayed = work.delayed.find((message) => message.body === 'delayed');
      expect(delayed?.delayUntil).toBeGreaterThanOrEqual(delayedFrom + 600_000);
      expect(delayed?.delayUntil).toBeLessThanOrEqual(delayedTo + 600_000);
      expect(dlq.readyBodies).toEqual(['poison']);
      expect(dlq.ready[0]?.approximateReceiveCount).toBe(3);
      expect(Object.fromEntries(served.map((message) => [message.Body, message.Attributes?.ApproximateReceiveCount]))).toEqual({
        'in-flight': '2',
        waiting: '1',
      });
    } finally {
      await after.close();
    }
  });

  it('stay small: rewritten with only the live messages at start and whenever they grow past their bound', async () => {
    const journal = journalFile();
    const before = await open(journal, 4096);
    const sizes: number[] = [];
    for (let n = 0; n < 200; n++) {
      const message = await sendAndReceive(before.client, before.work, `done ${n}`);
      await before.client.send(new DeleteMessageCommand({ QueueUrl: before.work, ReceiptHandle: message.ReceiptHandle }));
      sizes.push(statSync(journal).size);
    }
    await before.client.send(new SendMessageCommand({ QueueUrl: before.work, MessageBody: 'kept' }));
    await before.close();

    const after = await open(journal);
    try {
      // Two hundred messages sent, received and deleted are about 100 KiB of journal lines.
      expect(Math.max(...sizes)).toBeLessThan(4096 + 1024);
      expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(1);
      expect((await inspect(after.sqs, 'work')).readyBodies).toEqual(['kept']);
    } finally {
      await after.close();
    }
  });

  it('forget the messages of a deleted queue, as SQS does: a queue created again under its name starts empty', async () => {
    const journal = journalFile();
    const before = await open(journal);
    await before.client.send(new SendMessageCommand({ QueueUrl: before.work, MessageBody: 'gone with its queue' }));
    await before.client.send(new DeleteQueueCommand({ QueueUrl: before.work }));
    await before.close();

    const after = await open(journal);
    try {
      expect((await inspect(after.sqs, 'work')).readyBodies).toEqual([]);
    } finally {
      await after.close();
    }
  });

  it('keep every step a consumer was answered for when the process is killed with SIGKILL mid-work, and bring back nothing deleted', async () => {
    const journal = journalFile();
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/queue-work-until-killed.ts'), journal], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const sent = new Set<number>();
    const deleted = new Set<number>();
    const hiddenAt = new Map<number, number>();
    const leftInFlight = new Set<number>();
    await new Promise<void>((resolve, reject) => {
      let buffered = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) {
          const [step, number, at] = line.split(' ');
          const n = Number(number);
          if (step === 'sent') sent.add(n);
          else if (step === 'deleted') deleted.add(n);
          else if (step === 'hidden') hiddenAt.set(n, Number(at));
          else if (step === 'received') leftInFlight.add(n);
        }
        if (sent.size >= 300 && child.exitCode === null) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.once('exit', (code) => (sent.size < 300 ? reject(new Error(`the consumer exited early (${code})`)) : undefined));
    });
    await new Promise((resolve) => child.once('exit', resolve));

    const sqs = await startLocalSqs({ journalFile: journal });
    const client = createSqsClient(sqs.endpoint);
    try {
      await ensureQueue(client, { name: 'crashing', visibilityTimeoutSeconds: 30 });
      const kept = await inspect(sqs, 'crashing');
      const ready = new Set(kept.readyBodies.map(Number));
      const hidden = new Map(kept.delayed.map((message) => [Number(message.body), message.delayUntil as number]));
      const last = Math.max(...sent);
      // The one step under way when the process died may or may not have been journaled; every step before it was answered.
      const settled = [...sent].filter((n) => n < last);

      expect(settled.filter((n) => deleted.has(n) && (ready.has(n) || hidden.has(n)))).toEqual([]);
      expect(settled.filter((n) => leftInFlight.has(n) && !ready.has(n))).toEqual([]);
      expect(settled.filter((n) => hiddenAt.has(n) && !hidden.has(n))).toEqual([]);
      for (const [n, at] of hiddenAt) expect((hidden.get(n) ?? 0) - at).toBeLessThanOrEqual(HOUR_MS);
      for (const [n, at] of hiddenAt) expect((hidden.get(n) ?? 0) - at).toBeGreaterThan(HOUR_MS - 1000);
      if (last % 3 !== 0) expect(ready.has(last) || hidden.has(last)).toBe(true);
      expect([...ready, ...hidden.keys()].filter((n) => n > last + 1)).toEqual([]);
      expect(settled.length).toBeGreaterThanOrEqual(299);
    } finally {
      client.destroy();
      await sqs.stop();
    }
  });
});
