import { beforeAll, describe, expect, it } from 'vitest';
import { useTestRuntime } from '../support/runtime';

const bureau = useTestRuntime();
let token: string;

beforeAll(async () => {
  token = await bureau().fetchToken();
});

const api = (path: string, init: { method?: string; body?: unknown } = {}) =>
  fetch(`${bureau().baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

describe('webhook subscriptions over HTTP', () => {
  it('are registered, read, listed, changed, given a new secret and deleted through their routes', async () => {
    // An address literal: accepted without a DNS look-up, and no delivery is ever sent to it here.
    const created = await api('/v1/webhooks', { method: 'POST', body: { name: 'Production', url: 'https://93.184.215.14/bureau' } });
    const subscription = (await created.json()) as { id: string; signingSecret: string };
    const path = `/v1/webhooks/${subscription.id}`;

    const read = await api(path);
    const listed = await api('/v1/webhooks');
    const changed = await api(path, { method: 'PATCH', body: { status: 'DISABLED' } });
    const rotated = await api(`${path}/rotate-secret`, { method: 'POST' });
    const deleted = await api(path, { method: 'DELETE' });
    const gone = await api(path);

    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(path);
    expect(read.status).toBe(200);
    expect(((await listed.json()) as { items: { id: string }[] }).items.map((item) => item.id)).toContain(subscription.id);
    expect(await changed.json()).toMatchObject({ status: 'DISABLED' });
    expect(((await rotated.json()) as { signingSecret: string }).signingSecret).not.toBe(subscription.signingSecret);
    expect(deleted.status).toBe(204);
    expect(gone.status).toBe(404);
  });

  it('refuse an endpoint on a private address, naming the rule, and need a bearer token', async () => {
    const refused = await api('/v1/webhooks', { method: 'POST', body: { name: 'Metadata', url: 'https://169.254.169.254/latest' } });
    const anonymous = await fetch(`${bureau().baseUrl}/v1/webhooks`);

    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_url', rule: 'address_not_public', field: 'url' });
    expect(anonymous.status).toBe(401);
  });
});

describe('webhook delivery routes under hostile input', () => {
  it('answer every malformed id, cursor and path with a 4xx JSON problem, never a 5xx', async () => {
    const created = await api('/v1/webhooks', { method: 'POST', body: { name: 'Hostile', url: 'https://93.184.215.14/hook' } });
    const { id } = (await created.json()) as { id: string };
    const long = 'x'.repeat(2000);
    const cases: Array<[string, string]> = [
      ['POST', `/v1/webhooks/${long}/test`],
      ['POST', '/v1/webhooks/%00%ff/test'],
      ['GET', `/v1/webhooks/${long}/deliveries`],
      ['GET', `/v1/webhooks/${id}/deliveries?cursor=${long}`],
      ['GET', `/v1/webhooks/${id}/deliveries?cursor=eyJiZWZvcmUiOiJBVFRFTVBUI34ifQ`],
      ['GET', `/v1/webhooks/${id}/deliveries?limit=0`],
      ['GET', `/v1/webhooks/${id}/deliveries?limit=%ZZ`],
      ['POST', `/v1/webhooks/${id}/deliveries/${long}/retry`],
      ['POST', `/v1/webhooks/${id}/deliveries/msg_${'a'.repeat(27)}/retry`],
      ['POST', `/v1/webhooks/${id}/deliveries/%F0%9F%92%A9/retry`],
      ['DELETE', `/v1/webhooks/${id}/deliveries`],
    ];
    for (const [method, path] of cases) {
      const response = await api(path, { method });
      expect(response.status, `${method} ${path.slice(0, 80)}`).toBeGreaterThanOrEqual(400);
      expect(response.status, `${method} ${path.slice(0, 80)}`).toBeLessThan(500);
      expect(response.headers.get('content-type'), `${method} ${path.slice(0, 80)}`).toMatch(/json/);
    }
  });
});
