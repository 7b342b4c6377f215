import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../shared/auth/rate-limit';
import type { Principal } from '../../../shared/auth/tokens';
import { UnsealableSecretError } from '../../../shared/crypto/secret-sealer';
import { HttpError } from '../../../shared/http/errors';
import { problem } from '../../../shared/http/responses';
import type { HttpResponse } from '../../../shared/http/types';
import { encodeCursor } from '../../../shared/paging/cursor';
import type { DeliveryMessage } from '../../../shared/queues/queues';
import { clientsTable, deliveriesTable, webhooksTable } from '../../../shared/storage/tables';
import {
  Deliveries,
  MANUAL_SENDS_PER_MINUTE,
  RECOVERY_BACKLOG_MINUTES,
  RECOVERY_PACE_PER_MINUTE,
} from '../../../shared/webhooks/deliveries';
import { DynamoDeliveryLog } from '../../../shared/webhooks/dynamo-delivery-log';
import { DynamoSubscriptionStore } from '../../../shared/webhooks/dynamo-subscription-store';
import { openSecretsInForce } from '../../../shared/webhooks/signing-secrets';
import { MAX_SUBSCRIPTIONS_PER_CLIENT, type Subscription } from '../../../shared/webhooks/subscription';
import { Subscriptions } from '../../../shared/webhooks/subscriptions';
import { createWebhooksEndpoint } from '../../../shared/webhooks/webhooks-endpoint';
import { presentMinuteMs } from '../../support/clock';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { httpRequest } from '../../support/http-fixtures';
import { testSealer } from '../../support/sealer';

let endpoint: ReturnType<typeof createWebhooksEndpoint>;
let store: DynamoSubscriptionStore;
const sealer = testSealer();
let tables: TestTables;
let log: DynamoDeliveryLog;
const start = presentMinuteMs();
const at = (offsetMs: number) => new Date(start + offsetMs);
let now = at(0);
/** What the endpoint put on the deliveries queue. */
const queued: DeliveryMessage[] = [];

beforeAll(async () => {
  tables = await createTestTables([webhooksTable, deliveriesTable, clientsTable]);
  store = new DynamoSubscriptionStore(tables.doc, tables.names.webhooks as string);
  const subscriptions = new Subscriptions({
    store,
    resolve: async (hostname) =>
      hostname === 'hooks.example.com' ? ['93.184.215.14'] : hostname === 'intranet.example.com' ? ['10.0.0.5'] : [],
    clock: () => now,
    sealer,
  });
  log = new DynamoDeliveryLog(tables.doc, tables.names.deliveries as string, () => now);
  const deliveries = new Deliveries({
    subscriptions,
    log,
    queue: { send: async (messages) => void queued.push(...messages) },
    clock: () => now,
    manualSends: new RateLimiter(tables.doc, tables.names.clients as string, { clock: () => now.getTime(), timeoutMs: 20_000 }),
  });
  endpoint = createWebhooksEndpoint(subscriptions, deliveries);
});

const principal = (clientId: string): Principal => ({ clientId, tokenId: 't', expiresAt: 2_000_000_000 });

/** One call as the protected route makes it, client errors turned into their responses. */
async function call(
  clientId: string,
  method: string,
  path: string,
  body?: unknown,
  options: { contentType?: string; id?: string; deliveryId?: string; query?: string } = {},
): Promise<HttpResponse> {
  const request = httpRequest({
    method,
    path,
    pathParameters: {
      ...(options.id === undefined ? {} : { id: options.id }),
      ...(options.deliveryId === undefined ? {} : { deliveryId: options.deliveryId }),
    },
    headers: body === undefined ? {} : { 'content-type': options.contentType ?? 'application/json' },
    body: body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body),
    ...(options.query === undefined ? {} : { query: options.query }),
  });
  try {
    return await endpoint(request, principal(clientId));
  } catch (error) {
    if (error instanceof HttpError) return problem(error);
    throw error;
  }
}

const register = (clientId: string, name = 'Production', url = 'https://hooks.example.com/bureau') =>
  call(clientId, 'POST', '/v1/webhooks', { name, url });
const bodyOf = (response: HttpResponse) => response.body as Record<string, unknown>;

describe('webhook subscriptions', () => {
  it('take filters, normalised, changed and cleared by PATCH, and refuse any value they do not know, naming it', async () => {
    const url = 'https://hooks.example.com/bureau';
    const created = await call('client-f', 'POST', '/v1/webhooks', {
      name: 'Filtered',
      url,
      filters: { eventTypes: ['profile.early_signal.detected'], companies: ['gb:1234567', 'IE:00000123'], jurisdictions: ['GB', 'IE'] },
    });
    expect(created.status).toBe(201);
    const id = bodyOf(created).id as string;
    expect(bodyOf(created).filters).toEqual({
      eventTypes: ['profile.early_signal.detected'],
      jurisdictions: ['GB', 'IE'],
      companies: ['GB:01234567', 'IE:123'],
    });
    const changed = await call(
      'client-f',
      'PATCH',
      `/v1/webhooks/${id}`,
      { filters: { blocks: ['riskOfFailure', 'earlySignals'] } },
      { id },
    );
    expect(bodyOf(changed).filters).toEqual({ blocks: ['riskOfFailure', 'earlySignals'] });
    // A test event names no company, type or block that filters know: it is sent whatever they say.
    const tested = await call('client-f', 'POST', `/v1/webhooks/${id}/test`, undefined, { id });
    expect(tested.status).toBe(202);
    expect(queued.at(-1)).toMatchObject({ subscriptionId: id, envelope: { type: 'webhook.test' } });
    const cleared = await call('client-f', 'PATCH', `/v1/webhooks/${id}`, { filters: null }, { id });
    expect(bodyOf(cleared).filters).toBeNull();
    expect(bodyOf(await register('client-f')).filters).toBeNull();

    for (const [filters, named] of [
      [{ eventTypes: ['profile.deleted'] }, 'profile.deleted'],
      [{ blocks: ['overview', 'secrets'] }, 'secrets'],
      [{ jurisdictions: ['FR'] }, 'FR'],
      [{ companies: ['GB:not a number'] }, 'not a number'],
      [{ companies: ['12345678'] }, 'JURISDICTION:NUMBER'],
      [{ eventTypes: [] }, 'non-empty list'],
      [{ colour: ['red'] }, 'colour'],
      [['profile.changed'], 'object'],
      [{ companies: Array.from({ length: 101 }, (_, n) => `GB:${String(n + 1).padStart(8, '0')}`) }, 'at most 100'],
    ] as const) {
      const refused = await call('client-f', 'POST', '/v1/webhooks', { name: 'x', url, filters });
      expect(refused.status, JSON.stringify(filters)).toBe(400);
      expect(bodyOf(refused)).toMatchObject({ error: 'invalid_filters', field: 'filters' });
      expect(JSON.stringify(bodyOf(refused))).toContain(named);
    }
  });

  it('are registered ACTIVE with a Standard Webhooks signing secret, and shown the same way afterwards', async () => {
    const created = await register('client-a');
    const id = bodyOf(created).id as string;
    const read = await call('client-a', 'GET', `/v1/webhooks/${id}`, undefined, { id });

    expect(created.status).toBe(201);
    expect(created.headers).toMatchObject({ location: `/v1/webhooks/${id}`, 'cache-control': 'no-store' });
    expect(bodyOf(created)).toEqual({
      id: expect.stringMatching(/^wh_[A-Za-z0-9_-]{16}$/),
      name: 'Production',
      url: 'https://hooks.example.com/bureau',
      status: 'ACTIVE',
      signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: at(0).toISOString(),
      updatedAt: at(0).toISOString(),
      disabledReason: null,
      failingSince: null,
      filters: null,
    });
    expect(Buffer.from((bodyOf(created).signingSecret as string).slice(6), 'base64')).toHaveLength(32);
    expect(read.body).toEqual(created.body);
  });

  it('keep their signing secret sealed at rest, show it on an explicit read, and never in a listing', async () => {
    const created = bodyOf(await register('client-sealed'));
    const id = created.id as string;
    const secret = created.signingSecret as string;

    const stored = await tables.doc.send(
      new GetCommand({ TableName: tables.names.webhooks as string, Key: { pk: 'CLIENT#client-sealed', sk: `WEBHOOK#${id}` } }),
    );
    const listed = await call('client-sealed', 'GET', '/v1/webhooks');
    const read = await call('client-sealed', 'GET', `/v1/webhooks/${id}`, undefined, { id });

    expect(JSON.stringify(stored.Item)).not.toContain(secret.slice(6, 30));
    expect(stored.Item?.signingSecrets).toEqual([{ sealed: expect.stringMatching(/^v2\./), createdAt: expect.any(String) }]);
    expect(bodyOf(listed).items).toEqual([expect.not.objectContaining({ signingSecret: expect.anything() })]);
    expect(bodyOf(read).signingSecret).toBe(secret);
  });

  it('do not open with a sealed secret copied from another subscription', async () => {
    const from = bodyOf(await register('client-moved', 'from'));
    const to = bodyOf(await register('client-moved', 'to'));
    const keyOf = (id: unknown) => ({ pk: 'CLIENT#client-moved', sk: `WEBHOOK#${id}` });
    const original = await tables.doc.send(new GetCommand({ TableName: tables.names.webhooks as string, Key: keyOf(from.id) }));
    const target = await tables.doc.send(new GetCommand({ TableName: tables.names.webhooks as string, Key: keyOf(to.id) }));
    await tables.doc.send(
      new PutCommand({
        TableName: tables.names.webhooks as string,
        Item: { ...target.Item, signingSecrets: original.Item?.signingSecrets },
      }),
    );

    await expect(call('client-moved', 'GET', `/v1/webhooks/${to.id}`, undefined, { id: to.id as string })).rejects.toThrow(
      UnsealableSecretError,
    );
    expect(bodyOf(await call('client-moved', 'GET', `/v1/webhooks/${from.id}`, undefined, { id: from.id as string })).signingSecret).toBe(
      from.signingSecret,
    );
  });

  describe('written with the secret in clear by an earlier version', () => {
    const legacySecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo=';
    const keyOf = (id: string) => ({ pk: 'CLIENT#client-legacy', sk: `WEBHOOK#${id}` });
    const stored = async (id: string) =>
      (await tables.doc.send(new GetCommand({ TableName: tables.names.webhooks as string, Key: keyOf(id) }))).Item as {
        signingSecrets: Record<string, string>[];
        updatedAt: string;
      };
    const putLegacy = (id: string, secret: Record<string, string>) =>
      tables.doc.send(
        new PutCommand({
          TableName: tables.names.webhooks as string,
          Item: {
            ...keyOf(id),
            id,
            clientId: 'client-legacy',
            name: 'Old',
            url: 'https://hooks.example.com/old',
            status: 'ACTIVE',
            signingSecrets: [{ ...secret, createdAt: now.toISOString() }],
            createdAt: now.toISOString(),
            updatedAt: now.toISOString(),
          },
        }),
      );

    it('still show it, and seal it at their next change', async () => {
      const id = 'wh_LegacyChangeLega';
      await putLegacy(id, { secret: legacySecret });

      const read = await call('client-legacy', 'GET', `/v1/webhooks/${id}`, undefined, { id });
      const listed = await call('client-legacy', 'GET', '/v1/webhooks');
      const changed = await call('client-legacy', 'PATCH', `/v1/webhooks/${id}`, { name: 'Renamed' }, { id });
      const item = await stored(id);
      const readAgain = await call('client-legacy', 'GET', `/v1/webhooks/${id}`, undefined, { id });

      expect(bodyOf(read).signingSecret).toBe(legacySecret);
      expect(JSON.stringify(bodyOf(listed))).not.toContain(legacySecret.slice(6));
      expect(bodyOf(changed)).toMatchObject({ name: 'Renamed', signingSecret: legacySecret });
      expect(JSON.stringify(item)).not.toContain(legacySecret.slice(6));
      expect(item.signingSecrets).toEqual([{ sealed: expect.stringMatching(/^v2\./), createdAt: now.toISOString() }]);
      expect(item.updatedAt).toBe(bodyOf(changed).updatedAt);
      expect(bodyOf(readAgain).signingSecret).toBe(legacySecret);
    });

    it('seal it at a rotation, the previous secret signing beside the new one sealed too', async () => {
      for (const [id, secret] of [
        ['wh_LegacyRotateLega', { secret: legacySecret }],
        // As a rotation of an earlier version put a previous secret back: in clear, under `sealed`.
        ['wh_LegacySealedLega', { sealed: legacySecret }],
      ] as const) {
        await putLegacy(id, secret);

        const rotated = await call('client-legacy', 'POST', `/v1/webhooks/${id}/rotate-secret`, undefined, { id });
        const item = await stored(id);
        const subscription = await store.get('client-legacy', id);

        expect(bodyOf(rotated).signingSecret).not.toBe(legacySecret);
        expect(JSON.stringify(item), id).not.toContain(legacySecret.slice(6));
        expect(item.signingSecrets.map((kept) => Object.keys(kept).sort())).toEqual([
          ['createdAt', 'expiresAt', 'sealed'],
          ['createdAt', 'sealed'],
        ]);
        await expect(openSecretsInForce(sealer, subscription as Subscription, now)).resolves.toEqual([
          expect.objectContaining({ secret: legacySecret }),
          expect.objectContaining({ secret: bodyOf(rotated).signingSecret }),
        ]);
      }
    });
  });

  it('are listed page by page, each client seeing only its own', async () => {
    for (const name of ['one', 'two', 'three']) await register('client-b', name);
    await register('client-c', 'not yours');

    const first = await call('client-b', 'GET', '/v1/webhooks', undefined, { query: 'limit=2' });
    const second = await call('client-b', 'GET', '/v1/webhooks', undefined, {
      query: `limit=2&cursor=${bodyOf(first).nextCursor as string}`,
    });

    const names = [...(bodyOf(first).items as { name: string }[]), ...(bodyOf(second).items as { name: string }[])].map(
      (item) => item.name,
    );
    expect(names.sort()).toEqual(['one', 'three', 'two']);
    expect(bodyOf(second).nextCursor).toBeNull();
  });

  it('of another client are not found, whatever the method', async () => {
    const id = bodyOf(await register('client-d')).id as string;

    const responses = await Promise.all([
      call('intruder', 'GET', `/v1/webhooks/${id}`, undefined, { id }),
      call('intruder', 'PATCH', `/v1/webhooks/${id}`, { status: 'DISABLED' }, { id }),
      call('intruder', 'DELETE', `/v1/webhooks/${id}`, undefined, { id }),
      call('intruder', 'POST', `/v1/webhooks/${id}/rotate-secret`, undefined, { id }),
    ]);

    for (const response of responses) expect(bodyOf(response)).toMatchObject({ status: 404, error: 'webhook_not_found' });
    expect((await call('client-d', 'GET', `/v1/webhooks/${id}`, undefined, { id })).status).toBe(200);
  });

  it('change name, URL and status, and are deleted', async () => {
    const id = bodyOf(await register('client-e')).id as string;
    now = at(3600_000);

    const changed = await call('client-e', 'PATCH', `/v1/webhooks/${id}`, { status: 'DISABLED', name: 'Staging' }, { id });
    const deleted = await call('client-e', 'DELETE', `/v1/webhooks/${id}`, undefined, { id });
    const gone = await call('client-e', 'GET', `/v1/webhooks/${id}`, undefined, { id });

    expect(bodyOf(changed)).toMatchObject({ status: 'DISABLED', name: 'Staging', updatedAt: at(3600_000).toISOString() });
    expect(deleted.status).toBe(204);
    expect(gone.status).toBe(404);
  });

  it('get a new signing secret on rotation, the previous one signing beside it for a day', async () => {
    const created = bodyOf(await register('client-f'));
    now = at(21 * 3600_000);

    const rotated = await call('client-f', 'POST', `/v1/webhooks/${created.id}/rotate-secret`, undefined, { id: created.id as string });

    expect(bodyOf(rotated).signingSecret).not.toBe(created.signingSecret);
    expect(bodyOf(rotated)).toMatchObject({
      previousSigningSecretExpiresAt: at(45 * 3600_000).toISOString(),
      updatedAt: now.toISOString(),
    });
  });

  it(`are capped at ${MAX_SUBSCRIPTIONS_PER_CLIENT} per client, even when registered all at once`, async () => {
    const responses = await Promise.all(
      Array.from({ length: MAX_SUBSCRIPTIONS_PER_CLIENT + 3 }, (_, i) => register('client-g', `hook ${i}`)),
    );

    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(MAX_SUBSCRIPTIONS_PER_CLIENT);
    expect(responses.filter((response) => response.status === 409).map((response) => bodyOf(response).error)).toEqual([
      'webhook_limit_reached',
      'webhook_limit_reached',
      'webhook_limit_reached',
    ]);
    const id = bodyOf(responses.find((response) => response.status === 201) as HttpResponse).id as string;
    await call('client-g', 'DELETE', `/v1/webhooks/${id}`, undefined, { id });
    expect((await register('client-g', 'room again')).status).toBe(201);
  });

  it.each([
    ['an http URL', { name: 'x', url: 'http://hooks.example.com/in' }, 400, 'invalid_url', { rule: 'https_only' }],
    ['a private address', { name: 'x', url: 'https://192.168.0.10/in' }, 400, 'invalid_url', { rule: 'address_not_public' }],
    [
      'a name that resolves inside',
      { name: 'x', url: 'https://intranet.example.com/in' },
      400,
      'invalid_url',
      { rule: 'resolves_to_non_public_address' },
    ],
    [
      'a name that does not resolve',
      { name: 'x', url: 'https://nowhere.example.com/in' },
      400,
      'invalid_url',
      { rule: 'does_not_resolve' },
    ],
    ['no URL', { name: 'x' }, 400, 'invalid_url', { rule: 'not_a_url' }],
    ['an empty name', { name: ' ', url: 'https://hooks.example.com/in' }, 400, 'invalid_name', { field: 'name' }],
    ['a name with a line break', { name: 'Prod\nx', url: 'https://hooks.example.com/in' }, 400, 'invalid_name', { field: 'name' }],
    ['a name with a bidi override', '{"name":"a\\u202eb","url":"https://hooks.example.com/in"}', 400, 'invalid_name', { field: 'name' }],
    ['a name with a lone surrogate', '{"name":"a\\ud800","url":"https://hooks.example.com/in"}', 400, 'invalid_name', { field: 'name' }],
    ['an unknown field', { name: 'x', url: 'https://hooks.example.com/in', secret: 'mine' }, 400, 'invalid_body', { field: 'secret' }],
    ['a field given twice', '{"name":"x","url":"https://hooks.example.com/in","name":"y"}', 400, 'invalid_body', { field: 'name' }],
    [
      'a field given twice, its colon 70 spaces away',
      `{"url":"https://hooks.example.com/in","name":"x","url"${' '.repeat(70)}:"https://hooks.example.com/other"}`,
      400,
      'invalid_body',
      { field: 'url' },
    ],
    ['malformed JSON', '{"name":', 400, 'invalid_body', {}],
    ['a JSON array', '[]', 400, 'invalid_body', {}],
  ])('refuse a registration with %s', async (_case, body, status, error, details) => {
    const response = await call('client-h', 'POST', '/v1/webhooks', body);

    expect(response.status).toBe(status);
    expect(bodyOf(response)).toMatchObject({ error, ...details });
  });

  it('refuse a body that is not JSON, a change with nothing to change, a bad status and a bad cursor', async () => {
    const id = bodyOf(await register('client-i')).id as string;

    const form = await call('client-i', 'POST', '/v1/webhooks', 'name=x', { contentType: 'application/x-www-form-urlencoded' });
    const empty = await call('client-i', 'PATCH', `/v1/webhooks/${id}`, {}, { id });
    const status = await call('client-i', 'PATCH', `/v1/webhooks/${id}`, { status: 'PAUSED' }, { id });
    const cursor = await call('client-i', 'GET', '/v1/webhooks', undefined, { query: 'cursor=bm9wZQ' });

    expect(bodyOf(form)).toMatchObject({ status: 415, error: 'unsupported_media_type' });
    expect(bodyOf(empty)).toMatchObject({ status: 400, error: 'invalid_body' });
    expect(bodyOf(status)).toMatchObject({ status: 400, error: 'invalid_status', field: 'status' });
    expect(bodyOf(cursor)).toMatchObject({ status: 400, error: 'invalid_cursor' });
  });
});

describe('deliveries of a subscription', () => {
  it('a test event is queued for the subscription in the spec envelope, under its own type', async () => {
    const id = bodyOf(await register('client-t')).id as string;
    const response = await call('client-t', 'POST', `/v1/webhooks/${id}/test`, undefined, { id });
    expect(response.status).toBe(202);
    const { deliveryId, event } = bodyOf(response) as { deliveryId: string; event: Record<string, unknown> };
    expect(event).toMatchObject({ type: 'webhook.test', apiVersion: 'v1', block: null, data: { jurisdiction: null, companyNumber: null } });
    expect(queued.at(-1)).toEqual({ deliveryId, clientId: 'client-t', subscriptionId: id, envelope: event });
  });

  it(`sends at most ${MANUAL_SENDS_PER_MINUTE} test events and retries a minute per client, then answers 429 saying when`, async () => {
    const id = bodyOf(await register('client-s')).id as string;
    const other = bodyOf(await register('client-s2')).id as string;
    const sent = queued.length;

    const answers = await Promise.all(
      Array.from({ length: MANUAL_SENDS_PER_MINUTE + 3 }, () => call('client-s', 'POST', `/v1/webhooks/${id}/test`, undefined, { id })),
    );
    const othersTest = await call('client-s2', 'POST', `/v1/webhooks/${other}/test`, undefined, { id: other });

    const refused = answers.filter((answer) => answer.status === 429);
    expect(answers.filter((answer) => answer.status === 202)).toHaveLength(MANUAL_SENDS_PER_MINUTE);
    expect(refused).toHaveLength(3);
    expect(bodyOf(refused[0] as HttpResponse)).toMatchObject({ error: 'too_many_manual_sends' });
    expect(refused[0]?.headers?.['retry-after']).toMatch(/^\d+$/);
    expect(refused[0]?.headers?.['ratelimit-policy']).toBe(`"manual-sends";q=${MANUAL_SENDS_PER_MINUTE};w=60`);
    expect(queued.length - sent).toBe(MANUAL_SENDS_PER_MINUTE + 1);
    expect(othersTest.status).toBe(202);
  });

  it('another client can neither test, list nor retry it', async () => {
    const id = bodyOf(await register('client-u')).id as string;
    const sent = queued.length;
    expect((await call('client-v', 'POST', `/v1/webhooks/${id}/test`, undefined, { id })).status).toBe(404);
    expect((await call('client-v', 'GET', `/v1/webhooks/${id}/deliveries`, undefined, { id })).status).toBe(404);
    const retry = await call('client-v', 'POST', `/v1/webhooks/${id}/deliveries/msg_${'a'.repeat(27)}/retry`, undefined, {
      id,
      deliveryId: `msg_${'a'.repeat(27)}`,
    });
    expect(retry.status).toBe(404);
    expect(queued.length).toBe(sent);
  });

  it('lists attempts newest first in pages, and retries a logged delivery; an unknown delivery is a 404', async () => {
    const id = bodyOf(await register('client-w')).id as string;
    const envelope = {
      type: 'profile.changed' as const,
      apiVersion: 'v1' as const,
      occurredAt: now.toISOString(),
      idempotencyKey: 'profile.changed:GB:00000001:riskOfFailure:v2',
      block: 'riskOfFailure' as const,
      data: { jurisdiction: 'GB' as const, companyNumber: '00000001' },
    };
    const deliveryId = `msg_${'b'.repeat(27)}`;
    for (const attempt of [1, 2, 3]) {
      const attemptedAt = new Date(now.getTime() + attempt * 1000).toISOString();
      await log.recordMany([
        {
          delivery: {
            deliveryId,
            clientId: 'client-w',
            subscriptionId: id,
            envelope,
            status: 'pending',
            attempts: attempt,
            lastAttemptAt: attemptedAt,
          },
          attempt: {
            deliveryId,
            eventType: envelope.type,
            idempotencyKey: envelope.idempotencyKey,
            attempt,
            attemptedAt,
            outcome: 'failed',
            httpStatus: 500,
            durationMs: 12,
          },
        },
      ]);
    }
    const first = await call('client-w', 'GET', `/v1/webhooks/${id}/deliveries`, undefined, { id, query: 'limit=2' });
    expect(first.status).toBe(200);
    const page = bodyOf(first) as { items: Array<Record<string, unknown>>; nextCursor: string };
    expect(page.items.map((item) => item.attempt)).toEqual([3, 2]);
    expect(page.items[0]).toMatchObject({ deliveryId, outcome: 'failed', httpStatus: 500, error: null, nextAttemptAt: null });
    const second = await call('client-w', 'GET', `/v1/webhooks/${id}/deliveries`, undefined, {
      id,
      query: `limit=2&cursor=${encodeURIComponent(page.nextCursor)}`,
    });
    expect((bodyOf(second).items as Array<Record<string, unknown>>).map((item) => item.attempt)).toEqual([1]);
    expect((await call('client-w', 'GET', `/v1/webhooks/${id}/deliveries`, undefined, { id, query: 'cursor=nonsense' })).status).toBe(400);

    const retried = await call('client-w', 'POST', `/v1/webhooks/${id}/deliveries/${deliveryId}/retry`, undefined, { id, deliveryId });
    expect(retried.status).toBe(202);
    expect(queued.at(-1)).toEqual({ deliveryId, clientId: 'client-w', subscriptionId: id, envelope, manual: true, scheduleFrom: 3 });
    const unknown = `msg_${'c'.repeat(27)}`;
    const missing = await call('client-w', 'POST', `/v1/webhooks/${id}/deliveries/${unknown}/retry`, undefined, {
      id,
      deliveryId: unknown,
    });
    expect(missing.status).toBe(404);
    expect((bodyOf(missing) as { error: string }).error).toBe('delivery_not_found');
  });

  it('answers 400 naming the cursor, never a 5xx, for a cursor whose position lies outside the range asked', async () => {
    const id = bodyOf(await register('client-cursor')).id as string;
    const deliveryId = `msg_${'d'.repeat(27)}`;
    const longAgo = '2000-01-01T00:00:00.000Z';
    const attemptsBefore = encodeCursor({ before: `ATTEMPT#${longAgo}#${deliveryId}#000001` });
    const listed = await call('client-cursor', 'GET', `/v1/webhooks/${id}/deliveries`, undefined, {
      id,
      query: `cursor=${attemptsBefore}`,
    });
    expect(listed.status).toBe(400);
    expect(bodyOf(listed)).toMatchObject({ error: 'invalid_cursor', parameter: 'cursor' });

    const since = new Date(now.getTime() - 3600_000).toISOString();
    const recover = (cursor: string) => call('client-cursor', 'POST', `/v1/webhooks/${id}/recover`, { since, cursor }, { id });
    const beforeSince = encodeCursor({ after: `DEAD#${longAgo}#${deliveryId}`, since });
    const otherSince = encodeCursor({ after: `DEAD#${new Date(now.getTime() - 60_000).toISOString()}#${deliveryId}`, since: longAgo });
    for (const cursor of [beforeSince, otherSince, encodeCursor({ after: `DEAD#${longAgo}#${deliveryId}` })]) {
      const refused = await recover(cursor);
      expect(refused.status).toBe(400);
      expect(bodyOf(refused)).toMatchObject({ error: 'invalid_cursor', field: 'cursor' });
    }
  });

  it("lists attempts by status and company, naming each attempt's company, and refuses a bad filter with a 400 naming it", async () => {
    const id = bodyOf(await register('client-filters')).id as string;
    const logged = (companyNumber: string, outcome: 'delivered' | 'failed', second: number) => {
      const idempotencyKey = `profile.changed:GB:${companyNumber}:overview:v${second}`;
      const deliveryId = `msg_${String(second).padStart(27, 'f')}`;
      const envelope = {
        type: 'profile.changed' as const,
        apiVersion: 'v1' as const,
        occurredAt: now.toISOString(),
        idempotencyKey,
        block: 'overview' as const,
        data: { jurisdiction: 'GB' as const, companyNumber },
      };
      const attemptedAt = new Date(now.getTime() - second * 1000).toISOString();
      return log.recordMany([
        {
          delivery: {
            deliveryId,
            clientId: 'client-filters',
            subscriptionId: id,
            envelope,
            status: outcome,
            attempts: 1,
            lastAttemptAt: attemptedAt,
          },
          attempt: {
            deliveryId,
            eventType: envelope.type,
            idempotencyKey,
            jurisdiction: 'GB',
            companyNumber,
            block: 'overview',
            attempt: 1,
            attemptedAt,
            outcome,
            durationMs: 9,
          },
        },
      ]);
    };
    await logged('SC000123', 'failed', 1);
    await logged('00001234', 'delivered', 2);
    await logged('00001234', 'failed', 3);
    const list = async (query: string) => {
      const response = await call('client-filters', 'GET', `/v1/webhooks/${id}/deliveries`, undefined, { id, query });
      return {
        status: response.status,
        body: bodyOf(response) as { items: Array<Record<string, unknown>>; error?: string; parameter?: string },
      };
    };

    const failed = await list('status=failed');
    const company = await list('companyNumber=1234&jurisdiction=gb');
    const both = await list('status=failed&companyNumber=sc123');

    expect(failed.body.items.map((item) => item.companyNumber)).toEqual(['SC000123', '00001234']);
    expect(company.body.items.map((item) => item.outcome)).toEqual(['delivered', 'failed']);
    expect(company.body.items[0]).toMatchObject({ jurisdiction: 'GB', companyNumber: '00001234', block: 'overview' });
    expect(both.body.items.map((item) => item.idempotencyKey)).toEqual(['profile.changed:GB:SC000123:overview:v1']);
    for (const [query, parameter, error] of [
      ['status=pending', 'status', 'invalid_status'],
      ['status=failed&status=delivered', 'status', 'invalid_status'],
      ['status=', 'status', 'invalid_status'],
      ['companyNumber=1234', 'jurisdiction', 'jurisdiction_required'],
      ['companyNumber=not-a-number&jurisdiction=GB', 'companyNumber', 'invalid_company_number'],
      ['companyNumber=1234&jurisdiction=FR', 'jurisdiction', 'invalid_jurisdiction'],
    ] as const) {
      const refused = await list(query);
      expect({ query, status: refused.status, error: refused.body.error, parameter: refused.body.parameter }).toEqual({
        query,
        status: 400,
        error,
        parameter,
      });
    }
  });

  it('recovers the dead deliveries since a time, page by page, with their original ids; refuses a bad since, a disabled subscription and another client', async () => {
    const id = bodyOf(await register('client-r')).id as string;
    const from = (offsetMs: number) => new Date(now.getTime() + offsetMs);
    const dead = (n: number, status: 'failed' | 'dropped' | 'delivered', minutesAgo: number) => {
      const lastAttemptAt = from(-minutesAgo * 60_000).toISOString();
      const deliveryId = `msg_${String(n).repeat(27).slice(0, 27)}`;
      const envelope = {
        type: 'profile.changed' as const,
        apiVersion: 'v1' as const,
        occurredAt: lastAttemptAt,
        idempotencyKey: `profile.changed:GB:0000000${n}:overview:v2`,
        block: 'overview' as const,
        data: { jurisdiction: 'GB' as const, companyNumber: `0000000${n}` },
      };
      return {
        delivery: { deliveryId, clientId: 'client-r', subscriptionId: id, envelope, status, attempts: 12, lastAttemptAt },
        attempt: {
          deliveryId,
          eventType: envelope.type,
          idempotencyKey: envelope.idempotencyKey,
          attempt: 12,
          attemptedAt: lastAttemptAt,
          outcome: status === 'dropped' ? ('dropped' as const) : status === 'delivered' ? ('delivered' as const) : ('failed' as const),
          durationMs: 3,
        },
      };
    };
    const entries = [dead(1, 'failed', 120), dead(2, 'dropped', 60), dead(3, 'delivered', 50), dead(4, 'failed', 30)];
    await log.recordMany(entries);
    const recover = (body: unknown, clientId = 'client-r') => call(clientId, 'POST', `/v1/webhooks/${id}/recover`, body, { id });

    const sent = queued.length;
    const recovered = await recover({ since: from(-90 * 60_000).toISOString() });
    expect(recovered.status).toBe(202);
    expect(bodyOf(recovered)).toEqual({ since: from(-90 * 60_000).toISOString(), queued: 2, nextCursor: null });
    expect(queued.slice(sent)).toEqual(
      [entries[1], entries[3]].map((entry, slot) => ({
        deliveryId: entry?.delivery.deliveryId,
        clientId: 'client-r',
        subscriptionId: id,
        envelope: entry?.delivery.envelope,
        recovered: true,
        scheduleFrom: 12,
        dueAt: from(slot * 1000).toISOString(),
      })),
    );

    // Pages go on from the cursor; what a recovery has queued is not found dead again until its next attempt.
    const first = await log.deadSince(id, from(-3 * 3600_000), { limit: 2 });
    expect(first.items.map((item) => item.deliveryId)).toEqual([entries[0]?.delivery.deliveryId]);
    const second = await log.deadSince(id, from(-3 * 3600_000), { limit: 2, cursor: first.nextCursor as string });
    expect(second.items).toEqual([]);
    expect(bodyOf(await recover({ since: from(-90 * 60_000).toISOString() }))).toMatchObject({ queued: 0 });

    for (const [body, field] of [
      [{}, 'since'],
      [{ since: 'yesterday' }, 'since'],
      [{ since: '2026-11-24' }, 'since'],
      [{ since: from(-15 * 24 * 3600_000).toISOString() }, 'since'],
      [{ since: from(3600_000).toISOString() }, 'since'],
      [{ since: from(-60_000).toISOString(), cursor: 'not-ours' }, 'cursor'],
      [{ since: from(-60_000).toISOString(), cursor: 7 }, 'cursor'],
    ] as const) {
      const refused = await recover(body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(bodyOf(refused)).toMatchObject({ error: `invalid_${field}`, field });
    }
    expect((await recover({ since: from(-60_000).toISOString() }, 'client-s')).status).toBe(404);
    await call('client-r', 'PATCH', `/v1/webhooks/${id}`, { status: 'DISABLED' }, { id });
    const disabled = await recover({ since: from(-60_000).toISOString() });
    expect(disabled.status).toBe(409);
    expect(bodyOf(disabled)).toMatchObject({ error: 'webhook_disabled' });
    expect(queued.length).toBe(sent + 2);
  });

  describe('recovered at once by many calls', () => {
    const deadFor = (clientId: string, subscriptionId: string, count: number) =>
      Array.from({ length: count }, (_, n) => {
        const lastAttemptAt = new Date(now.getTime() - (count - n) * 60_000).toISOString();
        const deliveryId = `msg_${String(n).padStart(27, 'x')}`;
        const envelope = {
          type: 'profile.changed' as const,
          apiVersion: 'v1' as const,
          occurredAt: lastAttemptAt,
          idempotencyKey: `profile.changed:GB:${String(n).padStart(8, '0')}:overview:v2`,
          block: 'overview' as const,
          data: { jurisdiction: 'GB' as const, companyNumber: String(n).padStart(8, '0') },
        };
        return {
          delivery: { deliveryId, clientId, subscriptionId, envelope, status: 'failed' as const, attempts: 12, lastAttemptAt },
          attempt: {
            deliveryId,
            eventType: envelope.type,
            idempotencyKey: envelope.idempotencyKey,
            attempt: 12,
            attemptedAt: lastAttemptAt,
            outcome: 'failed' as const,
            durationMs: 3,
          },
        };
      });

    it('queue each dead delivery once, one a second per subscription, each due at its slot', async () => {
      const id = bodyOf(await register('client-burst')).id as string;
      await log.recordMany(deadFor('client-burst', id, 40));
      const since = new Date(now.getTime() - 3600_000).toISOString();
      const sent = queued.length;

      const answers = await Promise.all(
        Array.from({ length: 10 }, () => call('client-burst', 'POST', `/v1/webhooks/${id}/recover`, { since }, { id })),
      );

      expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(202));
      const mine = queued.slice(sent);
      expect(answers.reduce((sum, answer) => sum + (bodyOf(answer).queued as number), 0)).toBe(40);
      expect(mine).toHaveLength(40);
      expect(new Set(mine.map((message) => message.deliveryId)).size).toBe(40);
      // Slots of one second: no two deliveries of the subscription share one, the first is due now.
      const slots = mine.map((message) => Date.parse(message.dueAt as string) - now.getTime()).sort((a, b) => a - b);
      expect(slots[0]).toBe(0);
      expect(new Set(slots).size).toBe(40);
      expect(slots.every((slot, index) => index === 0 || slot - (slots[index - 1] as number) >= 1000)).toBe(true);
    });

    it(`refuse to book a subscription's recoveries more than ${RECOVERY_BACKLOG_MINUTES} minutes ahead, leaving its deliveries to a later call`, async () => {
      const id = bodyOf(await register('client-backlog')).id as string;
      await log.recordMany(deadFor('client-backlog', id, 5));
      const since = new Date(now.getTime() - 3600_000).toISOString();
      // Another recovery has booked the schedule to within two seconds of its end.
      const booked = RECOVERY_BACKLOG_MINUTES * RECOVERY_PACE_PER_MINUTE - 2;
      await log.reserveRecoverySlots(id, booked, { now, intervalMs: 60_000 / RECOVERY_PACE_PER_MINUTE });
      const sent = queued.length;

      const refused = await call('client-backlog', 'POST', `/v1/webhooks/${id}/recover`, { since }, { id });

      expect(refused.status).toBe(429);
      expect(bodyOf(refused)).toMatchObject({ error: 'recovery_backlog' });
      expect(refused.headers?.['retry-after']).toBe('3');
      expect(queued.length).toBe(sent);
      expect((await log.deadSince(id, new Date(since), { limit: 10 })).items).toHaveLength(5);
    });
  });
});
