import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CachedClientLookup } from '../shared/auth/client-cache';
import { loadAuthConfig } from '../shared/auth/config';
import { DynamoClientRegistry } from '../shared/auth/dynamo-client-registry';
import type { ProtectionDeps } from '../shared/auth/protect';
import { PublishedJwksStore } from '../shared/auth/published-jwks-store';
import { RateLimiter } from '../shared/auth/rate-limit';
import { TokenVerifier } from '../shared/auth/tokens';

/**
 * What every bearer-protected function is built from: the clients table, read through a short cache
 * for client records and published keys, and written only for rate counters.
 */
export function protection(doc: DynamoDBDocumentClient, env: NodeJS.ProcessEnv = process.env): ProtectionDeps {
  const config = loadAuthConfig(env);
  const clients = new CachedClientLookup(new DynamoClientRegistry(doc, config.clientsTable), { ttlSeconds: config.clientCacheSeconds });
  return {
    verifier: new TokenVerifier({
      jwks: new PublishedJwksStore(doc, config.clientsTable),
      clients,
      issuer: config.issuer,
      audience: config.audience,
    }),
    limiter: new RateLimiter(doc, config.clientsTable),
    clients,
    defaultRateLimitPerMinute: config.rateLimitPerMinute,
  };
}
