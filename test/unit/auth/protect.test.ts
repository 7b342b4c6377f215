import { describe, expect, it } from 'vitest';
import { type ProtectedHandler, protectedRoute } from '../../../shared/auth/protect';
import { judged, type RateLimitResult } from '../../../shared/auth/rate-limit';
import { InvalidTokenError, type Principal } from '../../../shared/auth/tokens';
import { HttpError } from '../../../shared/http/errors';
import type { HttpResponse } from '../../../shared/http/types';
import { activeClient, clientLookup } from '../../support/fakes';
import { httpRequest } from '../../support/http-fixtures';

const principal: Principal = { clientId: 'cli_a', tokenId: 'tok', expiresAt: 2_000_000_000 };
const verifier = {
  verify: async (token: string) => {
    if (token !== 'good') throw new InvalidTokenError('invalid');
    return principal;
  },
};

/** A limiter whose count the test sets, recording what it was asked. */
function limiter(used: number, options: { fails?: boolean } = {}) {
  const asked: { key: string; limit: number }[] = [];
  return {
    asked,
    consume: async (key: string, limit: number): Promise<RateLimitResult> => {
      asked.push({ key, limit });
      if (options.fails) throw new Error('counter unreachable');
      return judged({ used, windowStart: 0, resetSeconds: 17 }, limit);
    },
  };
}

const request = (token = 'good') => httpRequest({ method: 'GET', path: '/v1/watches', headers: { authorization: `Bearer ${token}` } });

function route(answer: HttpResponse | HttpError = { status: 200, body: { ok: true } }) {
  const seen: { admitted?: Promise<boolean> }[] = [];
  const handle: ProtectedHandler = async (_request, _principal, admitted) => {
    seen.push({ ...(admitted ? { admitted } : {}) });
    if (answer instanceof HttpError) throw answer;
    return answer;
  };
  return { handle, seen };
}

describe('a protected route', () => {
  it("answers within the client's own limit, with the rate-limit headers, and counts against its override", async () => {
    const counter = limiter(3);
    const { handle, seen } = route();
    const protect = protectedRoute(
      {
        verifier,
        limiter: counter,
        clients: clientLookup(activeClient('cli_a', { rateLimitPerMinute: 50 })),
        defaultRateLimitPerMinute: 600,
      },
      handle,
    );

    const response = await protect(request());

    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({ 'ratelimit-policy': '"default";q=50;w=60', ratelimit: '"default";r=47;t=17' });
    expect(counter.asked).toEqual([{ key: 'client#cli_a', limit: 50 }]);
    expect(seen).toHaveLength(1);
  });

  it('answers 429 with Retry-After past the limit, and never runs a route that waits for the count', async () => {
    const { handle, seen } = route();
    const protect = protectedRoute({ verifier, limiter: limiter(601), clients: clientLookup(), defaultRateLimitPerMinute: 600 }, handle);

    const response = await protect(request());

    expect(response.status).toBe(429);
    expect(response.headers).toMatchObject({ 'retry-after': '17' });
    expect((response.body as { error: string }).error).toBe('rate_limited');
    expect(seen).toEqual([]);
  });

  it('runs a route that may start early beside the count, tells it the call was refused, and drops its answer', async () => {
    const { handle, seen } = route();
    const protect = protectedRoute({ verifier, limiter: limiter(601), clients: clientLookup(), defaultRateLimitPerMinute: 600 }, handle, {
      startBeforeLimit: true,
    });

    const response = await protect(request());

    expect(response.status).toBe(429);
    expect(seen).toHaveLength(1);
    await expect(seen[0]?.admitted).resolves.toBe(false);
  });

  it('refuses a bad token before counting anything', async () => {
    const counter = limiter(1);
    const { handle, seen } = route();
    const protect = protectedRoute({ verifier, limiter: counter, clients: clientLookup(), defaultRateLimitPerMinute: 600 }, handle);

    const response = await protect(request('forged'));

    expect(response.status).toBe(401);
    expect(response.headers?.['www-authenticate']).toContain('error="invalid_token"');
    expect(counter.asked).toEqual([]);
    expect(seen).toEqual([]);
  });

  it("turns the route's own 4xx into a problem that still carries the rate-limit headers", async () => {
    const { handle } = route(new HttpError(404, 'webhook_not_found', 'No such webhook.'));
    const protect = protectedRoute({ verifier, limiter: limiter(1), clients: clientLookup(), defaultRateLimitPerMinute: 600 }, handle);

    const response = await protect(request());

    expect(response.status).toBe(404);
    expect(response.headers).toMatchObject({ ratelimit: '"default";r=599;t=17' });
  });

  it('treats a counter that cannot answer as a refusal, never as a free pass', async () => {
    const { handle, seen } = route();
    const protect = protectedRoute(
      { verifier, limiter: limiter(1, { fails: true }), clients: clientLookup(), defaultRateLimitPerMinute: 600 },
      handle,
      { startBeforeLimit: true },
    );

    await expect(protect(request())).rejects.toThrow('counter unreachable');
    await expect(seen[0]?.admitted).resolves.toBe(false);
  });
});
