import { beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../../shared/auth/tokens';
import { HttpError } from '../../../shared/http/errors';
import { problem } from '../../../shared/http/responses';
import type { HttpResponse } from '../../../shared/http/types';
import { webhooksTable } from '../../../shared/storage/tables';
import { DynamoSubscriptionStore } from '../../../shared/webhooks/dynamo-subscription-store';
import { MAX_SUBSCRIPTIONS_PER_CLIENT } from '../../../shared/webhooks/subscription';
import { Subscriptions } from '../../../shared/webhooks/subscriptions';
import { createWebhooksEndpoint } from '../../../shared/webhooks/webhooks-endpoint';
import { createTestTables } from '../../support/dynamo';
import { httpRequest } from '../../support/http-fixtures';

let endpoint: ReturnType<typeof createWebhooksEndpoint>;
let now = new Date('2026-03-01T12:00:00.000Z');

beforeAll(async () => {
  const tables = await createTestTables([webhooksTable]);
  endpoint = createWebhooksEndpoint(
    new Subscriptions({
      store: new DynamoSubscriptionStore(tables.doc, tables.names.webhooks as string),
      resolve: async (hostname) =>
        hostname === 'hooks.example.com' ? ['93.184.215.14'] : hostname === 'intranet.example.com' ? ['10.0.0.5'] : [],
      clock: () => now,
    }),
  );
});

const principal = (clientId: string): Principal => ({ clientId, tokenId: 't', expiresAt: 2_000_000_000 });

/** One call as the protected route makes it, client errors turned into their responses. */
async function call(
  clientId: string,
  method: string,
  path: string,
  body?: unknown,
  options: { contentType?: string; id?: string; query?: string } = {},
): Promise<HttpResponse> {
  const request = httpRequest({
    method,
    path,
    pathParameters: options.id === undefined ? {} : { id: options.id },
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
      createdAt: '2026-03-01T12:00:00.000Z',
      updatedAt: '2026-03-01T12:00:00.000Z',
    });
    expect(Buffer.from((bodyOf(created).signingSecret as string).slice(6), 'base64')).toHaveLength(32);
    expect(read.body).toEqual(created.body);
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
    now = new Date('2026-03-01T13:00:00.000Z');

    const changed = await call('client-e', 'PATCH', `/v1/webhooks/${id}`, { status: 'DISABLED', name: 'Staging' }, { id });
    const deleted = await call('client-e', 'DELETE', `/v1/webhooks/${id}`, undefined, { id });
    const gone = await call('client-e', 'GET', `/v1/webhooks/${id}`, undefined, { id });

    expect(bodyOf(changed)).toMatchObject({ status: 'DISABLED', name: 'Staging', updatedAt: '2026-03-01T13:00:00.000Z' });
    expect(deleted.status).toBe(204);
    expect(gone.status).toBe(404);
  });

  it('get a new signing secret on rotation, the previous one signing beside it for a day', async () => {
    const created = bodyOf(await register('client-f'));
    now = new Date('2026-03-02T09:00:00.000Z');

    const rotated = await call('client-f', 'POST', `/v1/webhooks/${created.id}/rotate-secret`, undefined, { id: created.id as string });

    expect(bodyOf(rotated).signingSecret).not.toBe(created.signingSecret);
    expect(bodyOf(rotated)).toMatchObject({ previousSigningSecretExpiresAt: '2026-03-03T09:00:00.000Z', updatedAt: now.toISOString() });
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
    ['an unknown field', { name: 'x', url: 'https://hooks.example.com/in', secret: 'mine' }, 400, 'invalid_body', { field: 'secret' }],
    ['a field given twice', '{"name":"x","url":"https://hooks.example.com/in","name":"y"}', 400, 'invalid_body', { field: 'name' }],
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
