import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoClientRegistry } from '../../../shared/auth/dynamo-client-registry';
import { clientRateKey, RateLimiter } from '../../../shared/auth/rate-limit';
import type { Principal } from '../../../shared/auth/tokens';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { DynamoClientEventStore } from '../../../shared/events/dynamo-client-events';
import type { WebhookEnvelope } from '../../../shared/events/envelope';
import { createEventsEndpoint } from '../../../shared/events/events-endpoint';
import { HttpError } from '../../../shared/http/errors';
import { problem } from '../../../shared/http/responses';
import type { HttpHandler, HttpResponse } from '../../../shared/http/types';
import {
  clientsTable,
  companiesTable,
  deliveriesTable,
  eventsTable,
  watchesTable,
  webhooksTable,
  workspaceTable,
} from '../../../shared/storage/tables';
import { DynamoWatchStore } from '../../../shared/watches/dynamo-watch-store';
import { Deliveries } from '../../../shared/webhooks/deliveries';
import { DynamoDeliveryLog } from '../../../shared/webhooks/dynamo-delivery-log';
import { DynamoSubscriptionStore } from '../../../shared/webhooks/dynamo-subscription-store';
import { Subscriptions } from '../../../shared/webhooks/subscriptions';
import { createWebhooksEndpoint } from '../../../shared/webhooks/webhooks-endpoint';
import { DynamoWorkspaceStore } from '../../../shared/workspace/dynamo-workspace-store';
import { Passkeys } from '../../../shared/workspace/passkeys';
import type { EventRowView } from '../../../shared/workspace/wire';
import { WorkspaceAuth } from '../../../shared/workspace/workspace-auth';
import { createWorkspaceEndpoint } from '../../../shared/workspace/workspace-endpoint';
import { presentMinuteMs } from '../../support/clock';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { httpRequest } from '../../support/http-fixtures';
import { profileContent } from '../../support/profile-fixture';
import { testSealer } from '../../support/sealer';

/**
 * GET /workspace/api/events: the API's GET /v1/events for the signed-in person's client, through the
 * API's own handler (filters, checks, paging), each row with its company's name.
 */
const ORIGIN = 'https://workspace.bureau.example';
const STRONG = 'harbour lantern quietly orbits';
const nowMs = presentMinuteMs();
const now = new Date(nowMs);
const ago = (minutes: number) => new Date(nowMs - minutes * 60_000).toISOString();

let tables: TestTables;
let workspaceStore: DynamoWorkspaceStore;
let endpoint: HttpHandler;
let apiEvents: ReturnType<typeof createEventsEndpoint>;
let limiter: RateLimiter;
let clientA: string;
let clientB: string;
/** Every batch of companies the route asked for, by size. */
const companyBatches: number[] = [];

const change = (minutesAgo: number, jurisdiction: 'GB' | 'IE', companyNumber: string, block = 'overview'): WebhookEnvelope => ({
  type: 'profile.changed',
  apiVersion: 'v1',
  occurredAt: ago(minutesAgo),
  idempotencyKey: `profile.changed:${jurisdiction}:${companyNumber}:${block}:v${10_000 - minutesAgo}`,
  block: block as WebhookEnvelope['block'],
  data: { jurisdiction, companyNumber },
});

const signal = (minutesAgo: number, companyNumber: string, state: 'active' | 'superseded'): WebhookEnvelope => ({
  type: state === 'active' ? 'profile.early_signal.detected' : 'profile.early_signal.updated',
  apiVersion: 'v1',
  occurredAt: ago(minutesAgo),
  idempotencyKey: `early_signal:GB:${companyNumber}:sig_accounts_overdue_2026-10-02:${state}`,
  block: 'earlySignals',
  data: { jurisdiction: 'GB', companyNumber },
});

beforeAll(async () => {
  tables = await createTestTables([
    clientsTable,
    workspaceTable,
    webhooksTable,
    deliveriesTable,
    watchesTable,
    eventsTable,
    { ...companiesTable, stream: undefined },
  ]);
  const names = tables.names as Record<string, string>;
  const registry = new DynamoClientRegistry(tables.doc, names.clients as string);
  limiter = new RateLimiter(tables.doc, names.clients as string, { clock: () => nowMs, timeoutMs: 20_000 });
  clientA = (await registry.create({ name: 'Acme Ltd' })).client.clientId;
  clientB = (await registry.create({ name: 'Borealis plc' })).client.clientId;
  workspaceStore = new DynamoWorkspaceStore(tables.doc, names.workspace as string, () => nowMs);
  const auth = new WorkspaceAuth(
    workspaceStore,
    new RateLimiter(tables.doc, names.workspace as string, { clock: () => nowMs, timeoutMs: 20_000 }),
    () => nowMs,
  );
  const subscriptions = new Subscriptions({
    store: new DynamoSubscriptionStore(tables.doc, names.webhooks as string),
    resolve: async () => ['93.184.215.14'],
    clock: () => now,
    sealer: testSealer(),
  });
  const deliveries = new Deliveries({
    subscriptions,
    log: new DynamoDeliveryLog(tables.doc, names.deliveries as string, () => now),
    queue: { send: async () => {} },
    clock: () => now,
    manualSends: limiter,
  });
  const companies = new DynamoCompanyStore(tables.doc, names.companies as string);
  await companies.save(profileContent({ companyNumber: '15380840', name: 'CPA GATES LTD' }));
  await companies.save(profileContent({ companyNumber: '00000123', name: 'ANCHOR WORKS LIMITED' }));
  await companies.save(profileContent({ jurisdiction: 'IE', companyNumber: '654321', name: 'CLADDAGH FOODS DAC' }));
  const events = new DynamoClientEventStore(tables.doc, names.events as string);
  apiEvents = createEventsEndpoint({ events, clock: () => now });
  // Forty-five changes to client A's companies, one a minute, and what client B alone sees.
  for (let minute = 1; minute <= 45; minute++) {
    const [jurisdiction, number] =
      minute % 3 === 0 ? (['IE', '654321'] as const) : minute % 3 === 1 ? (['GB', '15380840'] as const) : (['GB', '00000123'] as const);
    await events.recordFor([clientA], change(minute, jurisdiction, number, minute % 2 === 0 ? 'riskOfFailure' : 'overview'));
  }
  await events.recordFor([clientA], signal(50, '15380840', 'active'));
  await events.recordFor([clientA], signal(46, '15380840', 'superseded'));
  // A company this service does not hold: the row shows its number alone.
  await events.recordFor([clientA], change(60, 'GB', '09999999'));
  await events.recordFor([clientB], change(2, 'GB', '07654321'));
  endpoint = createWorkspaceEndpoint({
    auth,
    passkeys: new Passkeys(workspaceStore, auth),
    clients: registry,
    limiter,
    defaultRateLimitPerMinute: 600,
    webhooks: createWebhooksEndpoint(subscriptions, deliveries),
    events: apiEvents,
    deliveries,
    watches: new DynamoWatchStore(tables.doc, names.watches as string),
    companies: {
      get: (jurisdiction, number) => companies.get(jurisdiction, number),
      getMany: (keys) => {
        companyBatches.push(keys.length);
        return companies.getMany(keys);
      },
    },
    cookies: { secure: true },
    origin: ORIGIN,
    tokenPath: '/v1/oauth/token',
    clock: () => now,
  });
});

interface Browser {
  cookie?: string;
}

async function answer(handler: () => Promise<HttpResponse>): Promise<HttpResponse> {
  try {
    return await handler();
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return problem(error);
  }
}

async function send(browser: Browser, method: string, route: string, body?: unknown): Promise<HttpResponse> {
  const [path = '', query = ''] = route.split('?');
  const response = await answer(() =>
    endpoint(
      httpRequest({
        method,
        path: `/workspace/api/${path}`,
        query,
        headers: {
          origin: ORIGIN,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(browser.cookie ? { cookie: browser.cookie } : {}),
        },
        body: body === undefined ? '' : JSON.stringify(body),
      }),
    ),
  );
  const setCookie = response.headers?.['set-cookie'];
  if (setCookie) browser.cookie = setCookie.split(';')[0];
  return response;
}

let people = 0;
async function signedInPerson(clientId: string): Promise<Browser> {
  people += 1;
  const { token } = await workspaceStore.invite(clientId, `person${people}@events.example`);
  const browser: Browser = {};
  expect((await send(browser, 'POST', 'invitations/accept', { token, password: STRONG })).status).toBe(200);
  return browser;
}

/** What the API itself answers the client for the same query. */
const fromApi = (clientId: string, query: string) =>
  answer(() =>
    apiEvents(httpRequest({ path: '/v1/events', query }), {
      clientId,
      tokenId: 'test',
      expiresAt: Math.floor(nowMs / 1000) + 3600,
    } as Principal),
  );

const rowsOf = (response: HttpResponse) => (response.body as { items: EventRowView[] }).items;
const nextOf = (response: HttpResponse) => (response.body as { nextCursor: string | null }).nextCursor;

describe('the events feed of the workspace', () => {
  it('answers the API’s own page for the signed-in client, newest first, each row with its company’s name', async () => {
    const person = await signedInPerson(clientA);

    const page = await send(person, 'GET', 'events?limit=10');
    const api = await fromApi(clientA, 'limit=10');

    expect(page.status).toBe(200);
    expect(page.headers?.['cache-control']).toBe('no-store');
    expect(rowsOf(page).map(({ companyName, ...event }) => event)).toEqual((api.body as { items: unknown[] }).items);
    expect(nextOf(page)).toBe(nextOf(api));
    const times = rowsOf(page).map((row) => row.occurredAt);
    expect(times).toEqual([...times].sort().reverse());
    expect(
      rowsOf(page)
        .slice(0, 3)
        .map((row) => [row.data.companyNumber, row.companyName]),
    ).toEqual([
      ['15380840', 'CPA GATES LTD'],
      ['00000123', 'ANCHOR WORKS LIMITED'],
      ['654321', 'CLADDAGH FOODS DAC'],
    ]);
  });

  it('pages forward with the API’s cursor to the last event, every event once, and names an unknown company by number alone', async () => {
    const person = await signedInPerson(clientA);
    const seen: EventRowView[] = [];
    let cursor: string | null = null;
    let pages = 0;
    companyBatches.length = 0;
    do {
      const page: HttpResponse = await send(person, 'GET', `events?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...rowsOf(page));
      cursor = nextOf(page);
      pages += 1;
    } while (cursor);

    expect(pages).toBe(3);
    expect(seen).toHaveLength(48);
    expect(new Set(seen.map((row) => row.id)).size).toBe(48);
    expect(seen.at(-1)).toMatchObject({ data: { companyNumber: '09999999' }, companyName: null });
    // One batch of names per page, never more companies than the page holds.
    expect(companyBatches).toHaveLength(3);
    for (const size of companyBatches) expect(size).toBeLessThanOrEqual(20);
  });

  it('filters by type, block, jurisdiction, company number and time range, as the API does', async () => {
    const person = await signedInPerson(clientA);
    const queries = [
      'type=profile.early_signal.updated',
      'block=riskOfFailure',
      'jurisdiction=IE',
      'jurisdiction=GB&companyNumber=123',
      `since=${encodeURIComponent(ago(10))}&until=${encodeURIComponent(ago(5))}`,
    ];
    const pages = await Promise.all(queries.map((query) => send(person, 'GET', `events?${query}&limit=100`)));

    for (const [index, query] of queries.entries()) {
      const api = await fromApi(clientA, `${query}&limit=100`);
      expect(
        rowsOf(pages[index] as HttpResponse).map(({ companyName, ...event }) => event),
        query,
      ).toEqual((api.body as { items: unknown[] }).items);
    }
    const [updated, risk, ireland, anchor, window] = pages.map((page) => rowsOf(page as HttpResponse));
    expect(updated?.map((row) => row.type)).toEqual(['profile.early_signal.updated']);
    expect(risk).toHaveLength(22);
    expect(risk?.every((row) => row.block === 'riskOfFailure')).toBe(true);
    expect(ireland).toHaveLength(15);
    expect(ireland?.every((row) => row.companyName === 'CLADDAGH FOODS DAC')).toBe(true);
    expect(anchor).toHaveLength(15);
    expect(anchor?.every((row) => row.data.companyNumber === '00000123')).toBe(true);
    expect(window?.map((row) => row.occurredAt)).toEqual([5, 6, 7, 8, 9, 10].map(ago));
  });

  it('shows one client’s events only: another client’s people never see them', async () => {
    const a = rowsOf(await send(await signedInPerson(clientA), 'GET', 'events?limit=100'));
    const b = rowsOf(await send(await signedInPerson(clientB), 'GET', 'events?limit=100'));

    expect(a.map((row) => row.data.companyNumber)).not.toContain('07654321');
    expect(b.map((row) => row.data.companyNumber)).toEqual(['07654321']);
  });

  it('refuses a bad parameter with a 400 naming it, the API’s own answer, never a 500', async () => {
    const person = await signedInPerson(clientA);
    const bad: Array<[string, string]> = [
      ['limit=0', 'limit'],
      ['limit=abc', 'limit'],
      ['type=profile.deleted', 'type'],
      ['block=balanceSheet', 'block'],
      ['jurisdiction=FR', 'jurisdiction'],
      ['companyNumber=%3Cscript%3E', 'companyNumber'],
      ['since=yesterday', 'since'],
      [`since=${encodeURIComponent(ago(60 * 24 * 40))}`, 'since'],
      [`since=${encodeURIComponent(ago(10))}&until=${encodeURIComponent(ago(20))}`, 'until'],
      ['cursor=not-a-cursor', 'cursor'],
      ['type=profile.changed&type=profile.changed', 'type'],
    ];

    for (const [query, parameter] of bad) {
      const page = await send(person, 'GET', `events?${query}`);
      const api = await fromApi(clientA, query);
      expect(page.status, query).toBe(400);
      expect(page.body, query).toMatchObject({ parameter });
      expect((page.body as { error: string }).error, query).toBe((api.body as { error: string }).error);
    }
  });

  it('needs a session, and counts each call against the client’s API limit', async () => {
    const anonymous = await send({}, 'GET', 'events');
    const person = await signedInPerson(clientB);
    const before = await limiter.consume(clientRateKey(clientB), 600);
    const page = await send(person, 'GET', 'events');
    const after = await limiter.consume(clientRateKey(clientB), 600);

    expect(anonymous.status).toBe(401);
    expect(page.status).toBe(200);
    expect(page.headers?.ratelimit).toBeDefined();
    // The call in between was counted once, as one API call.
    expect(after.used - before.used).toBe(2);
  });
});
