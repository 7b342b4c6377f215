import { randomBytes } from 'node:crypto';
import type { TaskQueue } from './change-detector';
import { type AttemptPage, type DeliveryLog, type DeliveryMessage, DeliveryNotFoundError } from './delivery-log';
import { deliveryIdOf, testEvent, type WebhookEnvelope } from './events';
import type { Subscriptions } from './subscriptions';

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
    },
  ) {}

  async sendTest(clientId: string, subscriptionId: string): Promise<{ deliveryId: string; event: WebhookEnvelope }> {
    await this.deps.subscriptions.get(clientId, subscriptionId);
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
    await this.deps.subscriptions.get(clientId, subscriptionId);
    const delivery = await this.deps.log.read(subscriptionId, deliveryId);
    if (!delivery || delivery.clientId !== clientId) throw new DeliveryNotFoundError(deliveryId);
    await this.deps.queue.send([{ deliveryId, clientId, subscriptionId, envelope: delivery.envelope, manual: true }]);
    return { deliveryId };
  }
}
