import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { DeliveryMessage } from '../../../shared/queues/queues';
import { deliveryQueueHandler, grantableVisibility } from '../../../shared/webhooks/delivery-queue';
import type { ReceivedDelivery, SendOutcome } from '../../../shared/webhooks/sender';

const attempt = {
  deliveryId: 'x',
  eventType: 'profile.changed',
  idempotencyKey: 'k',
  attempt: 1,
  attemptedAt: '2026-11-24T12:00:00.000Z',
  outcome: 'failed' as const,
  durationMs: 1,
};

function record(id: string, body: unknown, receiveCount = 1): SQSRecord {
  return {
    messageId: id,
    receiptHandle: `receipt-${id}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: { ApproximateReceiveCount: String(receiveCount) } as SQSRecord['attributes'],
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-west-2:000000000000:deliveries',
    awsRegion: 'eu-west-2',
  };
}

const delivery = (id: string): DeliveryMessage => ({
  deliveryId: id,
  clientId: 'cli_a',
  subscriptionId: 'wh_AAAAAAAAAAAAAAAA',
  envelope: {
    type: 'profile.changed',
    apiVersion: 'v1',
    occurredAt: '2026-11-24T12:00:00.000Z',
    idempotencyKey: `k-${id}`,
    block: 'overview',
    data: { jurisdiction: 'GB', companyNumber: '00000001' },
  },
});

describe('the deliveries queue in front of the sender', () => {
  it('settles each message as the sender decided: hidden the moment a retry is known, deleted when done or dead, kept when unsigned or unlogged', async () => {
    const outcomes: Record<string, SendOutcome> = {
      ok: { kind: 'delivered', attempt: { ...attempt, outcome: 'delivered' } },
      later: { kind: 'retry', delaySeconds: 300, attempt },
      early: { kind: 'early', delaySeconds: 40 },
      spent: { kind: 'exhausted', attempt },
      gone: { kind: 'gone', attempt },
      dropped: { kind: 'dropped', reason: 'the subscription was deleted' },
      again: { kind: 'duplicate' },
      unsigned: { kind: 'unsigned', reason: 'KMS is unavailable' },
      unlogged: { kind: 'unrecorded', reason: 'the table is unavailable' },
    };
    const received: ReceivedDelivery[][] = [];
    const redelivered: [string, number][] = [];
    const hiddenBeforeTheBatchEnded: string[] = [];
    const handler = deliveryQueueHandler({
      sender: {
        sendBatch: async (batch, onSettled) => {
          received.push([...batch]);
          const decided = batch.map(({ message }) => outcomes[message.deliveryId] as SendOutcome);
          for (const [index, outcome] of decided.entries()) await onSettled?.(index, outcome);
          hiddenBeforeTheBatchEnded.push(...redelivered.map(([receipt]) => receipt));
          return decided;
        },
      },
      queue: { redeliverIn: async (receipt, seconds) => void redelivered.push([receipt, seconds]) },
    });
    const event: SQSEvent = {
      Records: [
        ...Object.keys(outcomes).map((id) => record(id, delivery(id), 3)),
        record('junk', 'not json'),
        record('half', { deliveryId: 'x' }),
      ],
    };

    const response = await handler(event, {} as Context);

    expect(received[0]?.map(({ message }) => message.deliveryId)).toEqual(Object.keys(outcomes));
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual([
      'early',
      'half',
      'junk',
      'later',
      'unlogged',
      'unsigned',
    ]);
    expect(redelivered).toEqual([
      ['receipt-later', 300],
      ['receipt-early', 40],
    ]);
    expect(hiddenBeforeTheBatchEnded).toEqual(['receipt-later', 'receipt-early']);
  });

  it('asks SQS for no visibility that would end more than 12 hours after the message was received', async () => {
    const asked: number[] = [];
    let clock = 1_000_000;
    const handler = deliveryQueueHandler({
      now: () => clock,
      sender: {
        sendBatch: async (batch, onSettled) => {
          clock += 9_000;
          const outcome: SendOutcome = { kind: 'retry', delaySeconds: 43_200, attempt };
          await onSettled?.(0, outcome);
          return batch.map(() => outcome);
        },
      },
      queue: { redeliverIn: async (_receipt, seconds) => void asked.push(seconds) },
    });

    await handler({ Records: [record('later', delivery('later'))] }, {} as Context);

    // 9 s spent in the invocation, a minute allowed between the receive and the invocation.
    expect(asked).toEqual([43_200 - 9 - 60]);
  });

  it('grants every shorter delay as asked', () => {
    expect(grantableVisibility(5, 0, 2_000)).toBe(5);
    expect(grantableVisibility(36_000, 0, 30_000)).toBe(36_000);
    expect(grantableVisibility(43_200, 0, 0)).toBe(43_140);
  });
});
