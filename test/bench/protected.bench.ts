import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CachedClientLookup } from '../../shared/auth/client-cache';
import { DynamoClientRegistry } from '../../shared/auth/client-registry';
import { DEFAULT_AUDIENCE, DEFAULT_CLIENT_CACHE_SECONDS, DEFAULT_ISSUER } from '../../shared/auth/config';
import { protectedRoute } from '../../shared/auth/protect';
import { RATE_KEY_PREFIX, RATE_WINDOW_SECONDS, RateLimiter } from '../../shared/auth/rate-limit';
import { PublishedJwksStore } from '../../shared/auth/signing-keys';
import { TokenIssuer, TokenVerifier } from '../../shared/auth/tokens';
import { json } from '../../shared/http/responses';
import type { HttpRequest } from '../../shared/http/types';
import { clientsTable } from '../../shared/storage/tables';
import type { BenchContext } from './support/context';
import { benchSigningKeys } from './support/signing';
import { latencyTable } from './support/table';
import { timeInterleaved } from './support/timing';

export const name = 'Protection of a route (bearer check + rate limit)';

const UNLIMITED = 1_000_000;
const audience = { issuer: DEFAULT_ISSUER, audience: DEFAULT_AUDIENCE };

export async function run(context: BenchContext): Promise<void> {
  const loop = context.scale === 'full' ? { warmup: 200, iterations: 3000 } : { warmup: 100, iterations: 1000 };
  const { doc, names } = await context.createTables([clientsTable]);
  const table = names.clients as string;
  const keys = await benchSigningKeys(doc, table);
  try {
    const registry = new DynamoClientRegistry(doc, table);
    const { client } = await registry.create({ name: 'Benchmark client', rateLimitPerMinute: UNLIMITED });
    const token = (await new TokenIssuer(keys.source, audience).issue(client.clientId)).accessToken;
    const clients = new CachedClientLookup(registry, { ttlSeconds: DEFAULT_CLIENT_CACHE_SECONDS });
    const route = protectedRoute(
      {
        verifier: new TokenVerifier({ ...audience, jwks: new PublishedJwksStore(doc, table), clients }),
        limiter: new RateLimiter(doc, table),
        clients,
        defaultRateLimitPerMinute: UNLIMITED,
      },
      async (_, principal) => json(200, { clientId: principal.clientId }),
    );
    const request: HttpRequest = {
      method: 'GET',
      path: '/v1/whoami',
      pathParameters: {},
      headers: { authorization: `Bearer ${token}` },
      query: new URLSearchParams(),
      body: '',
      sourceIp: '203.0.113.10',
      requestId: 'bench',
    };

    // The same atomic counter update the limiter makes, on its own key so neither disturbs the other.
    const bareCounter = () => {
      const windowStart = Math.floor(Date.now() / 1000 / RATE_WINDOW_SECONDS) * RATE_WINDOW_SECONDS;
      return doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: `${RATE_KEY_PREFIX}bench#baseline`, sk: String(windowStart) },
          UpdateExpression: 'ADD #count :one SET expiresAt = if_not_exists(expiresAt, :expiresAt)',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':one': 1, ':expiresAt': windowStart + 2 * RATE_WINDOW_SECONDS },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
    };
    const protectedCall = async () => {
      const response = await route(request);
      if (response.status !== 200) throw new Error(`protected route answered ${response.status}`);
    };
    const [counter, protection] = await timeInterleaved([bareCounter, protectedCall], loop);
    context.report(
      latencyTable('Protected route (trivial handler) vs the bare rate-counter UpdateItem it makes', [
        { label: 'baseline: UpdateItem ADD counter', stats: counter },
        { label: 'protectedRoute(bearer + rate limit)', stats: protection },
      ]),
    );
  } finally {
    keys.dispose();
  }
}
