import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoClientRegistry } from '../../../shared/auth/dynamo-client-registry';
import { clientRateKey, RateLimiter } from '../../../shared/auth/rate-limit';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { DynamoClientEventStore } from '../../../shared/events/dynamo-client-events';
import { createEventsEndpoint } from '../../../shared/events/events-endpoint';
import { HttpError } from '../../../shared/http/errors';
import { problem } from '../../../shared/http/responses';
import type { HttpHandler, HttpResponse } from '../../../shared/http/types';
import { createDocumentClient, createDynamoClient } from '../../../shared/storage/dynamo';
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
import { Deliveries, MANUAL_SENDS_PER_MINUTE } from '../../../shared/webhooks/deliveries';
import { DynamoDeliveryLog } from '../../../shared/webhooks/dynamo-delivery-log';
import { DynamoSubscriptionStore } from '../../../shared/webhooks/dynamo-subscription-store';
import { Subscriptions } from '../../../shared/webhooks/subscriptions';
import { createWebhooksEndpoint } from '../../../shared/webhooks/webhooks-endpoint';
import { DynamoWorkspaceStore } from '../../../shared/workspace/dynamo-workspace-store';
import { Passkeys } from '../../../shared/workspace/passkeys';
import { INVITATION_LIMITS, RECENT_CHECK_SECONDS, SIGN_IN_LIMITS, WorkspaceAuth } from '../../../shared/workspace/workspace-auth';
import { createWorkspaceEndpoint } from '../../../shared/workspace/workspace-endpoint';
import { presentMinuteMs } from '../../support/clock';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { httpRequest } from '../../support/http-fixtures';
import { profileContent } from '../../support/profile-fixture';
import { testSealer } from '../../support/sealer';
import { type Assertion, SoftwareAuthenticator } from '../../support/software-authenticator';

const ORIGIN = 'https://workspace.bureau.example';
const STRONG = 'harbour lantern quietly orbits';
let nowMs = presentMinuteMs();
let tables: TestTables;
let store: DynamoWorkspaceStore;
let endpoint: HttpHandler;
let clientA: string;
let clientB: string;
let registry: DynamoClientRegistry;
let limiter: RateLimiter;

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
  registry = new DynamoClientRegistry(tables.doc, names.clients as string);
  limiter = new RateLimiter(tables.doc, names.clients as string, { clock: () => nowMs, timeoutMs: 20_000 });
  clientA = (await registry.create({ name: 'Acme Ltd' })).client.clientId;
  clientB = (await registry.create({ name: 'Borealis plc' })).client.clientId;
  store = new DynamoWorkspaceStore(tables.doc, names.workspace as string, () => nowMs);
  const auth = new WorkspaceAuth(
    store,
    new RateLimiter(tables.doc, names.workspace as string, { clock: () => nowMs, timeoutMs: 20_000 }),
    () => nowMs,
  );
  const subscriptions = new Subscriptions({
    store: new DynamoSubscriptionStore(tables.doc, names.webhooks as string),
    resolve: async () => ['93.184.215.14'],
    clock: () => new Date(nowMs),
    sealer: testSealer(),
  });
  const deliveries = new Deliveries({
    subscriptions,
    log: new DynamoDeliveryLog(tables.doc, names.deliveries as string, () => new Date(nowMs)),
    queue: { send: async () => {} },
    clock: () => new Date(nowMs),
    manualSends: limiter,
  });
  const companies = new DynamoCompanyStore(tables.doc, names.companies as string);
  await companies.save(profileContent({ companyNumber: '15380840', name: 'CPA GATES LTD' }));
  const watches = new DynamoWatchStore(tables.doc, names.watches as string);
  await watches.recordWatch(clientA, 'GB', '15380840', new Date(nowMs).toISOString());
  endpoint = createWorkspaceEndpoint({
    auth,
    passkeys: new Passkeys(store, auth),
    clients: registry,
    limiter,
    defaultRateLimitPerMinute: 600,
    webhooks: createWebhooksEndpoint(subscriptions, deliveries),
    events: createEventsEndpoint({ events: new DynamoClientEventStore(tables.doc, names.events as string), clock: () => new Date(nowMs) }),
    deliveries,
    watches,
    companies,
    cookies: { secure: true },
    origin: ORIGIN,
    tokenPath: '/v1/oauth/token',
    clock: () => new Date(nowMs),
  });
});

interface Browser {
  cookie?: string;
  csrf?: string;
}

/** One request as a same-origin page sends it; client errors turned into their responses. */
async function send(
  browser: Browser,
  method: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResponse> {
  const [routePath = '', query = ''] = route.split('?');
  const request = httpRequest({
    method,
    path: `/workspace/api/${routePath}`,
    query,
    sourceIp: headers['x-test-ip'] ?? '203.0.113.10',
    headers: {
      origin: ORIGIN,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(browser.cookie ? { cookie: browser.cookie } : {}),
      ...(browser.csrf && method !== 'GET' ? { 'x-csrf-token': browser.csrf } : {}),
      ...headers,
    },
    body: body === undefined ? '' : JSON.stringify(body),
  });
  let response: HttpResponse;
  try {
    response = await endpoint(request);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    response = problem(error);
  }
  const setCookie = response.headers?.['set-cookie'];
  if (setCookie) browser.cookie = setCookie.split(';')[0];
  const csrf = (response.body as { csrfToken?: string } | undefined)?.csrfToken;
  if (csrf) browser.csrf = csrf;
  return response;
}

const bodyOf = (response: HttpResponse) => response.body as Record<string, unknown>;

let people = 0;
/** A person who followed their link, each from an address of their own, as people do: no address limit is shared. */
async function signedInPerson(clientId: string, email: string): Promise<Browser> {
  const { token } = await store.invite(clientId, email);
  const browser: Browser = {};
  people += 1;
  const accepted = await send(browser, 'POST', 'invitations/accept', { token, password: STRONG }, { 'x-test-ip': `203.0.113.${people}` });
  expect(accepted.status).toBe(200);
  return browser;
}

describe('invitations and passwords', () => {
  it('lets an invited person choose a password once, signs them in with a strict session cookie', async () => {
    const { token } = await store.invite(clientA, 'first@acme.example');
    const browser: Browser = {};

    const accepted = await send(browser, 'POST', 'invitations/accept', { token, password: STRONG });
    const again = await send({}, 'POST', 'invitations/accept', { token, password: STRONG });
    const session = await send(browser, 'GET', 'session');

    expect(accepted.status).toBe(200);
    expect(accepted.headers?.['set-cookie']).toMatch(
      /^__Host-bureau_session=per_[\w-]{16}\.[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200; Secure$/,
    );
    expect(again.status).toBe(410);
    expect(bodyOf(again).error).toBe('invitation_unusable');
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ person: { email: 'first@acme.example' }, client: { clientId: clientA, name: 'Acme Ltd' } });
    expect(session.headers?.['cache-control']).toBe('no-store');
  });

  it('refuses a short, a common and a guessable password, saying why, and keeps the link usable', async () => {
    const { token } = await store.invite(clientA, 'weak@acme.example');

    const answers = await Promise.all(
      ['short1!', 'password1234', 'qwertyuiopasdf'].map((password) => send({}, 'POST', 'invitations/accept', { token, password })),
    );
    const strong = await send({}, 'POST', 'invitations/accept', { token, password: STRONG });

    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: 'weak_password', field: 'password' });
    }
    expect(strong.status).toBe(200);
  });

  it('looks the link up before judging or hashing a password: an unknown link is 410 whatever the password', async () => {
    const unknown = await send({}, 'POST', 'invitations/accept', { token: 'A'.repeat(43), password: 'password1234' });
    expect([unknown.status, bodyOf(unknown).error]).toEqual([410, 'invitation_unusable']);
  });

  it('limits attempts per link and per address, counted before the link is looked up', async () => {
    const { token } = await store.invite(clientA, 'limited@acme.example');
    const onOneLink = await Promise.all(
      Array.from({ length: INVITATION_LIMITS.perLink + 2 }, (_, i) =>
        send({}, 'POST', 'invitations/accept', { token, password: 'short' }, { 'x-test-ip': `198.51.100.${100 + i}` }),
      ),
    );
    const fromOneAddress = [];
    for (let i = 0; i < INVITATION_LIMITS.perAddress + 1; i++) {
      fromOneAddress.push(
        await send({}, 'POST', 'invitations/accept', { token: `${i}`.padEnd(43, 'B'), password: 'x' }, { 'x-test-ip': '192.0.2.88' }),
      );
    }

    expect(onOneLink.filter((answer) => answer.status === 400)).toHaveLength(INVITATION_LIMITS.perLink);
    expect(onOneLink.filter((answer) => answer.status === 429)).toHaveLength(2);
    expect(fromOneAddress.slice(0, -1).every((answer) => answer.status === 410)).toBe(true);
    expect([fromOneAddress.at(-1)?.status, bodyOf(fromOneAddress.at(-1) as HttpResponse).error]).toEqual([429, 'too_many_attempts']);
    expect(fromOneAddress.at(-1)?.headers?.['retry-after']).toMatch(/^\d+$/);
  });

  it("following a link voids the person's other links, older and newer, and ends their other sessions", async () => {
    const earlier = await signedInPerson(clientA, 'reset@acme.example');
    const older = await store.invite(clientA, 'reset@acme.example');
    nowMs += 1000;
    const used = await store.invite(clientA, 'reset@acme.example');
    const newer = await store.invite(clientA, 'reset@acme.example');
    nowMs += 1000;
    const browser: Browser = {};

    const accepted = await send(browser, 'POST', 'invitations/accept', { token: used.token, password: STRONG });
    const olderAfter = await send({}, 'POST', 'invitations/accept', { token: older.token, password: STRONG });
    const newerAfter = await send({}, 'POST', 'invitations/accept', { token: newer.token, password: STRONG });

    expect(accepted.status).toBe(200);
    expect((await send(browser, 'GET', 'session')).status).toBe(200);
    expect((await send(earlier, 'GET', 'session')).status).toBe(401);
    expect([olderAfter.status, newerAfter.status]).toEqual([410, 410]);
  });

  it('signs the person in when the SDK resends a redemption whose answer was lost, and only then', async () => {
    const { token } = await store.invite(clientA, 'resent@acme.example');
    const flaky = lostAnswerClient();
    const resending = new DynamoWorkspaceStore(flaky.doc, tables.names.workspace as string, () => nowMs);
    const invitation = await resending.usableInvitation(token);

    flaky.loseNextTransactionAnswer();
    const signedIn = await resending.redeem(invitation, 'scrypt$1$1$1$a$b');

    expect(flaky.transactionsSent()).toBe(2);
    expect((await store.session(signedIn.cookieValue))?.person.email).toBe('resent@acme.example');
    await expect(resending.redeem(invitation, 'scrypt$1$1$1$a$b')).rejects.toThrow(/has been used/);
  });

  it('refuses a link after 24 hours', async () => {
    const { token } = await store.invite(clientA, 'late@acme.example');
    nowMs += 24 * 3600_000 + 1000;
    try {
      expect((await send({}, 'POST', 'invitations/accept', { token, password: STRONG })).status).toBe(410);
    } finally {
      nowMs -= 24 * 3600_000 + 1000;
    }
  });

  it('keeps an e-mail address to one client', async () => {
    await store.invite(clientA, 'shared@example.com');
    await expect(store.invite(clientB, 'shared@example.com')).rejects.toThrow(/another client/);
  });
});

describe('signing in and out', () => {
  it('signs in with the password, and answers a wrong password and an unknown address alike', async () => {
    await signedInPerson(clientA, 'signin@acme.example');

    const good = await send({}, 'POST', 'sign-in', { email: 'SignIn@Acme.example ', password: STRONG });
    const wrong = await send({}, 'POST', 'sign-in', { email: 'signin@acme.example', password: `${STRONG}x` });
    const unknown = await send({}, 'POST', 'sign-in', { email: 'nobody@acme.example', password: STRONG });

    expect(good.status).toBe(200);
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
  });

  it('limits sign-in attempts per person from one address, counting first, and never locks the person out elsewhere', async () => {
    await signedInPerson(clientA, 'guessed@acme.example');
    const attempts = await Promise.all(
      Array.from({ length: SIGN_IN_LIMITS.perPersonPerAddress + 5 }, (_, i) =>
        send({}, 'POST', 'sign-in', { email: 'guessed@acme.example', password: `guess ${i}` }, { 'x-test-ip': '198.51.100.9' }),
      ),
    );
    const owner = await send({}, 'POST', 'sign-in', { email: 'guessed@acme.example', password: STRONG }, { 'x-test-ip': '203.0.113.99' });
    const attackerWithThePassword = await send(
      {},
      'POST',
      'sign-in',
      { email: 'guessed@acme.example', password: STRONG },
      { 'x-test-ip': '198.51.100.9' },
    );

    const refused = attempts.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(5);
    expect(refused[0]?.headers?.['retry-after']).toMatch(/^\d+$/);
    expect(owner.status).toBe(200);
    expect(attackerWithThePassword.status).toBe(429);
  });

  it('lets the person sign in from another address after a burst of 100 wrong passwords from one', async () => {
    await signedInPerson(clientA, 'flooded@acme.example');
    const burst = [];
    for (let i = 0; i < 100; i++) {
      burst.push(
        await send({}, 'POST', 'sign-in', { email: 'flooded@acme.example', password: `guess ${i}` }, { 'x-test-ip': '198.51.100.40' }),
      );
    }

    const owner = await send({}, 'POST', 'sign-in', { email: 'flooded@acme.example', password: STRONG }, { 'x-test-ip': '203.0.113.140' });

    expect(burst.filter((answer) => answer.status === 401)).toHaveLength(SIGN_IN_LIMITS.perPersonPerAddress);
    expect(burst.filter((answer) => answer.status === 429)).toHaveLength(100 - SIGN_IN_LIMITS.perPersonPerAddress);
    expect(owner.status).toBe(200);
  });

  it('counts a flood from the addresses of one IPv6 /64 as one place', async () => {
    await signedInPerson(clientA, 'flooded-v6@acme.example');
    const burst = [];
    for (let i = 0; i < 100; i++) {
      const address = `2001:db8:99:1::${(i + 1).toString(16)}`;
      burst.push(await send({}, 'POST', 'sign-in', { email: 'flooded-v6@acme.example', password: `guess ${i}` }, { 'x-test-ip': address }));
    }

    const owner = await send(
      {},
      'POST',
      'sign-in',
      { email: 'flooded-v6@acme.example', password: STRONG },
      { 'x-test-ip': '2001:db8:99:2::1' },
    );

    expect(burst.filter((answer) => answer.status === 429)).toHaveLength(100 - SIGN_IN_LIMITS.perPersonPerAddress);
    expect(owner.status).toBe(200);
  });

  it('limits sign-in attempts per address across people', async () => {
    const attempts = [];
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress + 1; i++) {
      attempts.push(await send({}, 'POST', 'sign-in', { email: `p${i}@acme.example`, password: 'x' }, { 'x-test-ip': '192.0.2.77' }));
    }
    expect(attempts.at(-1)?.status).toBe(429);
    expect(attempts.slice(0, -1).every((answer) => answer.status === 401)).toBe(true);
  });

  it('limits sign-in attempts per IPv6 /64, whichever of its addresses they come from', async () => {
    const attempts = [];
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress + 1; i++) {
      const address = `2001:db8:77:1::${(i + 1).toString(16)}`;
      attempts.push(await send({}, 'POST', 'sign-in', { email: `v6-${i}@acme.example`, password: 'x' }, { 'x-test-ip': address }));
    }
    const otherNetwork = await send(
      {},
      'POST',
      'sign-in',
      { email: 'v6-other@acme.example', password: 'x' },
      { 'x-test-ip': '2001:db8:77:2::1' },
    );

    expect(attempts.slice(0, -1).every((answer) => answer.status === 401)).toBe(true);
    expect(attempts.at(-1)?.status).toBe(429);
    expect(otherNetwork.status).toBe(401);
  });

  it('ends one session on sign-out and every session on sign-out everywhere', async () => {
    const laptop = await signedInPerson(clientA, 'two@acme.example');
    const phone: Browser = {};
    await send(phone, 'POST', 'sign-in', { email: 'two@acme.example', password: STRONG });
    const third: Browser = {};
    await send(third, 'POST', 'sign-in', { email: 'two@acme.example', password: STRONG });

    const out = await send(third, 'POST', 'sign-out');
    const thirdAfter = await send({ ...third }, 'GET', 'session');
    const laptopStill = await send(laptop, 'GET', 'session');
    const everywhere = await send(laptop, 'POST', 'sign-out-everywhere');

    expect(out.status).toBe(204);
    expect(out.headers?.['set-cookie']).toContain('Max-Age=0');
    expect(thirdAfter.status).toBe(401);
    expect(laptopStill.status).toBe(200);
    expect(everywhere.status).toBe(204);
    expect((await send(phone, 'GET', 'session')).status).toBe(401);
  });

  it('ends a session after 12 hours', async () => {
    const browser = await signedInPerson(clientA, 'expiry@acme.example');
    nowMs += 12 * 3600_000 + 1000;
    try {
      expect((await send(browser, 'GET', 'session')).status).toBe(401);
    } finally {
      nowMs -= 12 * 3600_000 + 1000;
    }
  });

  it('answers 401 without a session, and to a forged or malformed cookie', async () => {
    for (const cookie of [undefined, `__Host-bureau_session=per_AAAAAAAAAAAAAAAA.${'A'.repeat(43)}`, '__Host-bureau_session=../../etc']) {
      const answer = await send(cookie ? { cookie } : {}, 'GET', 'webhooks');
      expect(answer.status).toBe(401);
      expect(bodyOf(answer).error).toBe('not_signed_in');
    }
  });
});

describe('cross-site request forgery', () => {
  it('refuses a change without the session’s CSRF token, from another origin, or from another site', async () => {
    const browser = await signedInPerson(clientA, 'csrf@acme.example');
    const body = { name: 'Prod', url: 'https://hooks.example.com/x' };

    const noToken = await send({ cookie: browser.cookie }, 'POST', 'webhooks', body);
    const otherOrigin = await send(browser, 'POST', 'webhooks', body, { origin: 'https://evil.example' });
    const crossSite = await send(browser, 'POST', 'webhooks', body, { 'sec-fetch-site': 'cross-site' });
    const form = await send(browser, 'POST', 'sign-out', 'x', { 'content-type': 'text/plain' });
    const good = await send(browser, 'POST', 'webhooks', body);

    expect(noToken.status).toBe(403);
    expect(bodyOf(noToken).error).toBe('csrf_token_mismatch');
    expect(otherOrigin.status).toBe(403);
    expect(crossSite.status).toBe(403);
    expect(form.status).toBe(415);
    expect(good.status).toBe(201);
  });
});

describe("a person acts only on their own client's data", () => {
  it("answers 404 on every route that names another client's webhook, and lists only their own", async () => {
    const alice = await signedInPerson(clientA, 'alice@acme.example');
    const bob = await signedInPerson(clientB, 'bob@borealis.example');
    const created = bodyOf(await send(alice, 'POST', 'webhooks', { name: 'Alice', url: 'https://hooks.example.com/a' }));
    const id = created.id as string;

    const attempts = [
      await send(bob, 'GET', `webhooks/${id}`),
      await send(bob, 'PATCH', `webhooks/${id}`, { name: 'Mine now' }),
      await send(bob, 'POST', `webhooks/${id}/rotate-secret`),
      await send(bob, 'POST', `webhooks/${id}/test`),
      await send(bob, 'GET', `webhooks/${id}/deliveries`),
      await send(bob, 'GET', `webhooks/${id}/delivery-stats`),
      await send(bob, 'POST', `webhooks/${id}/deliveries/msg_AAAAAAAAAAAAAAAAAAAAAAAAAAA/retry`),
      await send(bob, 'DELETE', `webhooks/${id}`),
    ];
    const bobsList = await send(bob, 'GET', 'webhooks');
    const bobsPortfolio = await send(bob, 'GET', 'portfolio');
    const alicesWebhook = await send(alice, 'GET', `webhooks/${id}`);

    for (const answer of attempts) expect([answer.status, bodyOf(answer).error]).toEqual([404, 'webhook_not_found']);
    expect(bodyOf(bobsList).items).toEqual([]);
    expect(bodyOf(bobsPortfolio).items).toEqual([]);
    expect(alicesWebhook.status).toBe(200);
    expect(bodyOf(alicesWebhook).name).toBe('Alice');
  });

  it('shows the watched companies with their names, searchable, and a profile without recording a watch', async () => {
    const alice = await signedInPerson(clientA, 'watcher@acme.example');

    const all = await send(alice, 'GET', 'portfolio');
    const byName = await send(alice, 'GET', 'portfolio?q=gates');
    const noMatch = await send(alice, 'GET', 'portfolio?q=zebra');
    const profile = await send(alice, 'GET', 'companies/GB/15380840');
    const badNumber = await send(alice, 'GET', 'companies/GB/not-a-number');

    expect(bodyOf(all).items).toEqual([expect.objectContaining({ companyNumber: '15380840', name: 'CPA GATES LTD' })]);
    expect(bodyOf(byName).items).toEqual([expect.objectContaining({ companyNumber: '15380840' })]);
    expect(bodyOf(noMatch).items).toEqual([]);
    expect(bodyOf(profile)).toMatchObject({ companyNumber: '15380840', name: 'CPA GATES LTD' });
    expect(badNumber.status).toBe(400);
  });

  it('closes the workspace of a client that has been removed', async () => {
    const registry = new DynamoClientRegistry(tables.doc, tables.names.clients as string);
    const { clientId } = (await registry.create({ name: 'Leaving Ltd' })).client;
    const carol = await signedInPerson(clientId, 'carol@leaving.example');

    await registry.remove(clientId);
    const answer = await send(carol, 'GET', 'webhooks');

    expect([answer.status, bodyOf(answer).error]).toEqual([403, 'client_removed']);
  });

  it('counts deliveries per day for the chart, every one of the last 30 days present', async () => {
    const alice = await signedInPerson(clientA, 'chart@acme.example');
    const id = bodyOf(await send(alice, 'POST', 'webhooks', { name: 'Chart', url: 'https://hooks.example.com/c' })).id as string;

    const stats = bodyOf(await send(alice, 'GET', `webhooks/${id}/delivery-stats`));

    expect(stats.days).toHaveLength(30);
    expect((stats.days as { date: string }[]).at(-1)?.date).toBe(new Date(nowMs).toISOString().slice(0, 10));
    expect(stats.truncated).toBe(false);
  });
});

describe('the workspace is a second door to the same rooms', () => {
  it("lets a disabled client's people sign in and see that it is disabled, and nothing else", async () => {
    const { clientId } = (await registry.create({ name: 'Paused Ltd' })).client;
    const dana = await signedInPerson(clientId, 'dana@paused.example');
    const id = bodyOf(await send(dana, 'POST', 'webhooks', { name: 'Before', url: 'https://hooks.example.com/p' })).id as string;
    await watches().recordWatch(clientId, 'GB', '15380840', new Date(nowMs).toISOString());

    await registry.disable(clientId);
    const again: Browser = {};
    const signIn = await send(again, 'POST', 'sign-in', { email: 'dana@paused.example', password: STRONG });
    const session = await send(again, 'GET', 'session');
    const refused = [
      await send(again, 'GET', 'webhooks'),
      await send(again, 'POST', 'webhooks', { name: 'After', url: 'https://hooks.example.com/q' }),
      await send(again, 'GET', `webhooks/${id}`),
      await send(again, 'POST', `webhooks/${id}/test`),
      await send(again, 'GET', `webhooks/${id}/delivery-stats`),
      await send(again, 'GET', 'portfolio'),
      await send(again, 'GET', 'companies/GB/15380840'),
      await send(again, 'POST', 'passkeys/registration-options'),
    ];
    const signOut = await send(again, 'POST', 'sign-out');

    expect(signIn.status).toBe(200);
    expect(bodyOf(session).client).toEqual({ clientId, name: 'Paused Ltd', status: 'disabled' });
    for (const answer of refused) expect([answer.status, bodyOf(answer).error]).toEqual([403, 'client_disabled']);
    expect(signOut.status).toBe(204);
  });

  it("counts every signed-in call against the client's own API limit, with the same headers and 429", async () => {
    const { clientId } = (await registry.create({ name: 'Small Ltd', rateLimitPerMinute: 8 })).client;
    const erin = await signedInPerson(clientId, 'erin@small.example');
    await limiter.consume(clientRateKey(clientId), 8); // one API call, made with the client's token

    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await send(erin, 'GET', 'webhooks'));

    expect(answers.slice(0, 7).every((answer) => answer.status === 200)).toBe(true);
    expect(answers[0]?.headers?.ratelimit).toMatch(/^"default";r=6;t=\d+$/);
    expect(answers[0]?.headers?.['ratelimit-policy']).toBe('"default";q=8;w=60');
    expect([answers[7]?.status, bodyOf(answers[7] as HttpResponse).error]).toEqual([429, 'rate_limited']);
    expect(answers[7]?.headers?.['retry-after']).toMatch(/^\d+$/);
  });

  it('shows only the companies the client watches: any other is a 404 that says so', async () => {
    const alice = await signedInPerson(clientA, 'nosy@acme.example');
    await new DynamoCompanyStore(tables.doc, tables.names.companies as string).save(
      profileContent({ companyNumber: '00000099', name: 'UNWATCHED LTD' }),
    );

    const unwatched = await send(alice, 'GET', 'companies/GB/00000099');
    const watched = await send(alice, 'GET', 'companies/GB/15380840');

    expect([unwatched.status, bodyOf(unwatched).error]).toEqual([404, 'company_not_watched']);
    expect(watched.status).toBe(200);
  });

  it("answers the portfolio of the session's own client, counted, and refuses a bad parameter by name", async () => {
    const alice = await signedInPerson(clientA, 'portfolio@acme.example');
    const bob = await signedInPerson(clientB, 'portfolio@borealis.example');

    const own = await send(alice, 'GET', 'portfolio?risk=Low&sort=risk&order=desc');
    const other = await send(bob, 'GET', 'portfolio');
    const bad = await send(alice, 'GET', 'portfolio?signal=sometimes');
    const anonymous = await send({}, 'GET', 'portfolio');

    expect(own.status).toBe(200);
    expect(bodyOf(own)).toMatchObject({ matched: 1, watched: 1, complete: true, nextCursor: null });
    expect((bodyOf(own).items as Array<Record<string, unknown>>).map((row) => [row.companyNumber, row.name])).toEqual([
      ['15380840', 'CPA GATES LTD'],
    ]);
    expect(own.headers?.ratelimit).toMatch(/^"default";r=\d+;t=\d+$/);
    expect(bodyOf(other)).toMatchObject({ items: [], watched: 0 });
    expect([bad.status, bodyOf(bad).error, bodyOf(bad).parameter]).toEqual([400, 'invalid_signal', 'signal']);
    expect([anonymous.status, bodyOf(anonymous).error]).toEqual([401, 'not_signed_in']);
  });

  it("limits the person's test events like the API's, in the client's own small bucket", async () => {
    const { clientId } = (await registry.create({ name: 'Tester Ltd' })).client;
    const frank = await signedInPerson(clientId, 'frank@tester.example');
    const id = bodyOf(await send(frank, 'POST', 'webhooks', { name: 'T', url: 'https://hooks.example.com/t' })).id as string;

    const answers = [];
    for (let i = 0; i < MANUAL_SENDS_PER_MINUTE + 1; i++) answers.push(await send(frank, 'POST', `webhooks/${id}/test`));

    expect(answers.slice(0, -1).every((answer) => answer.status === 202)).toBe(true);
    expect([answers.at(-1)?.status, bodyOf(answers.at(-1) as HttpResponse).error]).toEqual([429, 'too_many_manual_sends']);
  });
});

const watches = () => new DynamoWatchStore(tables.doc, tables.names.watches as string);

/**
 * A DynamoDB client that, once asked, lets a TransactWriteItems reach the engine and then loses its
 * answer the way a dropped connection does, so the SDK resends the same transaction.
 */
function lostAnswerClient() {
  const client = createDynamoClient(tables.env);
  let lose = false;
  let sent = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
      sent++;
      const result = await next(args);
      if (!lose) return result;
      lose = false;
      throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError', code: 'ECONNRESET', $metadata: {} });
    },
    { step: 'deserialize', name: 'loseAnswer', priority: 'low' },
  );
  return {
    doc: createDocumentClient(client),
    loseNextTransactionAnswer: () => {
      lose = true;
    },
    transactionsSent: () => sent,
  };
}

describe('passkeys', () => {
  // biome-ignore lint/suspicious/noExplicitAny: WebAuthn options are read loosely; the assertions check what matters
  type Loose = any;

  async function personWithPasskey(
    email: string,
    registration: Assertion,
  ): Promise<{ authenticator: SoftwareAuthenticator; added: HttpResponse }> {
    const browser = await signedInPerson(clientA, email);
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    const { challengeId, options } = bodyOf(await send(browser, 'POST', 'passkeys/registration-options')) as Loose;
    const added = await send(browser, 'POST', 'passkeys', {
      challengeId,
      response: authenticator.registration(options.challenge, registration),
    });
    return { authenticator, added };
  }

  async function signInWith(authenticator: SoftwareAuthenticator, assertion: Assertion): Promise<HttpResponse> {
    const { challengeId, options } = bodyOf(await send({}, 'POST', 'passkey-sign-in/options')) as Loose;
    return send({}, 'POST', 'passkey-sign-in', { challengeId, response: authenticator.assertion(options.challenge, assertion) });
  }

  async function sessionOf(authenticator: SoftwareAuthenticator, counter: number): Promise<Browser> {
    const browser: Browser = {};
    const { challengeId, options } = bodyOf(await send(browser, 'POST', 'passkey-sign-in/options')) as Loose;
    await send(browser, 'POST', 'passkey-sign-in', { challengeId, response: authenticator.assertion(options.challenge, { counter }) });
    return browser;
  }

  async function checkWith(browser: Browser, authenticator: SoftwareAuthenticator, counter: number): Promise<HttpResponse> {
    const { challengeId, options } = bodyOf(await send(browser, 'POST', 'reauthenticate/passkey-options')) as Loose;
    return send(browser, 'POST', 'reauthenticate/passkey', {
      challengeId,
      response: authenticator.assertion(options.challenge, { counter }),
    });
  }

  it('ask the authenticator to verify the person, at registration and at sign-in', async () => {
    const browser = await signedInPerson(clientA, 'uv-options@acme.example');

    const registration = bodyOf(await send(browser, 'POST', 'passkeys/registration-options')) as Loose;
    const signIn = bodyOf(await send({}, 'POST', 'passkey-sign-in/options')) as Loose;

    expect(registration.options.authenticatorSelection.userVerification).toBe('required');
    expect(signIn.options.userVerification).toBe('required');
  });

  it('refuse a passkey whose authenticator did not verify the person, when added and when signing in', async () => {
    const unverified = await personWithPasskey('uv-add@acme.example', { counter: 1, userVerified: false });
    const { authenticator, added } = await personWithPasskey('uv-sign-in@acme.example', { counter: 1 });

    const signIn = await signInWith(authenticator, { counter: 2, userVerified: false });

    expect([unverified.added.status, bodyOf(unverified.added).error]).toEqual([401, 'passkey_refused']);
    expect(added.status).toBe(204);
    expect([signIn.status, bodyOf(signIn).error]).toEqual([401, 'passkey_refused']);
  });

  it('sign in while the counter moves forward, and refuse one that repeats or goes back', async () => {
    const { authenticator } = await personWithPasskey('counter@acme.example', { counter: 5 });

    const forward = await signInWith(authenticator, { counter: 6 });
    const repeated = await signInWith(authenticator, { counter: 6 });
    const back = await signInWith(authenticator, { counter: 3 });
    const onward = await signInWith(authenticator, { counter: 9 });

    expect(forward.status).toBe(200);
    expect([repeated.status, back.status]).toEqual([401, 401]);
    expect(onward.status).toBe(200);
  });

  it('let only one of two sign-ins with the same counter through, however close together', async () => {
    const { authenticator } = await personWithPasskey('race@acme.example', { counter: 10 });

    const answers = await Promise.all([signInWith(authenticator, { counter: 11 }), signInWith(authenticator, { counter: 11 })]);

    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
  });

  it('accept an authenticator that keeps no counter, which always reports 0', async () => {
    const { authenticator } = await personWithPasskey('no-counter@acme.example', { counter: 0 });

    expect((await signInWith(authenticator, { counter: 0 })).status).toBe(200);
    expect((await signInWith(authenticator, { counter: 0 })).status).toBe(200);
  });

  async function addPasskey(browser: Browser, authenticator: SoftwareAuthenticator, name?: string): Promise<HttpResponse> {
    const { challengeId, options } = bodyOf(await send(browser, 'POST', 'passkeys/registration-options')) as Loose;
    return send(browser, 'POST', 'passkeys', {
      challengeId,
      response: authenticator.registration(options.challenge, { counter: 1 }),
      ...(name === undefined ? {} : { name }),
    });
  }

  /** Runs `act` as if the session had begun longer ago than a recent check allows. */
  async function later<T>(act: () => Promise<T>): Promise<T> {
    nowMs += (RECENT_CHECK_SECONDS + 60) * 1000;
    try {
      return await act();
    } finally {
      nowMs -= (RECENT_CHECK_SECONDS + 60) * 1000;
    }
  }

  it('to be added, need a password or passkey check from the last 5 minutes', async () => {
    const browser = await signedInPerson(clientA, 'recent-check@acme.example');
    const authenticator = new SoftwareAuthenticator(ORIGIN);

    const { stale, wrong, refusedAgain, confirmed, added } = await later(async () => {
      const stale = await send(browser, 'POST', 'passkeys/registration-options');
      const wrong = await send(browser, 'POST', 'reauthenticate', { password: `${STRONG}x` });
      const refusedAgain = await send(browser, 'POST', 'passkeys/registration-options');
      const confirmed = await send(browser, 'POST', 'reauthenticate', { password: STRONG });
      return { stale, wrong, refusedAgain, confirmed, added: await addPasskey(browser, authenticator, 'Laptop') };
    });

    expect(RECENT_CHECK_SECONDS).toBe(300);
    expect([stale.status, bodyOf(stale).error]).toEqual([403, 'recent_check_required']);
    expect([wrong.status, bodyOf(wrong).error]).toEqual([403, 'password_refused']);
    expect(refusedAgain.status).toBe(403);
    expect(confirmed.status).toBe(204);
    expect(added.status).toBe(204);
  });

  it('to be added, accept a check with one of the person’s own passkeys, and no one else’s', async () => {
    const { authenticator } = await personWithPasskey('check-by-passkey@acme.example', { counter: 1 });
    const browser = await sessionOf(authenticator, 2);
    const stranger = await personWithPasskey('stranger@acme.example', { counter: 1 });

    const { byStranger, byOwn, added } = await later(async () => {
      const byStranger = await checkWith(browser, stranger.authenticator, 2);
      const byOwn = await checkWith(browser, authenticator, 3);
      return { byStranger, byOwn, added: await addPasskey(browser, new SoftwareAuthenticator(ORIGIN)) };
    });

    expect([byStranger.status, bodyOf(byStranger).error]).toEqual([403, 'passkey_refused']);
    expect(byOwn.status).toBe(204);
    expect(added.status).toBe(204);
  });

  it('are listed with their names, when they were added and last used, and removed by their person', async () => {
    const browser = await signedInPerson(clientA, 'list@acme.example');
    const laptop = new SoftwareAuthenticator(ORIGIN);
    const phone = new SoftwareAuthenticator(ORIGIN);
    await addPasskey(browser, laptop, 'Laptop');
    await addPasskey(browser, phone);
    expect((await signInWith(laptop, { counter: 2 })).status).toBe(200);
    const other = await signedInPerson(clientA, 'not-list@acme.example');

    const listed = bodyOf(await send(browser, 'GET', 'passkeys')) as Loose;
    const byOther = await send(other, 'DELETE', `passkeys/${laptop.credentialId}`);
    const removed = await send(browser, 'DELETE', `passkeys/${laptop.credentialId}`);
    const again = await send(browser, 'DELETE', `passkeys/${laptop.credentialId}`);
    const signInAfter = await signInWith(laptop, { counter: 3 });

    const when = new Date(nowMs).toISOString();
    expect(listed.items).toEqual(
      expect.arrayContaining([
        { id: laptop.credentialId, name: 'Laptop', createdAt: when, lastUsedAt: when },
        { id: phone.credentialId, name: 'Passkey', createdAt: when, lastUsedAt: null },
      ]),
    );
    expect(listed.items).toHaveLength(2);
    expect([byOther.status, bodyOf(byOther).error]).toEqual([404, 'passkey_not_found']);
    expect(removed.status).toBe(204);
    expect(again.status).toBe(404);
    expect([signInAfter.status, bodyOf(signInAfter).error]).toEqual([401, 'passkey_refused']);
    expect(((bodyOf(await send(browser, 'GET', 'passkeys')) as Loose).items as Loose[]).map((item) => item.id)).toEqual([
      phone.credentialId,
    ]);
    const person = await store.personByEmail('list@acme.example');
    expect((await store.passkeyChanges(person?.personId ?? '')).map(({ change, by, name, at }) => [change, by, name, at]).sort()).toEqual([
      ['added', 'person', 'Laptop', when],
      ['added', 'person', 'Passkey', when],
      ['removed', 'person', 'Laptop', when],
    ]);
  });

  it('are all removed when the person follows a sign-in link, which says how many went', async () => {
    const browser = await signedInPerson(clientA, 'reset@acme.example');
    const first = new SoftwareAuthenticator(ORIGIN);
    const second = new SoftwareAuthenticator(ORIGIN);
    await addPasskey(browser, first, 'First');
    await addPasskey(browser, second, 'Second');
    const { token } = await store.invite(clientA, 'reset@acme.example');

    const reset: Browser = {};
    const accepted = await send(reset, 'POST', 'invitations/accept', { token, password: STRONG }, { 'x-test-ip': '203.0.113.200' });

    expect(accepted.status).toBe(200);
    expect(bodyOf(accepted).passkeysRemoved).toBe(2);
    expect((await signInWith(first, { counter: 2 })).status).toBe(401);
    expect((await signInWith(second, { counter: 2 })).status).toBe(401);
    expect((bodyOf(await send(reset, 'GET', 'passkeys')) as Loose).items).toEqual([]);
    const person = await store.personByEmail('reset@acme.example');
    const removals = (await store.passkeyChanges(person?.personId ?? '')).filter((entry) => entry.change === 'removed');
    expect(removals.map(({ by, name }) => [by, name]).sort()).toEqual([
      ['sign-in link', 'First'],
      ['sign-in link', 'Second'],
    ]);
  });

  it('cannot be added by a session that a sign-in link has ended, however close the two', async () => {
    const browser = await signedInPerson(clientA, 'ended@acme.example');
    const session = await store.session(browser.cookie?.split('=')[1] ?? '');
    const { token } = await store.invite(clientA, 'ended@acme.example');
    nowMs += 1;
    try {
      await store.redeem(await store.usableInvitation(token), 'scrypt$1$1$1$a$b');
      const authenticator = new SoftwareAuthenticator(ORIGIN);
      const late = store.addPasskey(
        {
          credentialId: authenticator.credentialId,
          personId: session?.person.personId ?? '',
          publicKey: 'AA',
          counter: 0,
          name: 'Intruder',
        },
        session?.session as never,
      );

      await expect(late).rejects.toThrow(/session has ended/);
      expect(await store.passkeysOf(session?.person.personId ?? '')).toEqual([]);
    } finally {
      nowMs -= 1;
    }
  });
});
