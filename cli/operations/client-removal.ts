import type { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import type { WatchStore } from '../../shared/watches/watch-store';
import type { DynamoSubscriptionStore } from '../../shared/webhooks/dynamo-subscription-store';

export interface ClientRemovalDeps {
  readonly registry: Pick<DynamoClientRegistry, 'get' | 'disable' | 'remove'>;
  readonly subscriptions: Pick<DynamoSubscriptionStore, 'list' | 'delete'>;
  readonly watches: Pick<WatchStore, 'listWatches'> & {
    removeWatch(clientId: string, jurisdiction: 'GB' | 'IE', companyNumber: string): Promise<void>;
  };
}

export interface RemovalProgress {
  readonly subscriptionsRemoved: number;
  readonly watchesRemoved: number;
}

const PAGE = 100;

/**
 * Removes a client that has left, with everything that would otherwise keep working for it: it is
 * disabled first (no new tokens, and its tokens stop at once, so it cannot add watches meanwhile),
 * then its webhook subscriptions and its watches go, so fan-out no longer reads them, and the client
 * record last. Each step is safe to repeat: an interrupted removal is finished by running it again.
 */
export async function removeClient(
  deps: ClientRemovalDeps,
  clientId: string,
  onProgress: (progress: RemovalProgress) => void = () => {},
): Promise<RemovalProgress> {
  if (await deps.registry.get(clientId)) await deps.registry.disable(clientId);
  let subscriptionsRemoved = 0;
  let watchesRemoved = 0;
  // Each list is walked once with its cursor (the watches index is eventually consistent: re-reading
  // from the front could meet items already deleted).
  let cursor: string | undefined;
  do {
    const page = await deps.subscriptions.list(clientId, { limit: PAGE, ...(cursor ? { cursor } : {}) });
    for (const subscription of page.items) await deps.subscriptions.delete(clientId, subscription.id);
    subscriptionsRemoved += page.items.length;
    cursor = page.nextCursor;
    onProgress({ subscriptionsRemoved, watchesRemoved });
  } while (cursor);
  do {
    const page = await deps.watches.listWatches(clientId, { limit: PAGE, ...(cursor ? { cursor } : {}) });
    await Promise.all(page.items.map((watch) => deps.watches.removeWatch(clientId, watch.jurisdiction, watch.companyNumber)));
    watchesRemoved += page.items.length;
    cursor = page.nextCursor;
    onProgress({ subscriptionsRemoved, watchesRemoved });
  } while (cursor);
  await deps.registry.remove(clientId);
  return { subscriptionsRemoved, watchesRemoved };
}
