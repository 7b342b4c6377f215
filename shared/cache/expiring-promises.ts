/** Milliseconds since the epoch; tests pass their own. */
type Clock = () => number;

interface Entry<T> {
  readonly value: Promise<T>;
  readonly storedAt: number;
}

/**
 * Promises kept by key for a while. A promise that rejects is forgotten at once, so a failed read is
 * tried again by the next caller instead of being served until it expires; callers that arrive while
 * a load is in flight share it.
 */
export class ExpiringPromises<K, T> {
  private readonly entries = new Map<K, Entry<T>>();

  constructor(
    private readonly maxAgeMs: number,
    private readonly clock: Clock = Date.now,
  ) {}

  /** The kept promise for the key, or a new one from load. */
  get(key: K, load: () => Promise<T>): Promise<T> {
    const now = this.clock();
    const kept = this.entries.get(key);
    if (kept && now - kept.storedAt < this.maxAgeMs) return kept.value;
    this.evictExpired(now);
    return this.keep(key, load(), now);
  }

  /** Whether the key's promise was stored less than ageMs ago. */
  storedWithin(key: K, ageMs: number): boolean {
    const kept = this.entries.get(key);
    return kept !== undefined && this.clock() - kept.storedAt < ageMs;
  }

  /** Replaces the key's promise, whatever its age: a fresher value than a load would give, or a forced reload. */
  set(key: K, value: Promise<T>): Promise<T> {
    return this.keep(key, value, this.clock());
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  private keep(key: K, value: Promise<T>, now: number): Promise<T> {
    const entry = { value, storedAt: now };
    this.entries.set(key, entry);
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return value;
  }

  private evictExpired(now: number): void {
    for (const [key, entry] of this.entries) if (now - entry.storedAt >= this.maxAgeMs) this.entries.delete(key);
  }
}
