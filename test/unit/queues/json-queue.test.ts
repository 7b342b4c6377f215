import type { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { JsonQueue } from '../../../shared/queues/sqs';

/** An SQS client that accepts every entry after a pause, counting the batches it holds at once. */
function slowSqs() {
  const bodies: unknown[] = [];
  const sizes: number[] = [];
  let holding = 0;
  let mostHeld = 0;
  const sqs = {
    send: async (command: SendMessageBatchCommand) => {
      holding++;
      mostHeld = Math.max(mostHeld, holding);
      await new Promise((resolve) => setTimeout(resolve, 2));
      const entries = command.input.Entries ?? [];
      sizes.push(entries.length);
      bodies.push(...entries.map((entry) => JSON.parse(entry.MessageBody as string)));
      holding--;
      return { Successful: entries.map((entry) => ({ Id: entry.Id })), Failed: [] };
    },
  };
  return { sqs: sqs as unknown as SQSClient, bodies, sizes, mostHeld: () => mostHeld };
}

describe('JsonQueue.send', () => {
  it('queues every message once, in batches of ten, with at most eight batches in flight', async () => {
    const fake = slowSqs();
    const messages = Array.from({ length: 205 }, (_, n) => ({ n }));

    await new JsonQueue<{ n: number }>(fake.sqs, 'https://sqs.eu-west-2.amazonaws.com/000000000000/q').send(messages);

    expect(fake.sizes).toHaveLength(21);
    expect(fake.sizes.filter((size) => size !== 10)).toEqual([5]);
    expect((fake.bodies as { n: number }[]).map((body) => body.n).sort((a, b) => a - b)).toEqual(messages.map((m) => m.n));
    expect(fake.mostHeld()).toBe(8);
  });
});
