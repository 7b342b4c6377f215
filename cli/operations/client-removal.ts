import type { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import type { WatchStore } from '../../shared/watches/watch-store';
import type { DynamoSubscriptionStore } from '../../shared/webhooks/dynamo-subscription-store';

export interface ClientRemovalDeps {
  readonly registry: Pick<DynamoClientRegistry, 'get' | 'disable' | 'remove'>;
  readonly subscriptions: Pick<DynamoSubscriptionStore, 'list' | 'delete'>;
  readonly watches: Pick<WatchStore, 'listWatches'> & {
    removeWatch(clientId: string, jurisdiction: 'GB' | 'IE', companyNumber: string): Promise<void>;
  };
  /** Deletes a subscription's delivery log (its deliveries, attempts and dead entries); how many items went. */
  readonly removeDeliveryLog: (subscriptionId: string) => Promise<number>;
  /** Deletes the client's events (GET /v1/events); how many went. */
  readonly removeEvents: (clientId: string) => Promise<number>;
}

export interface RemovalProgress {
  readonly subscriptionsRemoved: number;
  readonly watchesRemoved: number;
  readonly deliveryLogItemsRemoved: number;
  readonly eventsRemoved: number;
}

const PAGE = 100;

/**
 * Removes a client that has left, with everything that would otherwise keep working for it or keep
 * its data: it is disabled first (no new tokens, and its tokens stop at once, so it cannot add
 * watches meanwhile), then each webhook subscription goes with its delivery log (the log first, so a
 * log is never left without the subscription that finds it), then its watches, so fan-out no longer
 * reads them or writes it events, then its events, and the client record last. Each step is safe to
 * repeat: an interrupted removal is finished by running it again.
 */
export async function removeClient(
  deps: ClientRemovalDeps,
  clientId: string,
  onProgress: (progress: RemovalProgress) => void = () => {},
): Promise<RemovalProgress> {
  if (await deps.registry.get(clientId)) await deps.registry.disable(clientId);
  let progress: RemovalProgress = { subscriptionsRemoved: 0, watchesRemoved: 0, deliveryLogItemsRemoved: 0, eventsRemoved: 0 };
  const advance = (step: Partial<RemovalProgress>) => {
    progress = {
      subscriptionsRemoved: progress.subscriptionsRemoved + (step.subscriptionsRemoved ?? 0),
      watchesRemoved: progress.watchesRemoved + (step.watchesRemoved ?? 0),
      deliveryLogItemsRemoved: progress.deliveryLogItemsRemoved + (step.deliveryLogItemsRemoved ?? 0),
      eventsRemoved: progress.eventsRemoved + (step.eventsRemoved ?? 0),
    };
    onProgress(progress);
  };
  // Each list is walked once with its cursor (the watches index is eventually consistent: re-reading
  // from the front could meet items already deleted).
  let cursor: string | undefined;
  do {
    const page = await deps.subscriptions.list(clientId, { limit: PAGE, ...(cursor ? { cursor } : {}) });
    for (const subscription of page.items) {
      const deliveryLogItemsRemoved = await deps.removeDeliveryLog(subscription.id);
      await deps.subscriptions.delete(clientId, subscription.id);
      advance({ subscriptionsRemoved: 1, deliveryLogItemsRemoved });
    }
    cursor = page.nextCursor;
  } while (cursor);
  do {
    const page = await deps.watches.listWatches(clientId, { limit: PAGE, ...(cursor ? { cursor } : {}) });
    await Promise.all(page.items.map((watch) => deps.watches.removeWatch(clientId, watch.jurisdiction, watch.companyNumber)));
    cursor = page.nextCursor;
    advance({ watchesRemoved: page.items.length });
  } while (cursor);
  advance({ eventsRemoved: await deps.removeEvents(clientId) });
  await deps.registry.remove(clientId);
  return progress;
}
