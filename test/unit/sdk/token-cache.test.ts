import { describe, expect, it } from 'vitest';
import { type AccessToken, RENEW_BEFORE_EXPIRY_MS } from '../../../packages/client/src/index';
import { TokenCache } from '../../../packages/client/src/token';

function issuer(expiresIn = 3600) {
  let issued = 0;
  let release: (() => void) | undefined;
  let gate: Promise<void> | undefined;
  return {
    get issued() {
      return issued;
    },
    hold() {
      gate = new Promise((resolve) => {
        release = resolve;
      });
    },
    release: () => release?.(),
    request: async (): Promise<AccessToken> => {
      issued++;
      const name = `token-${issued}`;
      await gate;
      return { accessToken: name, expiresIn };
    },
  };
}

describe('the token cache', () => {
  it('asks once, then serves the token until a minute before it expires, then asks once again', async () => {
    let now = 1_000_000;
    const tokens = issuer();
    const cache = new TokenCache(tokens.request, () => now);

    expect(await cache.get()).toBe('token-1');
    now += 3600_000 - RENEW_BEFORE_EXPIRY_MS - 1;
    expect(await cache.get()).toBe('token-1');
    now += 1;
    expect(await cache.get()).toBe('token-2');
    expect(tokens.issued).toBe(2);
  });

  it('makes concurrent callers share one renewal', async () => {
    const tokens = issuer();
    tokens.hold();
    const cache = new TokenCache(tokens.request, () => 0);
    const waiting = Array.from({ length: 20 }, () => cache.get());
    tokens.release();
    expect(new Set(await Promise.all(waiting))).toEqual(new Set(['token-1']));
    expect(tokens.issued).toBe(1);
  });

  it('renews after a refusal only of the token it holds, so late refusals of an old one cost nothing', async () => {
    const tokens = issuer();
    const cache = new TokenCache(tokens.request, () => 0);
    const first = await cache.get();
    cache.refused(first);
    const second = await cache.get();
    cache.refused(first);
    expect(await cache.get()).toBe(second);
    expect(tokens.issued).toBe(2);
  });

  it('forgets a failed request, so the next call asks again', async () => {
    let fail = true;
    const cache = new TokenCache(async () => {
      if (fail) throw new Error('invalid_client');
      return { accessToken: 'ok', expiresIn: 3600 };
    }, Date.now);
    await expect(cache.get()).rejects.toThrow('invalid_client');
    fail = false;
    expect(await cache.get()).toBe('ok');
  });

  it('renews a short-lived token halfway through its life', async () => {
    let now = 0;
    const tokens = issuer(60);
    const cache = new TokenCache(tokens.request, () => now);
    await cache.get();
    now = 29_999;
    await cache.get();
    now = 30_000;
    await cache.get();
    expect(tokens.issued).toBe(2);
  });
});
