import { beforeAll, describe, expect, it } from 'vitest';
import { useTestRuntime } from '../support/runtime';

/**
 * Every field a client or a person can send, and every identifier in a path, filled with values far
 * longer than any real one: each must be refused with a JSON 4xx before it becomes a DynamoDB key,
 * never reach storage and come back as a 500.
 */
const bureau = useTestRuntime();
const SIZES: readonly (readonly [string, string])[] = [
  ['3,000 characters', 'a'.repeat(3000)],
  ['7,000 characters', 'b'.repeat(7000)],
  ['2,000 three-byte characters', '€'.repeat(2000)],
  ['1,500 four-byte characters', '😀'.repeat(1500)],
];

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely; the assertions check what matters here
type Loose = any;
let token: string;
let webhookId: string;
let session: { cookie: string; csrf: string };

interface Answer {
  readonly status: number;
  readonly body: Loose;
}

async function call(path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const response = await fetch(`${bureau().baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await response.text();
  let body: Loose;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, body };
}

const api = (path: string, method = 'GET', body?: unknown) =>
  call(path, { method, headers: { authorization: `Bearer ${token}` }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

const workspace = (path: string, method = 'GET', body?: unknown) =>
  call(`/workspace/api/${path}`, {
    method,
    headers: { origin: bureau().baseUrl, cookie: session.cookie, 'x-csrf-token': session.csrf },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

beforeAll(async () => {
  token = await bureau().fetchToken();
  webhookId = (await api('/v1/webhooks', 'POST', { name: 'Oversized', url: 'https://hooks.example.com/in' })).body.id;
  const invitation = (bureau().runtime.workspace.invitationLink ?? '').split('/').at(-1);
  const response = await fetch(`${bureau().baseUrl}/workspace/api/invitations/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: bureau().baseUrl },
    body: JSON.stringify({ token: invitation, password: 'harbour lantern quietly orbits' }),
  });
  session = {
    cookie: (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
    csrf: ((await response.json()) as { csrfToken: string }).csrfToken,
  };
}, 60_000);

/** A WebAuthn answer whose every field is `big`, to a challenge the service really issued. */
async function passkeyAnswer(optionsPath: string, big: string, viaSession: boolean) {
  const options = viaSession
    ? await workspace(optionsPath, 'POST')
    : await call(`/workspace/api/${optionsPath}`, { method: 'POST', headers: { origin: bureau().baseUrl } });
  const response = {
    id: big,
    rawId: big,
    type: 'public-key',
    clientExtensionResults: {},
    response: { clientDataJSON: big, authenticatorData: big, signature: big, attestationObject: big },
  };
  return { challengeId: options.body.challengeId as string, response };
}

type Case = readonly [string, (big: string) => Promise<Answer>];
const enc = encodeURIComponent;

const cases: readonly Case[] = [
  [
    'token: client_id',
    (big) =>
      call('/v1/oauth/token', {
        method: 'POST',
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: big, client_secret: 'x'.repeat(40) }),
      }),
  ],
  [
    'token: client_secret',
    (big) =>
      call('/v1/oauth/token', {
        method: 'POST',
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'cli_x', client_secret: big }),
      }),
  ],
  [
    'token: grant_type',
    (big) => call('/v1/oauth/token', { method: 'POST', body: JSON.stringify({ grant_type: big, client_id: 'cli_x', client_secret: 'x' }) }),
  ],
  [
    'token: a form client_id',
    (big) =>
      call('/v1/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `grant_type=client_credentials&client_id=${enc(big)}&client_secret=x`,
      }),
  ],
  ['search: q', (big) => api(`/v1/search?jurisdiction=GB&q=${enc(big)}`)],
  ['search: cursor', (big) => api(`/v1/search?jurisdiction=GB&q=acme&cursor=${enc(big)}`)],
  ['search: jurisdiction', (big) => api(`/v1/search?jurisdiction=${enc(big)}&q=acme`)],
  ['profile: company number', (big) => api(`/v1/profile/${enc(big)}?jurisdiction=GB`)],
  ['profile: jurisdiction', (big) => api(`/v1/profile/15380840?jurisdiction=${enc(big)}`)],
  ['watches: cursor', (big) => api(`/v1/watches?cursor=${enc(big)}`)],
  ...['cursor', 'type', 'block', 'jurisdiction', 'companyNumber', 'since', 'until'].map(
    (parameter) => [`events: ${parameter}`, (big: string) => api(`/v1/events?${parameter}=${enc(big)}`)] as const,
  ),
  ['webhooks: name', (big) => api('/v1/webhooks', 'POST', { name: big, url: 'https://hooks.example.com/in' })],
  [
    'webhooks: a filtered company',
    (big) => api('/v1/webhooks', 'POST', { name: 'x', url: 'https://hooks.example.com/in', filters: { companies: [`GB:${big}`] } }),
  ],
  ['webhooks: a changed filter', (big) => api(`/v1/webhooks/${webhookId}`, 'PATCH', { filters: { blocks: [big] } })],
  ['webhooks: a filter field', (big) => api(`/v1/webhooks/${webhookId}`, 'PATCH', { filters: { [big]: ['GB'] } })],
  ['webhooks: url', (big) => api('/v1/webhooks', 'POST', { name: 'x', url: `https://hooks.example.com/${big}` })],
  ['webhooks: list cursor', (big) => api(`/v1/webhooks?cursor=${enc(big)}`)],
  ['webhooks: id to read', (big) => api(`/v1/webhooks/${enc(big)}`)],
  ['webhooks: id to change', (big) => api(`/v1/webhooks/${enc(big)}`, 'PATCH', { name: 'x' })],
  ['webhooks: id to delete', (big) => api(`/v1/webhooks/${enc(big)}`, 'DELETE')],
  ['webhooks: id to test', (big) => api(`/v1/webhooks/${enc(big)}/test`, 'POST')],
  ['webhooks: id to rotate', (big) => api(`/v1/webhooks/${enc(big)}/rotate-secret`, 'POST')],
  ['webhooks: a changed name', (big) => api(`/v1/webhooks/${webhookId}`, 'PATCH', { name: big })],
  ['webhooks: a changed status', (big) => api(`/v1/webhooks/${webhookId}`, 'PATCH', { status: big })],
  ['webhooks: a deliveries cursor', (big) => api(`/v1/webhooks/${webhookId}/deliveries?cursor=${enc(big)}`)],
  ['webhooks: a delivery id to retry', (big) => api(`/v1/webhooks/${webhookId}/deliveries/${enc(big)}/retry`, 'POST')],
  ['webhooks: id to recover', (big) => api(`/v1/webhooks/${enc(big)}/recover`, 'POST', { since: new Date().toISOString() })],
  ['webhooks: a recovery since', (big) => api(`/v1/webhooks/${webhookId}/recover`, 'POST', { since: big })],
  [
    'webhooks: a recovery cursor',
    (big) => api(`/v1/webhooks/${webhookId}/recover`, 'POST', { since: new Date().toISOString(), cursor: big }),
  ],
  [
    'workspace: sign-in e-mail',
    (big) =>
      call('/workspace/api/sign-in', {
        method: 'POST',
        headers: { origin: bureau().baseUrl },
        body: JSON.stringify({ email: `${big}@acme.example`, password: 'x' }),
      }),
  ],
  [
    'workspace: sign-in password',
    (big) =>
      call('/workspace/api/sign-in', {
        method: 'POST',
        headers: { origin: bureau().baseUrl },
        body: JSON.stringify({ email: 'a@acme.example', password: big }),
      }),
  ],
  [
    'workspace: invitation token',
    (big) =>
      call('/workspace/api/invitations/accept', {
        method: 'POST',
        headers: { origin: bureau().baseUrl },
        body: JSON.stringify({ token: big, password: 'harbour lantern quietly orbits' }),
      }),
  ],
  [
    'workspace: invitation password',
    (big) =>
      call('/workspace/api/invitations/accept', {
        method: 'POST',
        headers: { origin: bureau().baseUrl },
        body: JSON.stringify({ token: 'A'.repeat(43), password: big }),
      }),
  ],
  [
    'workspace: passkey sign-in challenge id',
    (big) =>
      call('/workspace/api/passkey-sign-in', {
        method: 'POST',
        headers: { origin: bureau().baseUrl },
        body: JSON.stringify({ challengeId: big, response: { id: 'x' } }),
      }),
  ],
  [
    'workspace: passkey sign-in answer',
    async (big) =>
      call('/workspace/api/passkey-sign-in', {
        method: 'POST',
        headers: { origin: bureau().baseUrl },
        body: JSON.stringify(await passkeyAnswer('passkey-sign-in/options', big, false)),
      }),
  ],
  [
    'workspace: passkey registration answer',
    async (big) => workspace('passkeys', 'POST', await passkeyAnswer('passkeys/registration-options', big, true)),
  ],
  ['workspace: passkey registration challenge id', (big) => workspace('passkeys', 'POST', { challengeId: big, response: { id: 'x' } })],
  ['workspace: portfolio search', (big) => workspace(`portfolio?q=${enc(big)}`)],
  ['workspace: portfolio cursor', (big) => workspace(`portfolio?cursor=${enc(big)}`)],
  ['workspace: company number', (big) => workspace(`companies/GB/${enc(big)}`)],
  ['workspace: webhook name', (big) => workspace('webhooks', 'POST', { name: big, url: 'https://hooks.example.com/in' })],
  ['workspace: webhook id', (big) => workspace(`webhooks/${enc(big)}`)],
  ['workspace: a changed filter', (big) => workspace(`webhooks/${webhookId}`, 'PATCH', { filters: { eventTypes: [big] } })],
  ['workspace: webhook id for delivery stats', (big) => workspace(`webhooks/${enc(big)}/delivery-stats`)],
  ['workspace: delivery id to retry', (big) => workspace(`webhooks/${webhookId}/deliveries/${enc(big)}/retry`, 'POST')],
];

describe('an oversized value in any field or path', () => {
  it.each(cases.flatMap(([field, send]) => SIZES.map(([size, big]) => [`${field}, ${size}`, send, big] as const)))(
    '%s: a JSON 4xx, never a 5xx',
    async (_name, send, big) => {
      const answer = await send(big);

      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(answer.body, JSON.stringify(answer.body).slice(0, 200)).toMatchObject({ error: expect.any(String) });
    },
  );
});
