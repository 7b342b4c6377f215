import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { clientRateKey, RATE_WINDOW_SECONDS } from '../../shared/auth/rate-limit';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { countingWindows, judgedBy } from '../support/rate-counters';
import { useTestRuntime } from '../support/runtime';

const bureau = useTestRuntime();
const LIMIT = 50;
const BURST = 400;
let doc: DynamoDBDocumentClient;
let registry: DynamoClientRegistry;

beforeAll(() => {
  doc = createDocumentClient(createDynamoClient(bureau().runtime.env));
  registry = new DynamoClientRegistry(doc, bureau().runtime.tables.clients as string);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One caller: calls again while the gateway finds every instance busy, so that each call meets the limiter. */
async function callUntilItReachesTheFunction(url: string, token: string): Promise<Response> {
  for (;;) {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (judgedBy(response) !== 'gateway') return response;
    await response.arrayBuffer();
    await sleep(20);
  }
}

describe(`${BURST} callers at once, for a client allowed ${LIMIT} calls a minute`, () => {
  it('get at most the limit through in each window, the rest refused with 429 and Retry-After, and never a 5xx', async () => {
    // Usually the whole burst, token request included, lands in one window.
    const intoWindow = (Date.now() / 1000) % RATE_WINDOW_SECONDS;
    if (intoWindow > RATE_WINDOW_SECONDS - 10) await sleep((RATE_WINDOW_SECONDS - intoWindow) * 1000 + 50);
    const { client, secret } = await registry.create({ name: 'Bursty', rateLimitPerMinute: LIMIT });
    const token = await bureau().fetchToken({ clientId: client.clientId, clientSecret: secret });

    const responses = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        callUntilItReachesTheFunction(`${bureau().baseUrl}/v1/profile/${String(10_000_000 + i)}?jurisdiction=GB`, token),
      ),
    );

    const windows = await countingWindows(doc, bureau().runtime.tables.clients as string, clientRateKey(client.clientId));
    const passed = responses.filter((response) => response.status !== 429);
    const refused = responses.filter((response) => response.status === 429);
    expect(responses.filter((response) => response.status >= 500).map((response) => response.status)).toEqual([]);
    for (const response of refused) expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The shared counter lets the limit through per window, the token request among them: exactly
    // that many, as every call was counted. A limiter that cannot reach the counter in time fails
    // open (documented) and judges by its own instance's count, which its answers show by carrying the
    // policy without a live count; a call counted that way makes the counter's share a bound.
    const countedByCounter = windows.reduce((sum, window) => sum + Math.min(window.count, LIMIT), 0);
    const passedByCounter = passed.filter((response) => judgedBy(response) === 'counter');
    if (responses.some((response) => judgedBy(response) === 'instance'))
      expect(passedByCounter.length + 1).toBeLessThanOrEqual(countedByCounter);
    else expect(passedByCounter.length + 1).toBe(countedByCounter);
    expect(refused.length).toBeGreaterThan(0);
  }, 60_000);
});
