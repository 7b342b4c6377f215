import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDemoChange } from '../../demo/company-changes';
import {
  BureauApiError,
  type BureauClient,
  type ClientOptions,
  createClient,
  type FetchFunction,
  verifyWebhook,
  type WebhookVerificationError,
} from '../../packages/client/src/index';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { profileContent } from '../support/profile-fixture';
import { type ClientCredentials, useTestRuntime } from '../support/runtime';
import { startWebhookReceiver, verifiedEvent, type WebhookReceiver } from '../support/webhook-receiver';

// A small default allowance, so a client without a limit of its own meets a 429 within a few calls.
const RATE_LIMIT = 6;
const bureau = useTestRuntime({ RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) });

let store: DynamoCompanyStore;
let registry: DynamoClientRegistry;
let receiver: WebhookReceiver;
/** A client with a limit of its own far above the default, for every test but the rate limit's. */
let roomy: ClientCredentials;

beforeAll(async () => {
  const doc = createDocumentClient(createDynamoClient(bureau().runtime.env));
  store = new DynamoCompanyStore(doc, bureau().runtime.tables.companies as string);
  registry = new DynamoClientRegistry(doc, bureau().runtime.tables.clients as string);
  roomy = await newClient('SDK tests', 100_000);
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await receiver?.stop();
});

async function newClient(name: string, rateLimitPerMinute?: number): Promise<ClientCredentials> {
  const { client, secret } = await registry.create({
    name: `${name} ${Date.now()}`,
    ...(rateLimitPerMinute ? { rateLimitPerMinute } : {}),
  });
  return { clientId: client.clientId, clientSecret: secret };
}

interface Exchange {
  readonly method: string;
  readonly path: string;
  readonly status: number;
}

/** The real fetch, with a record of each exchange: what the SDK sent and what the runtime answered. */
function recordingFetch(rewrite?: (headers: Headers) => void): { fetch: FetchFunction; exchanges: Exchange[] } {
  const exchanges: Exchange[] = [];
  return {
    exchanges,
    fetch: async (input, init) => {
      const headers = new Headers(init.headers);
      rewrite?.(headers);
      const response = await fetch(input, { ...init, headers });
      const url = new URL(input);
      exchanges.push({ method: init.method ?? 'GET', path: url.pathname, status: response.status });
      return response;
    },
  };
}

const tokenRequests = (exchanges: readonly Exchange[]) => exchanges.filter((exchange) => exchange.path === '/v1/oauth/token');

function client(options: Partial<ClientOptions> = {}, credentials = roomy): BureauClient {
  return createClient({ baseUrl: bureau().baseUrl, ...credentials, ...options });
}

let companies = 18_200_000;
async function company(name: string): Promise<string> {
  const companyNumber = String(++companies);
  await store.save(profileContent({ companyNumber, name: `${name} ${companyNumber} Ltd` }));
  return companyNumber;
}

async function eventually<Value>(read: () => Promise<Value>, done: (value: Value) => boolean, timeoutMs = 15_000): Promise<Value> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const reasonOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: WebhookVerificationError) => error.reason,
  );

describe('the access token', () => {
  it('serves many calls, and is renewed once, for every concurrent caller, a minute before it expires', async () => {
    let now = Date.now();
    const recorder = recordingFetch();
    const sdk = client({ fetch: recorder.fetch, now: () => now });

    await Promise.all([sdk.watches.list(), sdk.watches.list(), sdk.webhooks.list()]);
    now += 3600_000 - 61_000;
    await sdk.watches.list();
    expect(tokenRequests(recorder.exchanges)).toHaveLength(1);

    now += 2_000;
    const before = await sdk.accessToken().catch(() => undefined);
    const results = await Promise.all(Array.from({ length: 8 }, () => sdk.watches.list({ limit: 1 })));

    expect(results.every((page) => Array.isArray(page.items))).toBe(true);
    expect(tokenRequests(recorder.exchanges)).toHaveLength(2);
    expect(before).toBeDefined();
    expect(recorder.exchanges.every((exchange) => exchange.status === 200)).toBe(true);
  });

  it('is renewed once after the API refuses it, and the refused call is sent again with the new one', async () => {
    let refused: string | undefined;
    // The first token is broken in transit, so the runtime itself answers 401 invalid_token for it.
    const recorder = recordingFetch((headers) => {
      const authorization = headers.get('authorization');
      if (!authorization) return;
      refused ??= authorization;
      if (authorization === refused) headers.set('authorization', `${authorization.slice(0, -4)}AAAA`);
    });
    const sdk = client({ fetch: recorder.fetch });

    const pages = await Promise.all([sdk.watches.list(), sdk.webhooks.list(), sdk.events.list()]);

    expect(pages).toHaveLength(3);
    expect(tokenRequests(recorder.exchanges)).toHaveLength(2);
    const protectedStatuses = recorder.exchanges
      .filter((exchange) => exchange.path !== '/v1/oauth/token')
      .map((exchange) => exchange.status);
    expect(protectedStatuses.filter((status) => status === 401)).toHaveLength(3);
    expect(protectedStatuses.filter((status) => status === 200)).toHaveLength(3);
  });

  it('surfaces wrong credentials as the OAuth error, without retrying', async () => {
    const recorder = recordingFetch();
    const sdk = client({ fetch: recorder.fetch }, { clientId: roomy.clientId, clientSecret: 'bsk_wrong' });
    const error = await sdk.watches.list().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BureauApiError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_client' });
    expect(recorder.exchanges).toHaveLength(1);
  });
});

describe('errors', () => {
  it('carry the problem document: status, code, detail, parameter, and the request id', async () => {
    const sdk = client();
    const badLimit = await sdk.watches.list({ limit: 1000 }).catch((caught: unknown) => caught);
    const missing = await sdk.webhooks.get('wh_doesnotexist').catch((caught: unknown) => caught);

    expect(badLimit).toBeInstanceOf(BureauApiError);
    expect(badLimit).toMatchObject({ status: 400, code: 'invalid_limit', parameter: 'limit' });
    expect((badLimit as BureauApiError).detail).toEqual(expect.any(String));
    expect((badLimit as BureauApiError).requestId).toEqual(expect.any(String));
    expect(missing).toMatchObject({ status: 404, code: 'webhook_not_found' });
  });
});

describe('a rate limit', () => {
  it('is waited out for as long as Retry-After says, then the call succeeds; with maxRetries 0 the 429 is thrown', async () => {
    const limited = await newClient('SDK rate limit');
    const recorder = recordingFetch();
    const patient = client({ fetch: recorder.fetch }, limited);
    const impatient = client({ maxRetries: 0 }, limited);
    await patient.accessToken();

    /** Calls until the allowance is spent; within two seconds of the window's end, waits for the next window and spends that one. */
    const exhaust = async (): Promise<BureauApiError> => {
      for (;;) {
        let refused: unknown;
        // Up to three windows' worth: a burst that straddles a window's end still meets the limit.
        for (let call = 0; call < RATE_LIMIT * 3 && !refused; call++)
          await impatient.watches.list().catch((caught: unknown) => {
            refused = caught;
          });
        if (!(refused instanceof BureauApiError) || (refused.retryAfter ?? 0) > 2) return refused as BureauApiError;
        await new Promise((resolve) => setTimeout(resolve, ((refused as BureauApiError).retryAfter ?? 0) * 1000 + 500));
      }
    };
    const error = await exhaust();
    expect(error).toBeInstanceOf(BureauApiError);
    const { status, code, retryAfter } = error;
    expect({ status, code }).toEqual({ status: 429, code: 'rate_limited' });
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    const started = Date.now();
    const page = await patient.watches.list();
    const waited = Date.now() - started;

    expect(Array.isArray(page.items)).toBe(true);
    expect(recorder.exchanges.map((exchange) => exchange.status)).toEqual([200, 429, 200]);
    // Retry-After is whole seconds to the window's end, so the wait is at least that less the second it rounds up.
    expect(waited).toBeGreaterThanOrEqual(((retryAfter as number) - 1) * 1000);
  }, 120_000);
});

describe('webhooks', () => {
  it('are verified with the old secret and with the new one after a rotation, by the SDK and by the Standard Webhooks library', async () => {
    const sdk = client();
    const created = await sdk.webhooks.create({ name: 'SDK rotation', url: `${receiver.url}/sdk-rotation` });
    const rotated = await sdk.webhooks.rotateSecret(created.id);
    const sent = await sdk.webhooks.test(created.id);

    const [delivery] = await receiver.waitFor((received) => received.path === '/sdk-rotation');
    const { body, headers } = delivery as { body: string; headers: Record<string, string> };

    expect(rotated.signingSecret).not.toBe(created.signingSecret);
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(await verifyWebhook(body, headers, created.signingSecret)).toEqual(sent.event);
    expect(await verifyWebhook(body, headers, rotated.signingSecret)).toEqual(sent.event);
    expect(await verifyWebhook(Buffer.from(body), new Headers(headers), [rotated.signingSecret, created.signingSecret])).toEqual(
      sent.event,
    );
    expect(await reasonOf(verifyWebhook(body, headers, `whsec_${Buffer.alloc(32, 7).toString('base64')}`))).toBe('no_matching_signature');
    expect(await reasonOf(verifyWebhook(`${body} `, headers, rotated.signingSecret))).toBe('no_matching_signature');
    expect(new Webhook(created.signingSecret).verify(body, headers)).toEqual(sent.event);
    expect(new Webhook(rotated.signingSecret).verify(body, headers)).toEqual(sent.event);
    expect(headers['webhook-id']).toBe(sent.deliveryId);
    expect(await verifiedEvent(delivery as NonNullable<typeof delivery>, created.signingSecret)).toEqual(sent.event);

    await sdk.webhooks.delete(created.id);
  });

  it('are managed through every call: read, changed, listed, logged, retried, recovered and deleted', async () => {
    const sdk = client();
    const created = await sdk.webhooks.create({ name: 'SDK calls', url: `${receiver.url}/sdk-calls` });
    const read = await sdk.webhooks.get(created.id);
    const changed = await sdk.webhooks.update(created.id, { name: 'SDK calls, renamed', filters: { blocks: ['riskOfFailure'] } });
    const sent = await sdk.webhooks.test(created.id);
    await receiver.waitFor((received) => received.path === '/sdk-calls');
    const log = await eventually(
      () => sdk.webhooks.deliveries(created.id),
      (page) => page.items.some((item) => item.outcome === 'delivered'),
    );
    const retried = await sdk.webhooks.retryDelivery(created.id, sent.deliveryId);
    const recovered = await sdk.webhooks.recover(created.id, { since: new Date(Date.now() - 3600_000) });
    await sdk.webhooks.delete(created.id);
    const gone = await sdk.webhooks.get(created.id).catch((caught: unknown) => caught);

    expect(read.signingSecret).toBe(created.signingSecret);
    expect(changed).toMatchObject({ name: 'SDK calls, renamed', filters: { blocks: ['riskOfFailure'] } });
    expect(log.items[0]).toMatchObject({ deliveryId: sent.deliveryId, eventType: 'webhook.test', outcome: 'delivered' });
    expect(retried).toEqual({ deliveryId: sent.deliveryId, status: 'queued' });
    expect(recovered).toMatchObject({ queued: 0, nextCursor: null });
    expect(gone).toMatchObject({ status: 404, code: 'webhook_not_found' });
  });
});

describe('profiles', () => {
  it('are fetched again with If-None-Match: a 304 is answered from the copy kept, a change brings the new profile', async () => {
    const recorder = recordingFetch();
    const sdk = client({ fetch: recorder.fetch });
    const companyNumber = await company('Sdk Etag');

    const first = await sdk.profile(companyNumber, { jurisdiction: 'GB' });
    first.name = 'changed by the caller';
    const second = await sdk.profile(companyNumber, { jurisdiction: 'GB' });
    await applyDemoChange(store, 'GB', companyNumber, 'risk');
    const third = await sdk.profile(companyNumber, { jurisdiction: 'GB' });

    const profileStatuses = recorder.exchanges
      .filter((exchange) => exchange.path.startsWith('/v1/profile/'))
      .map((exchange) => exchange.status);
    expect(profileStatuses).toEqual([200, 304, 200]);
    expect(second.name).toBe(`Sdk Etag ${companyNumber} Ltd`);
    expect(second.companyNumber).toBe(companyNumber);
    expect(third.version).toBeGreaterThan(second.version);
    expect(third.riskOfFailure).not.toEqual(second.riskOfFailure);
  });
});

describe('iterators', () => {
  it('follow nextCursor page by page (limit 1) through searches, watches, webhooks, deliveries and events', async () => {
    const recorder = recordingFetch();
    const sdk = client({ fetch: recorder.fetch });
    const numbers = [await company('Sdkpaging Alpha'), await company('Sdkpaging Beta'), await company('Sdkpaging Gamma')];
    for (const companyNumber of numbers) await sdk.profile(companyNumber, { jurisdiction: 'GB' });
    const hooks = [
      await sdk.webhooks.create({ name: 'SDK paging 1', url: `${receiver.url}/sdk-paging-1` }),
      await sdk.webhooks.create({ name: 'SDK paging 2', url: `${receiver.url}/sdk-paging-2` }),
    ];
    const [hook] = hooks as [(typeof hooks)[number]];
    await sdk.webhooks.test(hook.id);
    await sdk.webhooks.test(hook.id);
    for (const companyNumber of numbers.slice(0, 2)) await applyDemoChange(store, 'GB', companyNumber, 'risk');

    const collect = async <Item>(items: AsyncIterable<Item>) => {
      const all: Item[] = [];
      for await (const item of items) all.push(item);
      return all;
    };
    const found = await collect(sdk.searchAll({ q: 'sdkpaging', jurisdiction: 'GB', limit: 1 }));
    const searchPages = recorder.exchanges.filter((exchange) => exchange.path === '/v1/search').length;
    const watched = await collect(sdk.watches.all({ limit: 1 }));
    const subscriptions = await collect(sdk.webhooks.all({ limit: 1 }));
    const attempts = await eventually(
      () => collect(sdk.webhooks.allDeliveries(hook.id, { limit: 1 })),
      (items) => items.filter((item) => item.outcome === 'delivered').length >= 2,
    );
    const events = await eventually(
      () => collect(sdk.events.all({ limit: 1 })),
      (items) => numbers.slice(0, 2).every((companyNumber) => items.some((event) => event.data.companyNumber === companyNumber)),
    );

    expect(found.map((item) => item.companyNumber).sort()).toEqual(numbers);
    expect(searchPages).toBeGreaterThanOrEqual(3);
    expect(watched.map((watch) => watch.companyNumber)).toEqual(expect.arrayContaining(numbers));
    expect(subscriptions.map((subscription) => subscription.id)).toEqual(expect.arrayContaining(hooks.map(({ id }) => id)));
    expect(attempts.filter((item) => item.outcome === 'delivered').length).toBeGreaterThanOrEqual(2);
    expect(events.map((event) => event.data.companyNumber)).toEqual(expect.arrayContaining(numbers.slice(0, 2)));
    expect((await sdk.events.list({ limit: 1 })).nextCursor).not.toBeNull();

    for (const { id } of hooks) await sdk.webhooks.delete(id);
  }, 60_000);
});
