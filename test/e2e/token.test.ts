import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadAuthConfig } from '../../shared/auth/config';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { ipFailureRateKey, RATE_KEY_PREFIX, RATE_WINDOW_SECONDS } from '../../shared/auth/rate-limit';
import { parseKeySet } from '../../shared/auth/signing-keys';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { basicAuthorization } from '../support/http-fixtures';
import { countingWindows, judgedBy } from '../support/rate-counters';
import { useTestRuntime } from '../support/runtime';

/** Small on purpose: the lock-out test needs only a handful of failures. */
const FAILURES_PER_IP = 5;
/** Revocation is checked against a client record cached this long; short so the test need not wait 30 s. */
const CLIENT_CACHE_SECONDS = 1;
const bureau = useTestRuntime({
  TOKEN_FAILURES_PER_IP_PER_MINUTE: String(FAILURES_PER_IP),
  CLIENT_CACHE_SECONDS: String(CLIENT_CACHE_SECONDS),
});
let doc: DynamoDBDocumentClient;
let registry: DynamoClientRegistry;

const LOOPBACK = '127.0.0.1';
const INVALID_CLIENT = { error: 'invalid_client', error_description: 'Client authentication failed.' };

beforeAll(() => {
  doc = createDocumentClient(createDynamoClient(bureau().runtime.env));
  registry = new DynamoClientRegistry(doc, bureau().runtime.tables.clients as string);
});

/** Every request here comes from loopback; each test starts with that address's failure count at zero. */
async function forgetFailuresFromLoopback(): Promise<void> {
  const table = bureau().runtime.tables.clients as string;
  const key = ipFailureRateKey(LOOPBACK);
  const windows = await countingWindows(doc, table, key);
  const deletes = windows.map((window) => ({ DeleteRequest: { Key: { pk: RATE_KEY_PREFIX + key, sk: String(window.start) } } }));
  if (deletes.length > 0) await doc.send(new BatchWriteCommand({ RequestItems: { [table]: deletes } }));
}

beforeEach(forgetFailuresFromLoopback);

/** Counts live in fixed minute windows: start a counting test far enough from a boundary that it stays in one window. */
async function awayFromWindowEdge(secondsNeeded = 5): Promise<void> {
  const intoWindow = (Date.now() / 1000) % RATE_WINDOW_SECONDS;
  if (intoWindow > RATE_WINDOW_SECONDS - secondsNeeded) await sleep((RATE_WINDOW_SECONDS - intoWindow) * 1000 + 50);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const tokenUrl = () => `${bureau().baseUrl}/v1/oauth/token`;

const postJson = (body: unknown) =>
  fetch(tokenUrl(), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const jsonGrant = (clientId: string, clientSecret: string) =>
  postJson({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });

async function accessTokenOf(response: Response): Promise<string> {
  const body = (await response.json()) as { access_token?: unknown };
  if (response.status !== 200 || typeof body.access_token !== 'string') throw new Error(`expected a token, got ${response.status}`);
  return body.access_token;
}

const watches = (token: string) => fetch(`${bureau().baseUrl}/v1/watches`, { headers: { authorization: `Bearer ${token}` } });

describe('POST /v1/oauth/token over HTTP', () => {
  it('issues a one-hour bearer token for the JSON grant, never to be cached', async () => {
    const { clientId, clientSecret } = bureau().demoClient;

    const response = await jsonGrant(clientId, clientSecret);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({
      access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      token_type: 'Bearer',
      expires_in: 3600,
    });
  });

  it('accepts a form-urlencoded grant with the credentials in the body', async () => {
    const { clientId, clientSecret } = bureau().demoClient;

    const response = await fetch(tokenUrl(), {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    });

    expect(response.headers.get('cache-control')).toBe('no-store');
    expect((await watches(await accessTokenOf(response))).status).toBe(200);
  });

  it('accepts a form grant with HTTP Basic, decoding a secret that needed form-urlencoding', async () => {
    const awkwardSecret = `s3cret:with+plus%25percent&amp/slash=equals~${'x'.repeat(16)}`;
    const { client } = await registry.create({ name: 'Basic with awkward secret', secret: awkwardSecret });

    const response = await fetch(tokenUrl(), {
      method: 'POST',
      headers: { authorization: basicAuthorization(client.clientId, awkwardSecret) },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });

    expect(response.status).toBe(200);
    expect((await watches(await accessTokenOf(response))).status).toBe(200);
  });

  it('issues an EdDSA JWT with issuer, audience, subject, times, id and the kid of a published key', async () => {
    const { clientId, clientSecret } = bureau().demoClient;
    const { issuer, audience } = loadAuthConfig(bureau().runtime.functionEnvironments.token);
    const before = Math.floor(Date.now() / 1000);

    const token = await accessTokenOf(await jsonGrant(clientId, clientSecret));
    const jwks = (await (await fetch(`${bureau().baseUrl}/v1/.well-known/jwks.json`)).json()) as JSONWebKeySet;

    const header = decodeProtectedHeader(token);
    const claims = decodeJwt(token);
    expect(header).toMatchObject({ alg: 'EdDSA', kid: expect.any(String) });
    expect(jwks.keys.map((key) => key.kid)).toContain(header.kid);
    expect(claims).toMatchObject({ iss: issuer, aud: audience, sub: clientId, jti: expect.any(String) });
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(claims.iat).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(claims.exp).toBe((claims.iat as number) + 3600);
    await expect(jwtVerify(token, createLocalJWKSet(jwks), { issuer, audience, algorithms: ['EdDSA'] })).resolves.toBeDefined();
  });

  it('gives every token its own id', async () => {
    const { clientId, clientSecret } = bureau().demoClient;

    const first = decodeJwt(await accessTokenOf(await jsonGrant(clientId, clientSecret)));
    const second = decodeJwt(await accessTokenOf(await jsonGrant(clientId, clientSecret)));

    expect(first.jti).not.toBe(second.jti);
  });

  it('issues tokens that a protected route accepts as the client', async () => {
    const token = await bureau().fetchToken();

    const response = await watches(token);

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ items: expect.any(Array), nextCursor: null });
  });
});

describe('token request errors over HTTP', () => {
  const expectOAuthError = async (response: Response, status: number, error: string) => {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
    expect(body.error).toBe(error);
    return body;
  };

  it('answers malformed JSON with 400 invalid_request saying so', async () => {
    const body = await expectOAuthError(await postJson('{"grant_type": "client_credentials",'), 400, 'invalid_request');

    expect(body.error_description).toMatch(/JSON/);
  });

  it.each(['grant_type', 'client_id', 'client_secret'])('answers a request without %s with 400 naming it', async (field) => {
    const { clientId, clientSecret } = bureau().demoClient;
    const body: Record<string, string> = { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret };
    delete body[field];

    const answer = await expectOAuthError(await postJson(body), 400, 'invalid_request');

    expect(answer.error_description).toContain(field);
  });

  it('answers a JSON body that names a field twice with 400, as it does a form body', async () => {
    const { clientId, clientSecret } = bureau().demoClient;
    const twice = `{"grant_type":"client_credentials","client_id":"someone-else","client_secret":"${clientSecret}","client_id":"${clientId}"}`;

    const json = await expectOAuthError(await postJson(twice), 400, 'invalid_request');
    const form = await fetch(tokenUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=someone-else&client_id=${clientId}&client_secret=${encodeURIComponent(clientSecret)}`,
    });

    expect(json.error_description).toBe('Each parameter may be sent once; client_id is repeated.');
    expect(form.status).toBe(400);
    expect(await form.json()).toEqual({ error: 'invalid_request', error_description: json.error_description });
  });

  it('answers an unsupported content type with 400 naming the accepted ones', async () => {
    const { clientId, clientSecret } = bureau().demoClient;

    const response = await fetch(tokenUrl(), {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    });

    const body = await expectOAuthError(response, 400, 'invalid_request');
    expect(body.error_description).toContain('application/json');
  });

  it('answers another grant type with 400 unsupported_grant_type', async () => {
    const { clientId, clientSecret } = bureau().demoClient;

    const response = await postJson({ grant_type: 'password', client_id: clientId, client_secret: clientSecret });

    await expectOAuthError(response, 400, 'unsupported_grant_type');
  });

  it('answers an unknown client id and a wrong secret with the same 401', async () => {
    const { clientId, clientSecret } = bureau().demoClient;

    const unknown = await jsonGrant('no-such-client', clientSecret);
    const wrongSecret = await jsonGrant(clientId, `${clientSecret.slice(0, -1)}X`);

    expect(await expectOAuthError(unknown, 401, 'invalid_client')).toEqual(INVALID_CLIENT);
    expect(await expectOAuthError(wrongSecret, 401, 'invalid_client')).toEqual(INVALID_CLIENT);
    expect(unknown.headers.get('www-authenticate')).toBeNull();
    expect(wrongSecret.headers.get('www-authenticate')).toBeNull();
  });

  it('answers failed HTTP Basic authentication with 401 and a Basic challenge', async () => {
    const { clientId } = bureau().demoClient;

    const response = await fetch(tokenUrl(), {
      method: 'POST',
      headers: { authorization: basicAuthorization(clientId, 'not-the-secret-at-all') },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });

    await expectOAuthError(response, 401, 'invalid_client');
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="bureau"');
  });

  it('answers a GET on the token path with a 4xx JSON error', async () => {
    const response = await fetch(tokenUrl());

    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(response.headers.get('content-type')).toMatch(/json/);
    expect(await response.json()).toMatchObject({ error: expect.any(String) });
  });
});

describe('GET /v1/.well-known/jwks.json over HTTP', () => {
  it('publishes the public half of the signing key and nothing private', async () => {
    const keySet = parseKeySet(readFileSync(join(bureau().runtime.dataDir, 'signing-keys.json'), 'utf8'));
    const current = keySet.keys.find((key) => key.kid === keySet.current);

    const response = await fetch(`${bureau().baseUrl}/v1/.well-known/jwks.json`);
    const text = await response.text();
    const jwks = JSON.parse(text) as { keys: Array<Record<string, unknown>> };

    expect(response.status).toBe(200);
    expect(jwks.keys).toContainEqual({ kty: 'OKP', crv: 'Ed25519', x: current?.x, kid: keySet.current, alg: 'EdDSA', use: 'sig' });
    for (const key of jwks.keys) expect(key).not.toHaveProperty('d');
    for (const key of keySet.keys) expect(text).not.toContain(key.d);
  });
});

describe('rate limits on the token endpoint', () => {
  it('answers 429 with Retry-After and RateLimit headers once a client has used its allowance', async () => {
    const { client, secret } = await registry.create({ name: 'Three a minute', rateLimitPerMinute: 3 });
    await awayFromWindowEdge();

    const allowed = [
      await jsonGrant(client.clientId, secret),
      await jsonGrant(client.clientId, secret),
      await jsonGrant(client.clientId, secret),
    ];
    const refused = await jsonGrant(client.clientId, secret);

    expect(allowed.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(allowed.map((response) => response.headers.get('ratelimit'))).toEqual([
      expect.stringMatching(/^"default";r=2;t=\d+$/),
      expect.stringMatching(/^"default";r=1;t=\d+$/),
      expect.stringMatching(/^"default";r=0;t=\d+$/),
    ]);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      error: 'rate_limited',
      error_description: expect.stringContaining('3 requests per minute'),
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= RATE_WINDOW_SECONDS).toBe(true);
    expect(refused.headers.get('ratelimit-policy')).toBe('"default";q=3;w=60');
    expect(refused.headers.get('ratelimit')).toBe(`"default";r=0;t=${retryAfter}`);
  });

  it('answers failures past the address limit with 429, and still gives good credentials from that address a token', async () => {
    const { clientId, clientSecret } = bureau().demoClient;
    await awayFromWindowEdge();

    const failures: number[] = [];
    for (let attempt = 0; attempt < FAILURES_PER_IP; attempt++) failures.push((await jsonGrant(`guess-${attempt}`, 'wrong-secret')).status);
    const throttled = await jsonGrant(clientId, 'wrong-secret');
    const good = await jsonGrant(clientId, clientSecret);

    expect(failures).toEqual(Array(FAILURES_PER_IP).fill(401));
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(throttled.headers.get('ratelimit-policy')).toBe(`"token-failures";q=${FAILURES_PER_IP};w=60`);
    expect(await throttled.json()).toMatchObject({ error: 'rate_limited' });
    expect(good.status).toBe(200);
  });

  it('holds the address limit against a burst of 150 wrong secrets at once, without a server error', { timeout: 60_000 }, async () => {
    const { client } = await registry.create({ name: 'Burst target' });
    await awayFromWindowEdge(10);

    const responses = await Promise.all(Array.from({ length: 150 }, () => jsonGrant(client.clientId, 'wrong-secret')));

    // Every one is answered, none gets through the limit, and the rest are refused (by the address
    // limit, or by instances all being busy). The limit holds per window the burst touched; a 401
    // from an instance whose limiter failed open (policy, no live count) is judged by that instance alone.
    const windows = await countingWindows(doc, bureau().runtime.tables.clients as string, ipFailureRateKey(LOOPBACK));
    const statuses = responses.map((response) => response.status);
    const refusedAsInvalid = responses.filter((response) => response.status === 401);
    expect(refusedAsInvalid.length).toBeGreaterThan(0);
    expect(refusedAsInvalid.filter((response) => judgedBy(response) === 'counter').length).toBeLessThanOrEqual(
      FAILURES_PER_IP * windows.length,
    );
    expect(statuses.filter((status) => status === 429)).toHaveLength(150 - refusedAsInvalid.length);
  });

  it('lets no one who knows a client id use up that client’s quota', { timeout: 60_000 }, async () => {
    const { client, secret } = await registry.create({ name: 'Quota target', rateLimitPerMinute: 10 });
    await awayFromWindowEdge(10);
    for (let attempt = 0; attempt < 60; attempt++) await jsonGrant(client.clientId, 'wrong-secret');

    const token = await accessTokenOf(await jsonGrant(client.clientId, secret));
    const call = await watches(token);

    expect(call.status).toBe(200);
    expect(call.headers.get('ratelimit')).toMatch(/^"default";r=8;t=\d+$/);
  });
});

describe('a disabled client', () => {
  it('gets no new token, and its outstanding token stops working once the cached record expires', async () => {
    const { client, secret } = await registry.create({ name: 'About to be disabled' });
    const token = await accessTokenOf(await jsonGrant(client.clientId, secret));
    expect((await watches(token)).status).toBe(200);

    await registry.disable(client.clientId);
    const tokenRequest = await jsonGrant(client.clientId, secret);
    await sleep(CLIENT_CACHE_SECONDS * 1000 + 200);
    const oldToken = await watches(token);

    expect(tokenRequest.status).toBe(401);
    expect(await tokenRequest.json()).toEqual(INVALID_CLIENT);
    expect(oldToken.status).toBe(401);
    expect(oldToken.headers.get('www-authenticate')).toMatch(/^Bearer realm="bureau", error="invalid_token"/);
    expect(await oldToken.json()).toMatchObject({ error: 'invalid_token' });
  });
});
