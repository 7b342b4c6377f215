import { HttpError } from '../http/errors';
import { problem } from '../http/responses';
import type { HttpHandler, HttpRequest, HttpResponse } from '../http/types';
import { authenticateBearer, type TokenCheck } from './bearer';
import type { ClientLookup } from './client-registry';
import { clientRateKey, type RateLimiter, rateLimitedHeaders, rateLimitHeaders } from './rate-limit';
import type { Principal } from './tokens';

export interface ProtectionDeps {
  readonly verifier: TokenCheck;
  readonly limiter: Pick<RateLimiter, 'consume'>;
  /** Cached look-up of the client record, for its rate-limit override. */
  readonly clients: ClientLookup;
  readonly defaultRateLimitPerMinute: number;
}

export type ProtectedHandler = (request: HttpRequest, principal: Principal) => Promise<HttpResponse>;

const withHeaders = (response: HttpResponse, headers: Record<string, string>): HttpResponse => ({
  ...response,
  headers: { ...response.headers, ...headers },
});

/**
 * Bearer check, then the caller's per-client rate limit, then the route. Every answer after the
 * bearer check carries the rate-limit headers, errors included.
 */
export function protectedRoute(deps: ProtectionDeps, handle: ProtectedHandler): HttpHandler {
  return async (request) => {
    let principal: Principal;
    try {
      principal = await authenticateBearer(request, deps.verifier);
    } catch (error) {
      if (error instanceof HttpError) return problem(error);
      throw error;
    }
    const client = await deps.clients.get(principal.clientId);
    const usage = await deps.limiter.consume(
      clientRateKey(principal.clientId),
      client?.rateLimitPerMinute ?? deps.defaultRateLimitPerMinute,
    );
    if (!usage.allowed) {
      return problem(
        new HttpError(
          429,
          'rate_limited',
          `Rate limit of ${usage.limit} requests per minute exceeded; retry in ${usage.resetSeconds} s.`,
          rateLimitedHeaders(usage),
        ),
      );
    }
    const headers = rateLimitHeaders(usage);
    try {
      return withHeaders(await handle(request, principal), headers);
    } catch (error) {
      if (error instanceof HttpError) return withHeaders(problem(error), headers);
      throw error;
    }
  };
}
