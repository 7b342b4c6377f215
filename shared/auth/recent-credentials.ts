import { type Clock, systemClock } from './clock';
import { hashClientSecret, secretMatchesAny } from './secret-hash';

interface Remembered {
  readonly secretHash: string;
  readonly rateLimitPerMinute: number;
  readonly expiresAtMs: number;
}

/** Long enough to cover a client's token refreshes on a warm instance, short enough to forget clients that left. */
const DEFAULT_TTL_MS = 15 * 60 * 1000;
const DEFAULT_MAX_CLIENTS = 10_000;

/**
 * The secret each client last proved on this instance (its hash) and the limit it was charged
 * against. A token request presenting that same secret may be charged to the client's quota while
 * its record is read, so it costs one round trip; the record still decides, and a charge it does not
 * confirm is taken back. A request that cannot show a secret proved here is checked before it is
 * charged, so someone who knows only a client id can never spend that client's quota.
 */
export class RecentCredentials {
  private readonly entries = new Map<string, Remembered>();
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly maxClients: number;

  constructor(options: { clock?: Clock; ttlMs?: number; maxClients?: number } = {}) {
    this.clock = options.clock ?? systemClock;
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.maxClients = options.maxClients ?? DEFAULT_MAX_CLIENTS;
  }

  /** The limit to charge the client before its record is read, when this secret was proved here recently. */
  vouchedLimit(clientId: string, secret: string): number | undefined {
    const entry = this.entries.get(clientId);
    if (!entry || entry.expiresAtMs <= this.clock()) return undefined;
    return secretMatchesAny(secret, [entry.secretHash]) ? entry.rateLimitPerMinute : undefined;
  }

  remember(clientId: string, secret: string, rateLimitPerMinute: number): void {
    this.entries.delete(clientId);
    if (this.entries.size >= this.maxClients) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(clientId, { secretHash: hashClientSecret(secret), rateLimitPerMinute, expiresAtMs: this.clock() + this.ttlMs });
  }

  forget(clientId: string): void {
    this.entries.delete(clientId);
  }
}
