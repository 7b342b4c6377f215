import { CachedClientLookup } from '../../../shared/auth/client-cache';
import { DEFAULT_AUDIENCE, DEFAULT_CLIENT_CACHE_SECONDS, DEFAULT_ISSUER } from '../../../shared/auth/config';
import { DynamoClientRegistry } from '../../../shared/auth/dynamo-client-registry';
import type { ProtectionDeps } from '../../../shared/auth/protect';
import { PublishedJwksStore } from '../../../shared/auth/published-jwks-store';
import { RateLimiter } from '../../../shared/auth/rate-limit';
import { type Principal, TokenIssuer, TokenVerifier } from '../../../shared/auth/tokens';
import { clientsTable } from '../../../shared/storage/tables';
import type { BenchContext, BenchTables } from './context';
import { benchSigningKeys } from './signing';

/** High enough that the limiter counts every call but never refuses one during a run. */
export const UNLIMITED = 1_000_000;

export interface BenchProtection {
  /** What protectedRoute needs, built as functions/protection.ts builds it for the functions. */
  readonly deps: ProtectionDeps;
  /** Authorization header value carrying a valid token of `principal`. */
  readonly authorization: string;
  /** The caller as the bearer check establishes it, for calling a route's use case directly. */
  readonly principal: Principal;
  readonly tables: BenchTables;
  dispose(): void;
}

/** A clients table with published signing keys, one client allowed UNLIMITED calls, and its token. */
export async function benchProtection(context: BenchContext): Promise<BenchProtection> {
  const tables = await context.createTables([clientsTable]);
  const table = tables.names.clients as string;
  const keys = await benchSigningKeys(tables.doc, table);
  const audience = { issuer: DEFAULT_ISSUER, audience: DEFAULT_AUDIENCE };
  const registry = new DynamoClientRegistry(tables.doc, table);
  const { client } = await registry.create({ name: 'Benchmark client', rateLimitPerMinute: UNLIMITED });
  const token = await new TokenIssuer(keys.source, audience).issue(client.clientId);
  const clients = new CachedClientLookup(registry, { ttlSeconds: DEFAULT_CLIENT_CACHE_SECONDS });
  return {
    deps: {
      verifier: new TokenVerifier({ ...audience, jwks: new PublishedJwksStore(tables.doc, table), clients }),
      limiter: new RateLimiter(tables.doc, table),
      clients,
      defaultRateLimitPerMinute: UNLIMITED,
    },
    authorization: `Bearer ${token.accessToken}`,
    principal: { clientId: client.clientId, tokenId: token.tokenId, expiresAt: token.expiresAt },
    tables,
    dispose: keys.dispose,
  };
}
