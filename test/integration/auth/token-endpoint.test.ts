import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLocalSigningKeys, FileKeySetSource } from '../../../local/key-file';
import { CachedClientLookup } from '../../../shared/auth/client-cache';
import { DynamoClientRegistry } from '../../../shared/auth/dynamo-client-registry';
import { type ProtectionDeps, protectedRoute } from '../../../shared/auth/protect';
import { PublishedJwksStore } from '../../../shared/auth/published-jwks-store';
import { clientRateKey, RATE_KEY_PREFIX, RateLimiter } from '../../../shared/auth/rate-limit';
import { RecentCredentials } from '../../../shared/auth/recent-credentials';
import { createTokenEndpoint, type TokenEndpointDeps } from '../../../shared/auth/token-endpoint';
import { TokenIssuer, TokenVerifier } from '../../../shared/auth/tokens';
import { HttpError } from '../../../shared/http/errors';
import { json } from '../../../shared/http/responses';
import type { HttpHandler, HttpResponse } from '../../../shared/http/types';
import { clientsTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { manualClock } from '../../support/fakes';
import { basicAuthorization, httpRequest } from '../../support/http-fixtures';

const audience = { issuer: 'https://bureau.example', audience: 'bureau-api' };
const DEFAULT_LIMIT = 5;
const FAILURE_LIMIT = 3;
const ID_FAILURE_LIMIT = 4;

let tables: TestTables;
let keyDir: string;
let keyFile: string;
let registry: DynamoClientRegistry;
let endpoint: HttpHandler;
let protection: ProtectionDeps;
let whoAmI: HttpHandler;

beforeAll(async () => {
  tables = await createTestTables([clientsTable]);
  const table = tables.names.clients as string;
  keyDir = mkdtempSync(join(tmpdir(), 'bureau-token-'));
  keyFile = join(keyDir, 'signing-keys.json');
  await ensureLocalSigningKeys({ file: keyFile, doc: tables.doc, tableName: table });

  // The limiter's window is frozen so counts never straddle a minute boundary mid-test, and its time
  // budget is generous so a busy test machine cannot make it fail open.
  const limiter = new RateLimiter(tables.doc, table, { clock: manualClock(Date.now()), timeoutMs: 20_000 });
  registry = new DynamoClientRegistry(tables.doc, table);
  const deps: TokenEndpointDeps = {
    credentials: registry,
    issuer: new TokenIssuer(new FileKeySetSource(keyFile), audience),
    jwks: new PublishedJwksStore(tables.doc, table),
    limiter,
    recent: new RecentCredentials(),
    limits: {
      defaultPerClientPerMinute: DEFAULT_LIMIT,
      failuresPerIpPerMinute: FAILURE_LIMIT,
      failuresPerClientIdPerMinute: ID_FAILURE_LIMIT,
    },
  };
  endpoint = createTokenEndpoint(deps);
  const clients = new CachedClientLookup(registry, { ttlSeconds: 0 });
  protection = {
    verifier: new TokenVerifier({ ...audience, jwks: new PublishedJwksStore(tables.doc, table), clients }),
    limiter,
    clients,
    defaultRateLimitPerMinute: DEFAULT_LIMIT,
  };
  whoAmI = protectedRoute(protection, async (request, principal) => {
    if (request.query.get('fail') === 'yes') throw new HttpError(404, 'company_not_found', 'No such company.');
    return json(200, { clientId: principal.clientId, tokenId: principal.tokenId });
  });
});

afterAll(() => {
  rmSync(keyDir, { recursive: true, force: true });
});

let ipCounter = 0;
const freshIp = () => `198.51.100.${++ipCounter}`;

const tokenRequest = (options: { body?: unknown; form?: string; headers?: Record<string, string>; ip?: string } = {}) =>
  httpRequest({
    method: 'POST',
    path: '/v1/oauth/token',
    sourceIp: options.ip ?? freshIp(),
    headers: {
      'content-type': options.form !== undefined ? 'application/x-www-form-urlencoded' : 'application/json',
      ...options.headers,
    },
    body: options.form ?? (typeof options.body === 'string' ? options.body : JSON.stringify(options.body ?? {})),
  });

const jsonGrant = (clientId: string, secret: string, ip?: string) =>
  tokenRequest({ body: { grant_type: 'client_credentials', client_id: clientId, client_secret: secret }, ...(ip ? { ip } : {}) });

const bodyOf = (response: HttpResponse) => response.body as Record<string, unknown>;
const bearer = (token: string) => httpRequest({ path: '/v1/whoami', headers: { authorization: `Bearer ${token}` } });

async function newClient(rateLimitPerMinute?: number) {
  return registry.create({ name: 'Endpoint test', ...(rateLimitPerMinute ? { rateLimitPerMinute } : {}) });
}

/** Calls charged to the client's quota in every window so far, read from the counters themselves. */
async function chargedTo(clientId: string): Promise<number> {
  const result = await tables.doc.send(
    new QueryCommand({
      TableName: tables.names.clients,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `${RATE_KEY_PREFIX}${clientRateKey(clientId)}` },
    }),
  );
  return (result.Items ?? []).reduce((sum, item) => sum + Number(item.count), 0);
}

describe('POST /v1/oauth/token', () => {
  it('issues a bearer token for the JSON client-credentials grant, uncacheable', async () => {
    const { client, secret } = await newClient();

    const response = await endpoint(jsonGrant(client.clientId, secret));

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600 });
    expect(response.headers).toMatchObject({
      'content-type': 'application/json',
      'cache-control': 'no-store',
      pragma: 'no-cache',
      'ratelimit-policy': `"default";q=${DEFAULT_LIMIT};w=60`,
      ratelimit: expect.stringMatching(new RegExp(`^"default";r=${DEFAULT_LIMIT - 1};t=\\d+$`)),
    });
  });

  it('issues tokens that protected routes accept as the client', async () => {
    const { client, secret } = await newClient();
    const token = bodyOf(await endpoint(jsonGrant(client.clientId, secret))).access_token as string;

    const response = await whoAmI(bearer(token));

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ clientId: client.clientId });
    expect(response.headers).toMatchObject({
      'ratelimit-policy': `"default";q=${DEFAULT_LIMIT};w=60`,
      ratelimit: expect.stringContaining(`r=${DEFAULT_LIMIT - 2}`),
    });
  });

  it('accepts the RFC 6749 form grant with HTTP Basic or with the credentials in the body', async () => {
    const { client, secret } = await newClient();

    const basic = await endpoint(
      tokenRequest({ form: 'grant_type=client_credentials', headers: { authorization: basicAuthorization(client.clientId, secret) } }),
    );
    const post = await endpoint(
      tokenRequest({ form: `grant_type=client_credentials&client_id=${client.clientId}&client_secret=${encodeURIComponent(secret)}` }),
    );

    for (const response of [basic, post]) {
      expect(response.status).toBe(200);
      expect((await whoAmI(bearer(bodyOf(response).access_token as string))).status).toBe(200);
    }
  });

  it('answers malformed requests with 400 and the RFC 6749 error body', async () => {
    const malformed = await endpoint(tokenRequest({ body: '{"grant_type":' }));
    const wrongGrant = await endpoint(tokenRequest({ body: { grant_type: 'password', client_id: 'a', client_secret: 'b' } }));
    const wrongType = await endpoint(tokenRequest({ headers: { 'content-type': 'text/plain' }, body: 'hi' }));

    expect(malformed).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'The body is not valid JSON.' } });
    expect(wrongGrant).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
    expect(wrongType).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    for (const response of [malformed, wrongGrant, wrongType]) {
      expect(Object.keys(bodyOf(response)).sort()).toEqual(['error', 'error_description']);
      expect(response.headers).toMatchObject({ 'content-type': 'application/json', 'cache-control': 'no-store' });
    }
  });

  it('refuses a parameter sent twice, however far its colon stands from its name', async () => {
    const body = `{"grant_type":"client_credentials","client_id":"a","client_secret":"b","client_id"${' '.repeat(70)}:"c"}`;

    const twice = await endpoint(tokenRequest({ body }));

    expect(twice).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: 'Each parameter may be sent once; client_id is repeated.' },
    });
  });

  it('answers an unknown id, a wrong secret and a disabled client with the same 401', async () => {
    const { client, secret } = await newClient();
    const disabled = await newClient();
    await registry.disable(disabled.client.clientId);

    const responses = [
      await endpoint(jsonGrant('no-such-client', secret)),
      await endpoint(jsonGrant(client.clientId, `${secret}x`)),
      await endpoint(jsonGrant(disabled.client.clientId, disabled.secret)),
      await endpoint(jsonGrant('not a well-formed id!', secret)),
    ];

    for (const response of responses) {
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
      expect(response.headers).not.toHaveProperty('www-authenticate');
      expect(response.headers).toMatchObject({
        'cache-control': 'no-store',
        'ratelimit-policy': expect.stringMatching(/^"token-failures";q=\d+;w=60$/),
        ratelimit: expect.stringMatching(/^"token-failures";r=\d+;t=\d+$/),
      });
    }
  });

  it('challenges with Basic when Basic credentials failed', async () => {
    const response = await endpoint(
      tokenRequest({ form: 'grant_type=client_credentials', headers: { authorization: basicAuthorization('no-such-client', 'wrong') } }),
    );

    expect(response.status).toBe(401);
    expect(response.headers).toMatchObject({ 'www-authenticate': 'Basic realm="bureau"' });
  });

  it('counts successful token requests against the client and answers 429 past its limit', async () => {
    const { client, secret } = await newClient(3);

    const failed = await endpoint(jsonGrant(client.clientId, `${secret}-wrong`));
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await endpoint(jsonGrant(client.clientId, secret))).status);
    const fourth = await endpoint(jsonGrant(client.clientId, secret));

    expect(failed.status).toBe(401);
    expect(statuses).toEqual([200, 200, 200]);
    expect(fourth.status).toBe(429);
    expect(fourth.body).toMatchObject({ error: 'rate_limited' });
    expect(fourth.headers).toMatchObject({
      'retry-after': expect.stringMatching(/^\d+$/),
      'ratelimit-policy': '"default";q=3;w=60',
      'cache-control': 'no-store',
    });
  });

  it('answers failures past the address limit with 429, and still gives correct credentials from that address a token', async () => {
    const { client, secret } = await newClient();
    const ip = freshIp();
    const failures = [];
    for (let i = 0; i < FAILURE_LIMIT + 1; i++) failures.push(await endpoint(jsonGrant(`someone-${i}`, 'wrong-secret', ip)));

    const neighbour = await endpoint(jsonGrant(client.clientId, secret, ip));

    expect(failures.map((response) => response.status)).toEqual([...Array(FAILURE_LIMIT).fill(401), 429]);
    expect(failures.at(-1)?.body).toMatchObject({ error: 'rate_limited', error_description: expect.stringContaining('from this address') });
    expect(failures.at(-1)?.headers).toMatchObject({
      'retry-after': expect.any(String),
      'ratelimit-policy': `"token-failures";q=${FAILURE_LIMIT};w=60`,
    });
    expect(failures.at(-1)?.body).not.toHaveProperty('access_token');
    expect(neighbour.status).toBe(200);
  });

  it('counts an IPv6 caller by its /64, so moving to another address of its network does not reset its failures', async () => {
    const network = `2001:db8:${(++ipCounter).toString(16)}:1`;
    const failures = [];
    for (let i = 0; i < FAILURE_LIMIT + 1; i++) {
      failures.push(await endpoint(jsonGrant(`roamer-${i}`, 'wrong-secret', `${network}::${(i + 1).toString(16)}`)));
    }
    const nextNetwork = await endpoint(jsonGrant('roamer-next', 'wrong-secret', `2001:db8:${ipCounter.toString(16)}:2::1`));

    expect(failures.map((response) => response.status)).toEqual([...Array(FAILURE_LIMIT).fill(401), 429]);
    expect(nextNetwork.status).toBe(401);
  });

  it('holds the address limit when many wrong secrets arrive at once', async () => {
    const ip = freshIp();

    // A different id each time, so only the address bucket decides.
    const responses = await Promise.all(Array.from({ length: 150 }, (_, i) => endpoint(jsonGrant(`guess-${i}`, 'wrong-secret', ip))));

    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(FAILURE_LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(150 - FAILURE_LIMIT);
  });

  it('counts failures naming a client id in their own bucket, across addresses, without touching the client', async () => {
    const { client, secret } = await newClient();
    const failures = [];
    for (let i = 0; i < ID_FAILURE_LIMIT + 1; i++) failures.push(await endpoint(jsonGrant(client.clientId, 'wrong-secret')));

    const owner = await endpoint(jsonGrant(client.clientId, secret));

    expect(failures.map((response) => response.status)).toEqual([...Array(ID_FAILURE_LIMIT).fill(401), 429]);
    expect(failures.at(-1)?.body).toMatchObject({ error_description: expect.stringContaining('for this client id') });
    expect(owner.status).toBe(200);
    expect(owner.headers).toMatchObject({ ratelimit: expect.stringContaining(`r=${DEFAULT_LIMIT - 1};`) });
  });

  it('lets no one who knows a client id use up that client’s quota', async () => {
    const { client, secret } = await newClient();
    for (let i = 0; i < 60; i++) await endpoint(jsonGrant(client.clientId, 'wrong-secret'));

    const token = await endpoint(jsonGrant(client.clientId, secret));
    const call = await whoAmI(bearer(bodyOf(token).access_token as string));

    expect(token.status).toBe(200);
    expect(call.status).toBe(200);
    expect(call.headers).toMatchObject({ ratelimit: expect.stringContaining(`r=${DEFAULT_LIMIT - 2};`) });
  });

  it('lets no one spend the quota of a client whose secret was proved here, even with many wrong secrets at once', async () => {
    const { client, secret } = await newClient();
    expect((await endpoint(jsonGrant(client.clientId, secret))).status).toBe(200);

    await Promise.all(Array.from({ length: 20 }, () => endpoint(jsonGrant(client.clientId, `${secret}x`))));

    expect(await chargedTo(client.clientId)).toBe(1);
  });

  it('charges a secret proved before while its record is read, and takes the charge back when the record refuses it', async () => {
    const { client, secret } = await newClient();
    await endpoint(jsonGrant(client.clientId, secret));

    const second = await endpoint(jsonGrant(client.clientId, secret));
    await registry.disable(client.clientId);
    const afterDisable = await endpoint(jsonGrant(client.clientId, secret));

    expect(second.status).toBe(200);
    expect(second.headers).toMatchObject({ ratelimit: expect.stringContaining(`r=${DEFAULT_LIMIT - 2};`) });
    expect(afterDisable.status).toBe(401);
    expect(await chargedTo(client.clientId)).toBe(2);
  });

  it('does not count successful requests as failures of the address', async () => {
    const { client, secret } = await newClient(50);
    const ip = freshIp();

    const statuses = [];
    for (let i = 0; i < FAILURE_LIMIT + 2; i++) statuses.push((await endpoint(jsonGrant(client.clientId, secret, ip))).status);

    expect(statuses.every((status) => status === 200)).toBe(true);
  });
});

describe('GET /v1/.well-known/jwks.json', () => {
  it('serves the published public keys, cacheable for a minute', async () => {
    const keySet = await new FileKeySetSource(keyFile).get();

    const response = await endpoint(httpRequest({ path: '/v1/.well-known/jwks.json' }));

    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({ 'cache-control': 'public, max-age=60' });
    expect(response.body).toEqual({
      keys: [expect.objectContaining({ kid: keySet.current, kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' })],
    });
    expect(JSON.stringify(response.body)).not.toContain('"d"');
  });

  it('answers 404 for a path it does not serve', async () => {
    const unknown = await endpoint(httpRequest({ path: '/v1/elsewhere' }));

    expect(unknown.status).toBe(404);
  });
});

describe('protected routes', () => {
  it('answer 401 with the bearer challenge when the token is missing or bad', async () => {
    const missing = await whoAmI(httpRequest({ path: '/v1/whoami' }));
    const bad = await whoAmI(bearer('not.a.token'));

    expect(missing).toMatchObject({
      status: 401,
      body: { error: 'missing_token' },
      headers: { 'www-authenticate': 'Bearer realm="bureau"' },
    });
    expect(bad).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
    expect(bad.headers?.['www-authenticate']).toContain('error="invalid_token"');
    expect(JSON.stringify(bad)).not.toContain('not.a.token');
  });

  it('refuse a disabled client token at the next client-record refresh', async () => {
    const { client, secret } = await newClient();
    const token = bodyOf(await endpoint(jsonGrant(client.clientId, secret))).access_token as string;

    await registry.disable(client.clientId);

    expect((await whoAmI(bearer(token))).status).toBe(401);
  });

  it('add the rate-limit headers to errors of the route and answer 429 past the limit', async () => {
    const { client, secret } = await newClient(3);
    const token = bodyOf(await endpoint(jsonGrant(client.clientId, secret))).access_token as string;

    const notFound = await whoAmI(httpRequest({ path: '/v1/whoami', query: 'fail=yes', headers: { authorization: `Bearer ${token}` } }));
    await whoAmI(bearer(token));
    const limited = await whoAmI(bearer(token));

    expect(notFound).toMatchObject({
      status: 404,
      body: { error: 'company_not_found' },
      headers: { ratelimit: expect.stringContaining('r=1;') },
    });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: 'rate_limited' });
    expect(limited.headers).toMatchObject({ 'retry-after': expect.stringMatching(/^\d+$/), 'ratelimit-policy': '"default";q=3;w=60' });
  });
});
