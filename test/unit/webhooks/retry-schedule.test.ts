import { describe, expect, it } from 'vitest';
import { loopbackReceiversAllowed } from '../../../shared/webhooks/loopback';
import {
  MAX_DELIVERY_ATTEMPTS,
  MAX_RETRY_DELAY_SECONDS,
  nextRetryDelaySeconds,
  RETRY_DELAYS_SECONDS,
  retryAfterSeconds,
  retryDelaysFrom,
} from '../../../shared/webhooks/retry-schedule';

const exact = { delaysSeconds: RETRY_DELAYS_SECONDS, random: () => 0.5 };

describe('the retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, then 10 h, for twelve attempts over about three days', () => {
    const delays = Array.from({ length: MAX_DELIVERY_ATTEMPTS }, (_, index) => nextRetryDelaySeconds(index + 1, exact));
    expect(delays).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 36_000, 36_000, 36_000, 36_000, 36_000, undefined]);
    const total = RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0) / 3600;
    expect(total).toBeGreaterThan(60);
    expect(total).toBeLessThan(80);
  });

  it('spreads each delay by up to ±10 %', () => {
    expect(nextRetryDelaySeconds(4, { ...exact, random: () => 0 })).toBe(6480);
    expect(nextRetryDelaySeconds(4, { ...exact, random: () => 0.999999 })).toBe(7920);
  });

  it('lets Retry-After lengthen a delay up to the SQS limit, never shorten it', () => {
    expect(nextRetryDelaySeconds(1, exact, 120)).toBe(120);
    expect(nextRetryDelaySeconds(3, exact, 1)).toBe(1800);
    expect(nextRetryDelaySeconds(1, exact, 10 ** 9)).toBe(MAX_RETRY_DELAY_SECONDS);
    expect(retryAfterSeconds('30', new Date())).toBe(30);
    expect(retryAfterSeconds('Wed, 21 Oct 2015 07:28:30 GMT', new Date('2015-10-21T07:28:00Z'))).toBe(30);
    expect(retryAfterSeconds('soon', new Date())).toBeUndefined();
  });

  it('can be compressed by configuration, with the same number of steps', () => {
    expect(retryDelaysFrom({ DELIVERY_RETRY_DELAYS: Array(11).fill('1').join(',') })).toEqual(Array(11).fill(1));
    expect(() => retryDelaysFrom({ DELIVERY_RETRY_DELAYS: '1,2,3' })).toThrow(/11 whole numbers/);
    expect(() => retryDelaysFrom({ DELIVERY_RETRY_DELAYS: Array(11).fill('50000').join(',') })).toThrow();
  });
});

describe('loopback receivers', () => {
  it('are allowed only when the local runtime asks and never where Lambda runs', () => {
    expect(loopbackReceiversAllowed({ BUREAU_LOOPBACK_RECEIVERS: 'allow' })).toBe(true);
    expect(loopbackReceiversAllowed({})).toBe(false);
    expect(loopbackReceiversAllowed({ BUREAU_LOOPBACK_RECEIVERS: 'allow', AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x' })).toBe(false);
  });
});
