/**
 * `Retry-After` as seconds to wait: delay-seconds or an HTTP date (RFC 9110 §10.2.3), measured
 * against `nowMs`. A date in the past is 0; anything unreadable is undefined.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // Only the HTTP-date form: Date.parse also reads bare numbers and other shapes a server never means.
  if (!/^[A-Za-z]{3},? /.test(trimmed) && !/^[A-Za-z]+day, /.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

export interface BackoffPolicy {
  readonly baseMs: number;
  readonly capMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 250, capMs: 20_000 };

/**
 * Full jitter (a uniform wait up to the exponential bound): retries of many clients that failed
 * together spread out instead of arriving together again.
 */
export function backoffDelay(retry: number, random: () => number = Math.random, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  return random() * Math.min(policy.capMs, policy.baseMs * 2 ** retry);
}

/**
 * The wait before a retry: at least what `Retry-After` asked, with up to a second of jitter on top
 * since a fixed-window limit resets for every waiting caller at the same instant.
 */
export function retryDelay(retry: number, retryAfterSeconds: number | undefined, random: () => number = Math.random): number {
  if (retryAfterSeconds === undefined) return backoffDelay(retry, random);
  return retryAfterSeconds * 1000 + random() * Math.min(1000, DEFAULT_BACKOFF.baseMs * 2 ** retry);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
