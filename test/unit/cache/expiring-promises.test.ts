import { describe, expect, it } from 'vitest';
import { ExpiringPromises } from '../../../shared/cache/expiring-promises';
import { manualClock } from '../../support/fakes';

describe('expiring promises', () => {
  it('share one load among callers until it is too old, per key', async () => {
    const clock = manualClock();
    const cache = new ExpiringPromises<string, number>(10_000, clock);
    let loads = 0;
    const load = async () => ++loads;

    const first = await Promise.all([cache.get('a', load), cache.get('a', load), cache.get('b', load)]);
    clock.advance(9);
    const cached = await cache.get('a', load);
    clock.advance(1);
    const reloaded = await cache.get('a', load);

    expect(first).toEqual([1, 1, 2]);
    expect(cached).toBe(1);
    expect(reloaded).toBe(3);
  });

  it('forget a load that failed, so the next caller tries again', async () => {
    const cache = new ExpiringPromises<string, string>(60_000);

    await expect(cache.get('a', () => Promise.reject(new Error('throttled')))).rejects.toThrow('throttled');

    await expect(cache.get('a', async () => 'loaded')).resolves.toBe('loaded');
  });

  it('take a fresher value, and say how recently a key was stored', async () => {
    const clock = manualClock();
    const cache = new ExpiringPromises<string, string>(60_000, clock);
    await cache.get('a', async () => 'old');
    clock.advance(30);

    cache.set('a', Promise.resolve('new'));

    await expect(cache.get('a', async () => 'load')).resolves.toBe('new');
    expect(cache.storedWithin('a', 1000)).toBe(true);
    clock.advance(2);
    expect(cache.storedWithin('a', 1000)).toBe(false);
  });
});
