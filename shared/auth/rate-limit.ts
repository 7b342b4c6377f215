import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import ipaddr from 'ipaddr.js';
import { logger } from '../observability/logger';
import { type Clock, systemClock } from './clock';

export interface RateLimitResult {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Calls counted in the window, this one included. */
  readonly used: number;
  /** Start of the window the call was counted in (epoch seconds). */
  readonly windowStart: number;
  /** Seconds until the current window ends and the allowance is whole again. */
  readonly resetSeconds: number;
  /** The shared counter could not be reached: the call was judged by this instance's own count alone. */
  readonly failedOpen?: boolean;
}

/** Partition-key prefix of every counter; the IAM policy lets request-path functions write only these. */
export const RATE_KEY_PREFIX = 'RATE#';
export const RATE_WINDOW_SECONDS = 60;
/** Counters outlive their window a little; TTL only tidies up, correctness never depends on it. */
const COUNTER_RETENTION_SECONDS = 2 * RATE_WINDOW_SECONDS;
/** A limiter that cannot answer quickly is treated as unreachable rather than slowing every call. */
const DEFAULT_TIMEOUT_MS = 1000;

export const clientRateKey = (clientId: string) => `client#${clientId}`;
/** The longest text form of an address (IPv6 with an IPv4 tail): what is not an address is cut to it. */
const MAX_ADDRESS_LENGTH = 45;

/**
 * What a per-address limit counts by. An IPv6 network hands one subscriber a whole /64 (and its
 * hosts pick addresses in it freely), so counting each /128 would give one caller 2^64 allowances:
 * an IPv6 address counts by its /64. An IPv4 address, or one mapped into IPv6 (::ffff:a.b.c.d),
 * counts by itself, written the one way.
 */
export function addressBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address.slice(0, MAX_ADDRESS_LENGTH);
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([...parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}

export const ipFailureRateKey = (ip: string) => `ip#${addressBucket(ip)}`;
/** Failed token requests naming a client id: a bucket of their own, never the client's quota. */
export const clientFailureRateKey = (clientId: string) => `failed-client#${clientId}`;

/**
 * Fixed 60-second windows counted with one atomic UpdateItem ADD per call, the window start in the
 * sort key. A fixed window can let through up to twice the limit across a window boundary; that is
 * the price of a single write per request and is acceptable for abuse protection.
 *
 * If DynamoDB cannot be reached in time the limiter fails open and logs a warning: the same table
 * outage would already stop token issuance and client look-ups, and a limiter that refuses everything
 * would turn a counter problem into a full API outage for every well-behaved client. It fails open
 * only as far as its own per-instance count allows, though: a caller flooding one instance so hard
 * that the counter times out still meets the limit there.
 */
export class RateLimiter {
  private readonly clock: Clock;
  private readonly timeoutMs: number;
  private readonly local = new InstanceCounts();

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: { clock?: Clock; timeoutMs?: number } = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Counts one call against the key and says whether it fits in the limit. */
  async consume(key: string, limit: number): Promise<RateLimitResult> {
    const window = this.window();
    const localCount = this.local.add(key, window.start);
    try {
      const result = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: RATE_KEY_PREFIX + key, sk: String(window.start) },
          UpdateExpression: 'ADD #count :one SET expiresAt = if_not_exists(expiresAt, :expiresAt)',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':one': 1, ':expiresAt': window.start + COUNTER_RETENTION_SECONDS },
          ReturnValues: 'UPDATED_NEW',
        }),
        { abortSignal: AbortSignal.timeout(this.timeoutMs) },
      );
      const count = Number(result.Attributes?.count ?? 1);
      return judged({ used: count, windowStart: window.start, resetSeconds: window.resetSeconds }, limit);
    } catch (error) {
      return this.failOpen(error, localCount, limit, window);
    }
  }

  /**
   * Takes back a call counted by `consume` that should not have been charged, in the window it was
   * counted in. Best effort: if the counter cannot be reached the call stays counted, which only
   * errs towards refusing.
   */
  async refund(key: string, counted: RateLimitResult): Promise<void> {
    this.local.remove(key, counted.windowStart);
    if (counted.failedOpen) return;
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: RATE_KEY_PREFIX + key, sk: String(counted.windowStart) },
          UpdateExpression: 'ADD #count :minusOne',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':minusOne': -1 },
        }),
        { abortSignal: AbortSignal.timeout(this.timeoutMs) },
      );
    } catch (error) {
      logger.warn('rate limiter could not take back a call; it stays counted', { errorName: (error as Error)?.name });
    }
  }

  private window(): { start: number; resetSeconds: number } {
    const nowMs = this.clock();
    const start = Math.floor(nowMs / 1000 / RATE_WINDOW_SECONDS) * RATE_WINDOW_SECONDS;
    const resetSeconds = Math.max(1, Math.ceil(start + RATE_WINDOW_SECONDS - nowMs / 1000));
    return { start, resetSeconds };
  }

  private failOpen(error: unknown, localCount: number, limit: number, window: { start: number; resetSeconds: number }): RateLimitResult {
    logger.warn('rate limiter unavailable; judging the call by this instance alone', {
      errorName: (error as Error)?.name,
      errorMessage: (error as Error)?.message,
    });
    return { ...judged({ used: localCount, windowStart: window.start, resetSeconds: window.resetSeconds }, limit), failedOpen: true };
  }
}

/** A count judged against a limit; judging a result again applies another limit to the same count. */
export function judged(
  count: Pick<RateLimitResult, 'used' | 'windowStart' | 'resetSeconds' | 'failedOpen'>,
  limit: number,
): RateLimitResult {
  return { ...count, allowed: count.used <= limit, limit, remaining: Math.max(0, limit - count.used) };
}

/** Calls counted by this instance in the current window, per key; earlier windows are forgotten. */
class InstanceCounts {
  private windowStart = 0;
  private counts = new Map<string, number>();

  add(key: string, windowStart: number): number {
    if (windowStart !== this.windowStart) {
      this.windowStart = windowStart;
      this.counts = new Map();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count;
  }

  remove(key: string, windowStart: number): void {
    const count = this.counts.get(key);
    if (windowStart === this.windowStart && count !== undefined) this.counts.set(key, Math.max(0, count - 1));
  }
}

/**
 * draft-ietf-httpapi-ratelimit-headers: the policy always, the live counter unless the limiter
 * failed open and has no real number to give.
 */
export function rateLimitHeaders(result: RateLimitResult, policy = 'default'): Record<string, string> {
  const headers: Record<string, string> = { 'ratelimit-policy': `"${policy}";q=${result.limit};w=${RATE_WINDOW_SECONDS}` };
  if (!result.failedOpen) headers.ratelimit = `"${policy}";r=${result.remaining};t=${result.resetSeconds}`;
  return headers;
}

/** Headers of a refused call: when to come back, plus the policy and counter. */
export function rateLimitedHeaders(result: RateLimitResult, policy = 'default'): Record<string, string> {
  return { ...rateLimitHeaders(result, policy), 'retry-after': String(result.resetSeconds) };
}
