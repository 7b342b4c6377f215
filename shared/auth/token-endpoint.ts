import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { HttpError } from '../http/errors';
import { json, problem } from '../http/responses';
import type { HttpHandler, HttpRequest, HttpResponse } from '../http/types';
import { sharedDocumentClient } from '../storage/dynamo';
import { type ClientRegistry, DynamoClientRegistry, isWellFormedClientId } from './client-registry';
import { loadAuthConfig, loadSigningKeyLocation } from './config';
import { NO_STORE, OAuthError, oauthErrorResponse } from './oauth-error';
import { clientRateKey, ipFailureRateKey, RateLimiter, rateLimitedHeaders, rateLimitHeaders } from './rate-limit';
import { FileKeySetSource, type JwksSource, type KeySetSource, PublishedJwksStore, SecretsManagerKeySetSource } from './signing-keys';
import { JWKS_CACHE_SECONDS } from './token-policy';
import { parseTokenRequest, type TokenRequest } from './token-request';
import { TokenIssuer } from './tokens';

export const TOKEN_PATH = '/v1/oauth/token';
export const JWKS_PATH = '/v1/.well-known/jwks.json';

export interface TokenEndpointDeps {
  readonly credentials: Pick<ClientRegistry, 'verifyCredentials'>;
  readonly issuer: Pick<TokenIssuer, 'issue'>;
  readonly jwks: Pick<JwksSource, 'get'>;
  readonly limiter: Pick<RateLimiter, 'consume' | 'peek'>;
  readonly limits: {
    readonly defaultPerClientPerMinute: number;
    readonly failuresPerIpPerMinute: number;
  };
}

const REALM = 'bureau';
const FAILURES_POLICY = 'token-failures';

/** One answer for unknown id, wrong secret and disabled client, so none can be told apart. */
function invalidClient(request: TokenRequest): OAuthError {
  return new OAuthError(
    401,
    'invalid_client',
    'Client authentication failed.',
    request.authentication === 'basic' ? { 'www-authenticate': `Basic realm="${REALM}"` } : {},
  );
}

const methodNotAllowed = (allow: string): HttpResponse =>
  problem(new HttpError(405, 'method_not_allowed', `Use ${allow} on this path.`, { allow }));

/** POST /v1/oauth/token (client-credentials grant) and GET /v1/.well-known/jwks.json. */
export function createTokenEndpoint(deps: TokenEndpointDeps): HttpHandler {
  async function issueToken(request: HttpRequest): Promise<HttpResponse> {
    const tokenRequest = parseTokenRequest(request);
    const ipKey = ipFailureRateKey(request.sourceIp || 'unknown');
    // The secret is checked beside the address's failure count to save a round trip; an address over
    // its limit gets the same 429 whatever the credentials, so it learns nothing from that check.
    const [failures, client] = await Promise.all([
      deps.limiter.peek(ipKey, deps.limits.failuresPerIpPerMinute),
      deps.credentials.verifyCredentials(tokenRequest.clientId, tokenRequest.clientSecret),
    ]);
    if (!failures.allowed) {
      throw new OAuthError(
        429,
        'rate_limited',
        'Too many failed token requests from this address; retry later.',
        rateLimitedHeaders(failures, FAILURES_POLICY),
      );
    }

    // Every token request counts against the client id it names, whether or not it succeeds.
    const usage = isWellFormedClientId(tokenRequest.clientId)
      ? await deps.limiter.consume(
          clientRateKey(tokenRequest.clientId),
          client?.rateLimitPerMinute ?? deps.limits.defaultPerClientPerMinute,
        )
      : undefined;
    if (!client || !usage) {
      await deps.limiter.consume(ipKey, deps.limits.failuresPerIpPerMinute);
      throw invalidClient(tokenRequest);
    }
    if (!usage.allowed) {
      throw new OAuthError(
        429,
        'rate_limited',
        `Rate limit of ${usage.limit} requests per minute exceeded; retry in ${usage.resetSeconds} s.`,
        rateLimitedHeaders(usage),
      );
    }

    const token = await deps.issuer.issue(client.clientId, { notBefore: client.tokensNotBefore });
    return json(
      200,
      { access_token: token.accessToken, token_type: 'Bearer', expires_in: token.expiresIn },
      { ...rateLimitHeaders(usage), ...NO_STORE },
    );
  }

  return async (request) => {
    if (request.path === TOKEN_PATH) {
      if (request.method !== 'POST') return methodNotAllowed('POST');
      try {
        return await issueToken(request);
      } catch (error) {
        if (error instanceof OAuthError) return oauthErrorResponse(error);
        throw error;
      }
    }
    if (request.path === JWKS_PATH) {
      if (request.method !== 'GET') return methodNotAllowed('GET');
      return json(200, await deps.jwks.get(), { 'cache-control': `public, max-age=${JWKS_CACHE_SECONDS}` });
    }
    return problem(new HttpError(404, 'not_found', 'No such path on this service.'));
  };
}

function keySetSourceFromEnv(env: NodeJS.ProcessEnv): KeySetSource {
  const location = loadSigningKeyLocation(env);
  return location.kind === 'file'
    ? new FileKeySetSource(location.path)
    : new SecretsManagerKeySetSource(new SecretsManagerClient({}), location.secretId);
}

/** Everything the token endpoint needs, from the environment; call once at module scope. */
export function tokenEndpointDepsFromEnv(env: NodeJS.ProcessEnv = process.env): TokenEndpointDeps {
  const config = loadAuthConfig(env);
  const doc = sharedDocumentClient(env);
  return {
    credentials: new DynamoClientRegistry(doc, config.clientsTable),
    issuer: new TokenIssuer(keySetSourceFromEnv(env), { issuer: config.issuer, audience: config.audience }),
    jwks: new PublishedJwksStore(doc, config.clientsTable),
    limiter: new RateLimiter(doc, config.clientsTable),
    limits: { defaultPerClientPerMinute: config.rateLimitPerMinute, failuresPerIpPerMinute: config.tokenFailuresPerIpPerMinute },
  };
}
