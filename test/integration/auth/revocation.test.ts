import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { CachedClientLookup } from '../../../shared/auth/client-cache';
import type { ClientLookup } from '../../../shared/auth/client-registry';
import { DynamoClientRegistry } from '../../../shared/auth/dynamo-client-registry';
import { PublishedJwksStore } from '../../../shared/auth/published-jwks-store';
import { RateLimiter } from '../../../shared/auth/rate-limit';
import { RecentCredentials } from '../../../shared/auth/recent-credentials';
import { type KeySet, publicJwks, rotateKeySet } from '../../../shared/auth/signing-keys';
import { createTokenEndpoint, TOKEN_PATH } from '../../../shared/auth/token-endpoint';
import { InvalidTokenError, TokenIssuer, TokenVerifier } from '../../../shared/auth/tokens';
import { clientsTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { manualClock, staticKeySet } from '../../support/fakes';
import { httpRequest } from '../../support/http-fixtures';

const audience = { issuer: 'https://bureau.test', audience: 'bureau-api' };
const CACHE_SECONDS = 30;

let tables: TestTables;
let keySet: KeySet;
beforeAll(async () => {
  tables = await createTestTables([clientsTable]);
  keySet = await rotateKeySet(undefined);
  await new PublishedJwksStore(tables.doc, tables.names.clients as string).publish(publicJwks(keySet));
});

function setup() {
  const clock = manualClock(Date.now());
  const table = tables.names.clients as string;
  const registry = new DynamoClientRegistry(tables.doc, table, clock);
  const clients = new CachedClientLookup(registry, { ttlSeconds: CACHE_SECONDS, clock });
  const verifier = new TokenVerifier({ ...audience, jwks: new PublishedJwksStore(tables.doc, table, { clock }), clients, clock });
  const issuer = new TokenIssuer(staticKeySet(keySet), { ...audience, clock });
  return { clock, registry, verifier, issuer };
}

const refused = (promise: Promise<unknown>) => expect(promise).rejects.toBeInstanceOf(InvalidTokenError);

describe('revoking a client', () => {
  it('by disabling it refuses its outstanding tokens once verifiers refresh the client record, not before', async () => {
    const { clock, registry, verifier, issuer } = setup();
    const { client } = await registry.create({ name: 'Disable me' });
    const token = (await issuer.issue(client.clientId)).accessToken;
    await expect(verifier.verify(token)).resolves.toMatchObject({ clientId: client.clientId });

    clock.advance(5);
    await registry.disable(client.clientId);
    await expect(verifier.verify(token)).resolves.toMatchObject({ clientId: client.clientId });
    clock.advance(CACHE_SECONDS);
    await refused(verifier.verify(token));
  });

  it('by rotating its secret refuses tokens issued before, and accepts tokens issued after', async () => {
    const { clock, registry, verifier, issuer } = setup();
    const { client } = await registry.create({ name: 'Rotate me' });
    const before = (await issuer.issue(client.clientId)).accessToken;
    await verifier.verify(before);

    clock.advance(5);
    await registry.rotateSecret(client.clientId, { graceSeconds: 600 });
    // In the same second, as the token endpoint does: dated after the revocation.
    const { tokensNotBefore } = (await registry.get(client.clientId)) ?? { tokensNotBefore: 0 };
    const after = (await issuer.issue(client.clientId, { notBefore: tokensNotBefore })).accessToken;
    clock.advance(CACHE_SECONDS);

    await refused(verifier.verify(before));
    await expect(verifier.verify(after)).resolves.toMatchObject({ clientId: client.clientId });
  });

  it('keeps earlier tokens refused after the client is enabled again', async () => {
    const { clock, registry, verifier, issuer } = setup();
    const { client } = await registry.create({ name: 'Off and on' });
    const before = (await issuer.issue(client.clientId)).accessToken;

    clock.advance(5);
    await registry.disable(client.clientId);
    clock.advance(5);
    await registry.enable(client.clientId);
    const after = (await issuer.issue(client.clientId)).accessToken;

    await refused(verifier.verify(before));
    await expect(verifier.verify(after)).resolves.toMatchObject({ clientId: client.clientId });
  });
});

describe('the revocation boundary', () => {
  it('refuses a token issued in the same second before a secret rotation, and accepts one the endpoint issues right after', async () => {
    const table = tables.names.clients as string;
    const registry = new DynamoClientRegistry(tables.doc, table);
    const clients = new CachedClientLookup(registry, { ttlSeconds: 0 });
    const verifier = new TokenVerifier({ ...audience, jwks: new PublishedJwksStore(tables.doc, table), clients });
    const endpoint = createTokenEndpoint({
      credentials: registry,
      issuer: new TokenIssuer(staticKeySet(keySet), audience),
      jwks: new PublishedJwksStore(tables.doc, table),
      limiter: new RateLimiter(tables.doc, table),
      recent: new RecentCredentials(),
      limits: { defaultPerClientPerMinute: 100, failuresPerIpPerMinute: 100, failuresPerClientIdPerMinute: 100 },
    });
    const { client, secret } = await registry.create({ name: 'Same second' });
    const tokenFor = async (clientSecret: string) => {
      const response = await endpoint(
        httpRequest({
          method: 'POST',
          path: TOKEN_PATH,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: clientSecret }),
        }),
      );
      expect(response.status).toBe(200);
      return (response.body as { access_token: string }).access_token;
    };
    // Right after a second begins, so the three steps below share it.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));

    const before = await tokenFor(secret);
    const rotated = await registry.rotateSecret(client.clientId, { graceSeconds: 0 });
    const after = await tokenFor(rotated.secret);

    expect(Math.floor(decodeJwt(before).iat ?? 0)).toBe((await registry.get(client.clientId))?.tokensNotBefore);
    await refused(verifier.verify(before));
    await expect(verifier.verify(after)).resolves.toMatchObject({ clientId: client.clientId });
  });
});

describe('the client cache', () => {
  it('reads each client at most once per window, absent clients included', async () => {
    const clock = manualClock();
    const reads: string[] = [];
    const source: ClientLookup = {
      get: async (clientId) => {
        reads.push(clientId);
        return undefined;
      },
    };
    const cache = new CachedClientLookup(source, { ttlSeconds: CACHE_SECONDS, clock });

    await Promise.all([cache.get('a'), cache.get('a'), cache.get('b')]);
    clock.advance(CACHE_SECONDS - 1);
    await cache.get('a');
    clock.advance(1);
    await cache.get('a');

    expect(reads).toEqual(['a', 'b', 'a']);
  });

  it('does not keep a failed read', async () => {
    let fail = true;
    const source: ClientLookup = {
      get: async () => {
        if (fail) throw new Error('throttled');
        return undefined;
      },
    };
    const cache = new CachedClientLookup(source, { ttlSeconds: CACHE_SECONDS, clock: manualClock() });

    await expect(cache.get('a')).rejects.toThrow('throttled');
    fail = false;

    await expect(cache.get('a')).resolves.toBeUndefined();
  });
});
