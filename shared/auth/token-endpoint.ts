import { HttpError } from '../http/errors';
import { json, problem } from '../http/responses';
import type { HttpHandler, HttpRequest, HttpResponse } from '../http/types';
import { BusinessMetric, count } from '../observability/metrics';
import { type ClientRegistry, isWellFormedClientId } from './client-registry';
import { NO_STORE, OAuthError, oauthErrorResponse } from './oauth-error';
import {
  clientFailureRateKey,
  clientRateKey,
  ipFailureRateKey,
  judged,
  type RateLimiter,
  type RateLimitResult,
  rateLimitedHeaders,
  rateLimitHeaders,
} from './rate-limit';
import type { RecentCredentials } from './recent-credentials';
import type { JwksSource } from './signing-keys';
import { JWKS_CACHE_SECONDS } from './token-policy';
import { parseTokenRequest, type TokenRequest } from './token-request';
import type { TokenIssuer } from './tokens';

export const TOKEN_PATH = '/v1/oauth/token';
export const JWKS_PATH = '/v1/.well-known/jwks.json';

export interface TokenEndpointDeps {
  readonly credentials: Pick<ClientRegistry, 'verifyCredentials'>;
  readonly issuer: Pick<TokenIssuer, 'issue'>;
  readonly jwks: Pick<JwksSource, 'get'>;
  readonly limiter: Pick<RateLimiter, 'consume' | 'refund'>;
  readonly recent: Pick<RecentCredentials, 'vouchedLimit' | 'remember' | 'forget'>;
  readonly limits: {
    readonly defaultPerClientPerMinute: number;
    readonly failuresPerIpPerMinute: number;
    readonly failuresPerClientIdPerMinute: number;
  };
}

const REALM = 'bureau';
const FAILURES_POLICY = 'token-failures';

/** One answer for unknown id, wrong secret and disabled client, so none can be told apart. */
function invalidClient(request: TokenRequest, headers: Record<string, string>): OAuthError {
  return new OAuthError(401, 'invalid_client', 'Client authentication failed.', {
    ...headers,
    ...(request.authentication === 'basic' ? { 'www-authenticate': `Basic realm="${REALM}"` } : {}),
  });
}

/** The bucket nearer its limit speaks for both: it is the one that refuses first. */
function tighter(a: RateLimitResult, b: RateLimitResult | undefined): RateLimitResult {
  if (!b) return a;
  if (a.allowed !== b.allowed) return a.allowed ? b : a;
  return b.remaining < a.remaining ? b : a;
}

/** POST /v1/oauth/token (client-credentials grant) and GET /v1/.well-known/jwks.json. */
export function createTokenEndpoint(deps: TokenEndpointDeps): HttpHandler {
  /**
   * Failed requests are counted per source address and per client id named, each bucket apart from
   * the client's quota, and the answer is decided from the counts the atomic increments return, so
   * parallel requests cannot all slip under the limit. Past either limit a failure is a 429.
   * Correct credentials are never refused by these buckets: the secrets are 256-bit random values that
   * no rate of guessing can find, and refusing them would let anyone who knows a client id, or shares
   * its address, cut that client off.
   */
  async function refuse(request: TokenRequest, sourceIp: string): Promise<never> {
    count(BusinessMetric.tokenFailures);
    const [byAddress, byId] = await Promise.all([
      deps.limiter.consume(ipFailureRateKey(sourceIp), deps.limits.failuresPerIpPerMinute),
      isWellFormedClientId(request.clientId)
        ? deps.limiter.consume(clientFailureRateKey(request.clientId), deps.limits.failuresPerClientIdPerMinute)
        : Promise.resolve(undefined),
    ]);
    const failures = tighter(byAddress, byId);
    if (!failures.allowed) {
      throw new OAuthError(
        429,
        'rate_limited',
        `Too many failed token requests ${failures === byAddress ? 'from this address' : 'for this client id'}; retry in ${failures.resetSeconds} s.`,
        rateLimitedHeaders(failures, FAILURES_POLICY),
      );
    }
    throw invalidClient(request, rateLimitHeaders(failures, FAILURES_POLICY));
  }

  async function issueToken(request: HttpRequest): Promise<HttpResponse> {
    const tokenRequest = parseTokenRequest(request);
    const { clientId, clientSecret } = tokenRequest;
    const rateKey = clientRateKey(clientId);
    // Only a secret proved on this instance before is charged while the record is read (one round trip).
    const vouchedLimit = deps.recent.vouchedLimit(clientId, clientSecret);
    const [client, charged] = await Promise.all([
      deps.credentials.verifyCredentials(clientId, clientSecret),
      vouchedLimit === undefined ? undefined : deps.limiter.consume(rateKey, vouchedLimit),
    ]);
    if (!client) {
      deps.recent.forget(clientId);
      const [refusal] = await Promise.allSettled([
        refuse(tokenRequest, request.sourceIp || 'unknown'),
        charged && deps.limiter.refund(rateKey, charged),
      ]);
      throw (refusal as PromiseRejectedResult).reason;
    }

    // Any other request is charged once its secret has been proved, never before.
    const limit = client.rateLimitPerMinute ?? deps.limits.defaultPerClientPerMinute;
    const usage = charged ? judged(charged, limit) : await deps.limiter.consume(rateKey, limit);
    deps.recent.remember(clientId, clientSecret, limit);
    if (!usage.allowed) {
      throw new OAuthError(
        429,
        'rate_limited',
        `Rate limit of ${usage.limit} requests per minute exceeded; retry in ${usage.resetSeconds} s.`,
        rateLimitedHeaders(usage),
      );
    }

    const token = await deps.issuer.issue(client.clientId, { notBefore: client.tokensNotBefore });
    count(BusinessMetric.tokensIssued);
    return json(
      200,
      { access_token: token.accessToken, token_type: 'Bearer', expires_in: token.expiresIn },
      { ...rateLimitHeaders(usage), ...NO_STORE },
    );
  }

  // The gateway routes only POST here and GET to the JWKS: any other method never reaches this code.
  return async (request) => {
    if (request.path === TOKEN_PATH) {
      try {
        return await issueToken(request);
      } catch (error) {
        if (error instanceof OAuthError) return oauthErrorResponse(error);
        throw error;
      }
    }
    if (request.path === JWKS_PATH) {
      return json(200, await deps.jwks.get(), { 'cache-control': `public, max-age=${JWKS_CACHE_SECONDS}` });
    }
    return problem(new HttpError(404, 'not_found', 'No such path on this service.'));
  };
}
