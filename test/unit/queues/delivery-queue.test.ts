import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { deliveryQueueHandler } from '../../../shared/queues/delivery-queue';
import type { DeliveryMessage } from '../../../shared/queues/queues';
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
  it('settles each message as the sender decided: kept and hidden for a retry, parked when spent, kept as it is when unsigned, deleted otherwise', async () => {
    const outcomes: Record<string, SendOutcome> = {
      ok: { kind: 'delivered', attempt: { ...attempt, outcome: 'delivered' } },
      later: { kind: 'retry', delaySeconds: 300, attempt },
      spent: { kind: 'exhausted', attempt },
      gone: { kind: 'gone', attempt },
      dropped: { kind: 'dropped', reason: 'the subscription was deleted' },
      again: { kind: 'duplicate' },
      unsigned: { kind: 'unsigned', reason: 'KMS is unavailable' },
    };
    const received: ReceivedDelivery[][] = [];
    const redelivered: [string, number][] = [];
    const handler = deliveryQueueHandler({
      sender: {
        sendBatch: async (batch) => {
          received.push([...batch]);
          return batch.map(({ message }) => outcomes[message.deliveryId] as SendOutcome);
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

    expect(received).toHaveLength(1);
    expect(received[0]?.map(({ message, receiveCount }) => [message.deliveryId, receiveCount])).toEqual(
      Object.keys(outcomes).map((id) => [id, 3]),
    );
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual([
      'half',
      'junk',
      'later',
      'spent',
      'unsigned',
    ]);
    expect(redelivered).toEqual([
      ['receipt-later', 300],
      ['receipt-spent', 0],
    ]);
  });
});
