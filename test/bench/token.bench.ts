import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { importJWK, jwtVerify, SignJWT } from 'jose';
import { CachedClientLookup } from '../../shared/auth/client-cache';
import { DEFAULT_AUDIENCE, DEFAULT_CLIENT_CACHE_SECONDS, DEFAULT_ISSUER } from '../../shared/auth/config';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { PublishedJwksStore } from '../../shared/auth/published-jwks-store';
import { RateLimiter } from '../../shared/auth/rate-limit';
import { RecentCredentials } from '../../shared/auth/recent-credentials';
import { currentSigningKey, SIGNING_ALGORITHM } from '../../shared/auth/signing-keys';
import { createTokenEndpoint } from '../../shared/auth/token-endpoint';
import { TOKEN_LIFETIME_SECONDS } from '../../shared/auth/token-policy';
import { TokenIssuer, TokenVerifier } from '../../shared/auth/tokens';
import { clientsTable } from '../../shared/storage/tables';
import type { BenchContext } from './support/context';
import { benchRequest } from './support/http';
import { UNLIMITED } from './support/protection';
import { benchSigningKeys } from './support/signing';
import { latencyTable } from './support/table';
import { timeInterleaved } from './support/timing';

export const name = 'Token endpoint, signing and verification';

const audience = { issuer: DEFAULT_ISSUER, audience: DEFAULT_AUDIENCE };

export async function run(context: BenchContext): Promise<void> {
  const storageLoop = context.scale === 'full' ? { warmup: 200, iterations: 3000 } : { warmup: 100, iterations: 1000 };
  const cryptoLoop = context.scale === 'full' ? { warmup: 500, iterations: 10_000 } : { warmup: 200, iterations: 3000 };
  const { doc, names } = await context.createTables([clientsTable]);
  const table = names.clients as string;
  const keys = await benchSigningKeys(doc, table);
  try {
    const registry = new DynamoClientRegistry(doc, table);
    const { client, secret } = await registry.create({ name: 'Benchmark client', rateLimitPerMinute: UNLIMITED });
    const issuer = new TokenIssuer(keys.source, audience);

    const endpoint = createTokenEndpoint({
      credentials: registry,
      issuer,
      jwks: new PublishedJwksStore(doc, table),
      limiter: new RateLimiter(doc, table),
      recent: new RecentCredentials(),
      limits: { defaultPerClientPerMinute: UNLIMITED, failuresPerIpPerMinute: UNLIMITED, failuresPerClientIdPerMinute: UNLIMITED },
    });
    const request = benchRequest({
      method: 'POST',
      path: '/v1/oauth/token',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: secret }),
    });
    const [getItem, tokenEndpoint] = await timeInterleaved(
      [
        () => doc.send(new GetCommand({ TableName: table, Key: { pk: `CLIENT#${client.clientId}`, sk: 'CLIENT' }, ConsistentRead: true })),
        async () => {
          const response = await endpoint(request);
          if (response.status !== 200) throw new Error(`token endpoint answered ${response.status}`);
        },
      ],
      storageLoop,
    );
    context.report(
      latencyTable('POST /v1/oauth/token (JSON grant, handler in-process) vs one GetItem of the client record', [
        { label: 'baseline: GetItem client (consistent)', stats: getItem },
        { label: 'token endpoint handler', stats: tokenEndpoint },
      ]),
    );

    const signingJwk = currentSigningKey(await keys.source.get());
    const privateKey = await importJWK({ kty: signingJwk.kty, crv: signingJwk.crv, x: signingJwk.x, d: signingJwk.d }, SIGNING_ALGORITHM);
    const publicKey = await importJWK({ kty: signingJwk.kty, crv: signingJwk.crv, x: signingJwk.x }, SIGNING_ALGORITHM);
    const bareSign = () => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ client_id: client.clientId })
        .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: signingJwk.kid, typ: 'at+jwt' })
        .setIssuer(audience.issuer)
        .setAudience(audience.audience)
        .setSubject(client.clientId)
        .setIssuedAt(now)
        .setExpirationTime(now + TOKEN_LIFETIME_SECONDS)
        .setJti(crypto.randomUUID())
        .sign(privateKey);
    };
    const [joseSign, ourSign] = await timeInterleaved([bareSign, () => issuer.issue(client.clientId)], cryptoLoop);
    context.report(
      latencyTable('Sign an access token: TokenIssuer.issue vs bare jose SignJWT (same key, same claims)', [
        { label: 'baseline: jose SignJWT', stats: joseSign },
        { label: 'TokenIssuer.issue', stats: ourSign },
      ]),
    );

    const token = (await issuer.issue(client.clientId)).accessToken;
    const verifier = new TokenVerifier({
      ...audience,
      jwks: new PublishedJwksStore(doc, table),
      clients: new CachedClientLookup(registry, { ttlSeconds: DEFAULT_CLIENT_CACHE_SECONDS }),
    });
    // Warm caches: the loops' own warm-up fills the JWKS, imported-key and client-record caches.
    const [joseVerify, ourVerify] = await timeInterleaved(
      [() => jwtVerify(token, publicKey, { algorithms: [SIGNING_ALGORITHM], ...audience }), () => verifier.verify(token)],
      cryptoLoop,
    );
    context.report(
      latencyTable('Verify an access token: TokenVerifier.verify (warm caches) vs bare jose jwtVerify', [
        { label: 'baseline: jose jwtVerify', stats: joseVerify },
        { label: 'TokenVerifier.verify', stats: ourVerify },
      ]),
    );
  } finally {
    keys.dispose();
  }
}
