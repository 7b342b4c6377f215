import type { Jurisdiction } from '../companies/profile';
import type { ClientEventStore } from '../events/client-events';
import type { DeliveryMessage, FanoutTask, TaskQueue } from '../queues/queues';
import type { WatcherLookup } from '../watches/watch-store';
import { deliveryIdOf } from './events';
import type { SubscriptionDirectory } from './subscription';
import { matchesFilters } from './subscription-filters';

/**
 * Watchers handled per task: a page's deliveries are queued within a few seconds, far inside the
 * function's timeout, whatever the number of watchers in total.
 */
export const FANOUT_PAGE_SIZE = 1000;

export interface FanOutResult {
  readonly watchers: number;
  readonly deliveries: number;
  /** The next page was queued as a task of its own. */
  readonly continued: boolean;
}

/**
 * One step of an event's fan-out: a page of the company's watchers, the event recorded for each of
 * them, each of their ACTIVE subscriptions that wants it one delivery, then the next page as a new task. Delivery ids are derived from the
 * event and subscription, so a step done twice queues the same deliveries, which the sender
 * recognises as already delivered.
 */
export class FanOut {
  private readonly pageSize: number;

  constructor(
    private readonly deps: {
      readonly watchers: WatcherLookup;
      readonly subscriptions: Pick<SubscriptionDirectory, 'activeSubscriptions'>;
      readonly deliveries: TaskQueue<DeliveryMessage>;
      readonly tasks: TaskQueue<FanoutTask>;
      /** Where each watcher can read the event back (GET /v1/events), with or without an endpoint. */
      readonly events: Pick<ClientEventStore, 'recordFor'>;
      readonly pageSize?: number;
    },
  ) {
    this.pageSize = deps.pageSize ?? FANOUT_PAGE_SIZE;
  }

  async run(task: FanoutTask): Promise<FanOutResult> {
    const { event } = task;
    const { jurisdiction, companyNumber } = event.data;
    if (!jurisdiction || !companyNumber) throw new Error(`Event ${event.idempotencyKey} names no company to fan out to`);
    const page = await this.deps.watchers.watchers(jurisdiction as Jurisdiction, companyNumber, {
      limit: this.pageSize,
      ...(task.after === undefined ? {} : { after: task.after }),
    });
    const [active] = await Promise.all([
      this.deps.subscriptions.activeSubscriptions(page.clientIds),
      this.deps.events.recordFor(page.clientIds, event),
    ]);
    const messages: DeliveryMessage[] = [];
    for (const clientId of page.clientIds) {
      for (const subscription of active.get(clientId) ?? []) {
        // A subscription that filters this event out costs no message at all.
        if (!matchesFilters(subscription.filters, event)) continue;
        const subscriptionId = subscription.id;
        messages.push({ deliveryId: deliveryIdOf(event.idempotencyKey, subscriptionId), clientId, subscriptionId, envelope: event });
      }
    }
    await this.deps.deliveries.send(messages);
    if (page.next !== undefined) await this.deps.tasks.send([{ event, after: page.next }]);
    return { watchers: page.clientIds.length, deliveries: messages.length, continued: page.next !== undefined };
  }
}
