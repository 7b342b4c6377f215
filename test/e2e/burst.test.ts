import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { RATE_WINDOW_SECONDS } from '../../shared/auth/rate-limit';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { useTestRuntime } from '../support/runtime';

const bureau = useTestRuntime();
const LIMIT = 50;
const BURST = 400;
let token: string;

beforeAll(async () => {
  const registry = new DynamoClientRegistry(
    createDocumentClient(createDynamoClient(bureau().runtime.env)),
    bureau().runtime.tables.clients as string,
  );
  const { client, secret } = await registry.create({ name: 'Bursty', rateLimitPerMinute: LIMIT });
  token = await bureau().fetchToken({ clientId: client.clientId, clientSecret: secret });
});

describe(`${BURST} concurrent calls from a client allowed ${LIMIT} a minute`, () => {
  it('let at most the limit through, refuse the rest at once with 429 and Retry-After, and never fail with a 5xx', async () => {
    // The whole burst must land in one counting window.
    const intoWindow = (Date.now() / 1000) % RATE_WINDOW_SECONDS;
    if (intoWindow > RATE_WINDOW_SECONDS - 10)
      await new Promise((resolve) => setTimeout(resolve, (RATE_WINDOW_SECONDS - intoWindow) * 1000 + 50));

    const responses = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        fetch(`${bureau().baseUrl}/v1/profile/${String(10_000_000 + i)}?jurisdiction=GB`, {
          headers: { authorization: `Bearer ${token}` },
        }),
      ),
    );

    const statuses = responses.map((response) => response.status);
    const refused = responses.filter((response) => response.status === 429);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    expect(statuses.filter((status) => status !== 429).length).toBeLessThanOrEqual(LIMIT - 1);
    expect(refused.length).toBeGreaterThanOrEqual(BURST - LIMIT);
    for (const response of refused) expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
