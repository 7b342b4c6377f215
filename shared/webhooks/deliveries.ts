import { randomBytes } from 'node:crypto';
import type { RateLimiter, RateLimitResult } from '../auth/rate-limit';
import type { DeliveryMessage, TaskQueue } from '../queues/queues';
import { type AttemptPage, type DeliveryLog, DeliveryNotFoundError } from './delivery-log';
import { deliveryIdOf, testEvent, type WebhookEnvelope } from './events';
import type { Subscriptions } from './subscriptions';

/** Test events and manual retries per client per minute, together: each makes Bureau POST to the client's URL. */
export const MANUAL_SENDS_PER_MINUTE = 10;
export const manualSendsRateKey = (clientId: string) => `manual-sends#${clientId}`;

export class TooManyManualSendsError extends Error {
  constructor(readonly usage: RateLimitResult) {
    super(`At most ${usage.limit} test events and retries a minute; try again in ${usage.resetSeconds} s.`);
    this.name = 'TooManyManualSendsError';
  }
}

/**
 * What a client can do with deliveries: send a test event, read the attempts, and send a delivery
 * again. Everything goes through the deliveries queue, so a test or a retry is signed, logged and
 * retried exactly as a real event is.
 */
export class Deliveries {
  constructor(
    private readonly deps: {
      readonly subscriptions: Subscriptions;
      readonly log: DeliveryLog;
      readonly queue: TaskQueue<DeliveryMessage>;
      readonly clock: () => Date;
      /**
       * Counts a client's test events and retries, which make Bureau send to an address the client
       * chose; an operator's own tools pass 'unlimited'.
       */
      readonly manualSends: Pick<RateLimiter, 'consume'> | 'unlimited';
    },
  ) {}

  async sendTest(clientId: string, subscriptionId: string): Promise<{ deliveryId: string; event: WebhookEnvelope }> {
    await counted(this.deps.subscriptions.get(clientId, subscriptionId), this.countManualSend(clientId));
    const event = testEvent(subscriptionId, this.deps.clock(), randomBytes(9).toString('base64url'));
    const deliveryId = deliveryIdOf(event.idempotencyKey, subscriptionId);
    await this.deps.queue.send([{ deliveryId, clientId, subscriptionId, envelope: event }]);
    return { deliveryId, event };
  }

  async attempts(clientId: string, subscriptionId: string, options: { limit: number; cursor?: string }): Promise<AttemptPage> {
    await this.deps.subscriptions.get(clientId, subscriptionId);
    return this.deps.log.attempts(subscriptionId, options);
  }

  async retry(clientId: string, subscriptionId: string, deliveryId: string): Promise<{ deliveryId: string }> {
    const [, delivery] = await counted(
      Promise.all([this.deps.subscriptions.get(clientId, subscriptionId), this.deps.log.read(subscriptionId, deliveryId)]),
      this.countManualSend(clientId),
    );
    if (!delivery || delivery.clientId !== clientId) throw new DeliveryNotFoundError(deliveryId);
    await this.deps.queue.send([{ deliveryId, clientId, subscriptionId, envelope: delivery.envelope, manual: true }]);
    return { deliveryId };
  }

  private async countManualSend(clientId: string): Promise<void> {
    if (this.deps.manualSends === 'unlimited') return;
    const usage = await this.deps.manualSends.consume(manualSendsRateKey(clientId), MANUAL_SENDS_PER_MINUTE);
    if (!usage.allowed) throw new TooManyManualSendsError(usage);
  }
}

/**
 * The look-ups and the count go out together, so the limit costs no round trip of its own; a
 * subscription or delivery that is not the client's is reported before the limit is.
 */
async function counted<T>(lookUp: Promise<T>, count: Promise<void>): Promise<T> {
  const [found, allowed] = await Promise.allSettled([lookUp, count]);
  if (found.status === 'rejected') throw found.reason;
  if (allowed.status === 'rejected') throw allowed.reason;
  return found.value;
}
