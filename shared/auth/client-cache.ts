import type { ClientLookup, ClientRecord } from './client-registry';
import { type Clock, systemClock } from './clock';

/**
 * Keeps each client record (or its absence) for a few seconds so verifying a token does not read
 * the table on every request. The window is how late a disable or secret rotation takes effect.
 */
export class CachedClientLookup implements ClientLookup {
  private readonly entries = new Map<string, { record: Promise<ClientRecord | undefined>; fetchedAt: number }>();
  private readonly clock: Clock;

  constructor(
    private readonly clients: ClientLookup,
    private readonly options: { ttlSeconds: number; clock?: Clock },
  ) {
    this.clock = options.clock ?? systemClock;
  }

  get(clientId: string): Promise<ClientRecord | undefined> {
    const now = this.clock();
    const cached = this.entries.get(clientId);
    if (cached && now - cached.fetchedAt < this.options.ttlSeconds * 1000) return cached.record;
    this.evictExpired(now);
    const entry = { record: this.clients.get(clientId), fetchedAt: now };
    this.entries.set(clientId, entry);
    entry.record.catch(() => {
      if (this.entries.get(clientId) === entry) this.entries.delete(clientId);
    });
    return entry.record;
  }

  private evictExpired(now: number): void {
    for (const [clientId, entry] of this.entries) {
      if (now - entry.fetchedAt >= this.options.ttlSeconds * 1000) this.entries.delete(clientId);
    }
  }
}
