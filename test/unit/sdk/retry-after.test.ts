import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter } from '../../../packages/client/src/index';
import { retryDelay } from '../../../packages/client/src/retry';

const NOW = Date.parse('2026-11-25T08:00:00.000Z');

describe('Retry-After', () => {
  it('reads delay-seconds as they are', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter('7', NOW)).toBe(7);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120);
  });

  it('reads an HTTP date as the seconds until it, rounded up, and a past date as 0', () => {
    expect(parseRetryAfter('Wed, 25 Nov 2026 08:00:30 GMT', NOW)).toBe(30);
    expect(parseRetryAfter(new Date(NOW + 1500).toUTCString(), NOW)).toBe(1);
    expect(parseRetryAfter('Wed, 25 Nov 2026 07:59:00 GMT', NOW)).toBe(0);
    // RFC 850 and asctime dates are obsolete but still HTTP dates.
    expect(parseRetryAfter('Wednesday, 25-Nov-26 08:01:00 GMT', NOW)).toBe(60);
    expect(parseRetryAfter('Wed Nov 25 08:00:10 2026', NOW)).toBeGreaterThanOrEqual(0);
  });

  it('is undefined when absent or unreadable, never NaN or negative', () => {
    for (const value of [null, undefined, '', 'soon', '-5', '1.5', '2026-11-25T08:00:30Z', 'Foo, 99 Bar 2026'])
      expect(parseRetryAfter(value, NOW), String(value)).toBeUndefined();
  });
});

describe('backoff', () => {
  it('draws each wait uniformly up to an exponential bound that stops at its cap (full jitter)', () => {
    expect(backoffDelay(0, () => 0)).toBe(0);
    expect(backoffDelay(0, () => 0.999_999)).toBeCloseTo(250, 0);
    expect(backoffDelay(3, () => 0.5)).toBe(1000);
    expect(backoffDelay(20, () => 0.999_999)).toBeCloseTo(20_000, 0);
  });

  it('waits at least what Retry-After asked, with at most a second of jitter on top', () => {
    expect(retryDelay(0, 3, () => 0)).toBe(3000);
    expect(retryDelay(5, 3, () => 0.999_999)).toBeLessThan(4000);
    expect(retryDelay(5, 0, () => 0.5)).toBe(500);
  });
});
