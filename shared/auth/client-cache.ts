import { ExpiringPromises } from '../cache/expiring-promises';
import type { ClientLookup, ClientRecord } from './client-registry';
import { type Clock, systemClock } from './clock';

/**
 * Keeps each client record (or its absence) for a few seconds so verifying a token does not read
 * the table on every request. The window is how late a disable or secret rotation takes effect.
 */
export class CachedClientLookup implements ClientLookup {
  private readonly records: ExpiringPromises<string, ClientRecord | undefined>;

  constructor(
    private readonly clients: ClientLookup,
    options: { ttlSeconds: number; clock?: Clock },
  ) {
    this.records = new ExpiringPromises(options.ttlSeconds * 1000, options.clock ?? systemClock);
  }

  get(clientId: string): Promise<ClientRecord | undefined> {
    return this.records.get(clientId, () => this.clients.get(clientId));
  }
}
