import { numberListSetting } from '../config/number-settings';

/**
 * When a failed delivery is tried again: the delay after attempt n is RETRY_DELAYS_SECONDS[n-1].
 * Twelve attempts span about 2 days 20 hours (immediately, 5 s, 5 min, 30 min, 2 h, 5 h, then every
 * 10 h). The attempt number is the delivery log's count, so an invocation that was throttled or
 * timed out before logging spends none.
 */
export const RETRY_DELAYS_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18_000, 36_000, 36_000, 36_000, 36_000, 36_000, 36_000];

/** Attempts a delivery gets before it is dead (kept in the log for recovery): the first and one per delay. */
export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** SQS's ceiling on a message's visibility, counted from its receipt. */
export const MAX_VISIBILITY_SECONDS = 12 * 3600;

/**
 * The longest wait between two attempts, Retry-After included. A wait longer than the visibility SQS
 * can grant is served in more than one stretch (shared/webhooks/delivery-queue.ts).
 */
export const MAX_RETRY_DELAY_SECONDS = 12 * 3600;

/** ±10 %, so receivers that failed together are not retried together. */
const JITTER = 0.1;

export interface RetryPolicy {
  readonly delaysSeconds: readonly number[];
  /** Uniform in [0, 1). */
  readonly random?: () => number;
}

/**
 * The delay before the attempt after `attempt` (1-based), or undefined when none is left. A
 * receiver's Retry-After is honoured when it asks for longer than the schedule, up to the SQS cap;
 * it can never make a retry sooner.
 */
export function nextRetryDelaySeconds(attempt: number, policy: RetryPolicy, retryAfterSeconds?: number): number | undefined {
  const scheduled = policy.delaysSeconds[attempt - 1];
  if (scheduled === undefined) return undefined;
  const random = policy.random ?? Math.random;
  const jittered = Math.round(scheduled * (1 - JITTER + 2 * JITTER * random()));
  const asked = retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) ? retryAfterSeconds : 0;
  return Math.min(MAX_RETRY_DELAY_SECONDS, Math.max(jittered, Math.ceil(asked)));
}

/**
 * DELIVERY_RETRY_DELAYS overrides the schedule (comma-separated seconds) with the same number of
 * entries, since the queue's maxReceiveCount is built from the default; used to compress time.
 */
export function retryDelaysFrom(env: NodeJS.ProcessEnv): readonly number[] {
  return numberListSetting(env, 'DELIVERY_RETRY_DELAYS', RETRY_DELAYS_SECONDS, {
    min: 0,
    max: MAX_RETRY_DELAY_SECONDS,
    whole: true,
    length: RETRY_DELAYS_SECONDS.length,
  });
}

/** Parses Retry-After: delay-seconds or an HTTP date. */
export function retryAfterSeconds(header: string | undefined, now: Date): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
