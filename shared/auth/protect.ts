import { HttpError } from '../http/errors';
import { problem } from '../http/responses';
import type { HttpHandler, HttpRequest, HttpResponse } from '../http/types';
import { logger } from '../observability/logger';
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

/**
 * A route behind the bearer check. `admitted` settles true when the call is within the client's
 * rate limit and false when it is refused; a route that starts before the limit has answered (see
 * ProtectedRouteOptions) undoes whatever it wrote when it settles false, and its answer is dropped.
 * Absent, the call was admitted before the route began.
 */
export type ProtectedHandler = (request: HttpRequest, principal: Principal, admitted?: Promise<boolean>) => Promise<HttpResponse>;

export interface ProtectedRouteOptions {
  /**
   * Run the route alongside the rate counter instead of after it, so a call makes one round trip
   * to DynamoDB: for routes that only read, or that undo their writes when `admitted` is false.
   */
  readonly startBeforeLimit?: boolean;
}

const withHeaders = (response: HttpResponse, headers: Record<string, string>): HttpResponse => ({
  ...response,
  headers: { ...response.headers, ...headers },
});

/**
 * Bearer check, then the caller's per-client rate limit and the route: one after the other, or
 * together when the route may start before the limit answers. Either way a refused call gets its 429
 * and the route's answer is not sent; every answer after the bearer check carries the rate-limit
 * headers, errors included.
 */
export function protectedRoute(deps: ProtectionDeps, handle: ProtectedHandler, options: ProtectedRouteOptions = {}): HttpHandler {
  return async (request) => {
    let principal: Principal;
    try {
      principal = await authenticateBearer(request, deps.verifier);
    } catch (error) {
      if (error instanceof HttpError) return problem(error);
      throw error;
    }
    // In every log line of the rest of this invocation (the logger middleware drops it afterwards).
    logger.appendKeys({ clientId: principal.clientId });
    const client = await deps.clients.get(principal.clientId);
    const counted = deps.limiter.consume(clientRateKey(principal.clientId), client?.rateLimitPerMinute ?? deps.defaultRateLimitPerMinute);
    const admitted = counted.then(
      (usage) => usage.allowed,
      () => false,
    );
    const run = () =>
      handle(request, principal, admitted).then(
        (response) => ({ response }),
        (error: unknown) => ({ error }),
      );
    // The route's own failure is reported only for an admitted call; a refused one answers 429, once
    // the route has undone what it wrote.
    let outcome: Awaited<ReturnType<typeof run>> | undefined;
    let usage: Awaited<typeof counted>;
    if (options.startBeforeLimit) {
      outcome = await run();
      usage = await counted;
    } else {
      usage = await counted;
      if (usage.allowed) outcome = await run();
    }
    if (!usage.allowed || !outcome) {
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
    if ('response' in outcome) return withHeaders(outcome.response, headers);
    if (outcome.error instanceof HttpError) return withHeaders(problem(outcome.error), headers);
    throw outcome.error;
  };
}
