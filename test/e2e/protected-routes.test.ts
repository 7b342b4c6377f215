import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWTPayload, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAuthConfig } from '../../shared/auth/config';
import { currentSigningKey, parseKeySet } from '../../shared/auth/signing-keys';
import { useTestRuntime } from '../support/runtime';

const bureau = useTestRuntime();

/** Each protected route, and what it answers a caller it lets in (no company 00000001 exists). */
const routes: Array<[string, number]> = [
  ['/v1/watches', 200],
  ['/v1/search?q=acme&jurisdiction=GB', 200],
  ['/v1/profile/00000001?jurisdiction=GB', 404],
];

type SigningKey = Awaited<ReturnType<typeof importJWK>>;

let runtimeKey: { key: SigningKey; kid: string };
let outsiderKey: { key: SigningKey; kid: string };
let issuer: string;
let audience: string;
let demoClientId: string;

beforeAll(async () => {
  ({ issuer, audience } = loadAuthConfig(bureau().runtime.functionEnvironments.search));
  demoClientId = bureau().demoClient.clientId;
  // The runtime's own private key, as the token function reads it: lets tests sign tokens the service would accept.
  const current = currentSigningKey(parseKeySet(readFileSync(join(bureau().runtime.dataDir, 'signing-keys.json'), 'utf8')));
  runtimeKey = { key: await importJWK({ kty: current.kty, crv: current.crv, x: current.x, d: current.d }, 'EdDSA'), kid: current.kid };
  const outsider = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  outsiderKey = { key: outsider.privateKey, kid: await calculateJwkThumbprint(await exportJWK(outsider.publicKey)) };
});

const now = () => Math.floor(Date.now() / 1000);

interface Forgery {
  readonly claims?: JWTPayload;
  readonly header?: Record<string, unknown>;
  readonly signer?: { key: SigningKey; kid: string };
}

/** A token shaped as the service issues them, with whatever the test changes. */
function signToken({ claims = {}, header = {}, signer = runtimeKey }: Forgery = {}): Promise<string> {
  const issuedAt = now();
  return new SignJWT({
    client_id: demoClientId,
    iss: issuer,
    aud: audience,
    sub: demoClientId,
    iat: issuedAt,
    exp: issuedAt + 3600,
    jti: crypto.randomUUID(),
    ...claims,
  })
    .setProtectedHeader({ alg: 'EdDSA', kid: signer.kid, typ: 'at+jwt', ...header })
    .sign(signer.key);
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function unsignedToken(): string {
  const issuedAt = now();
  const header = { alg: 'none', typ: 'at+jwt', kid: runtimeKey.kid };
  const claims = { iss: issuer, aud: audience, sub: demoClientId, iat: issuedAt, exp: issuedAt + 3600, jti: crypto.randomUUID() };
  return `${base64url(header)}.${base64url(claims)}.`;
}

/** Changes one character in the middle of the signature, so the decoded bytes really differ. */
function withTamperedSignature(token: string): string {
  const [header, payload, signature = ''] = token.split('.');
  const middle = Math.floor(signature.length / 2);
  const swapped = signature[middle] === 'A' ? 'B' : 'A';
  return `${header}.${payload}.${signature.slice(0, middle)}${swapped}${signature.slice(middle + 1)}`;
}

/** Keeps the signature of a genuine token but claims to be another client. */
function withSwappedSubject(token: string): string {
  const [header, payload = '', signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as JWTPayload;
  return `${header}.${base64url({ ...claims, sub: 'someone-else' })}.${signature}`;
}

const call = (route: string, authorization?: string) =>
  fetch(`${bureau().baseUrl}${route}`, { headers: authorization === undefined ? {} : { authorization } });

describe.each(routes)('GET %s', (route, admittedStatus) => {
  it('answers a request without Authorization with 401, the bare Bearer challenge and a JSON body', async () => {
    const response = await call(route);

    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="bureau"');
    expect(response.headers.get('content-type')).toMatch(/json/);
    expect(await response.json()).toMatchObject({ status: 401, error: 'missing_token', detail: expect.stringContaining('Bearer') });
  });

  it('accepts a token signed with the service key and the expected claims (the forgeries below differ in one thing)', async () => {
    const response = await call(route, `Bearer ${await signToken()}`);

    expect(response.status).toBe(admittedStatus);
  });

  const refused: Array<[string, () => Promise<string>]> = [
    ['another scheme (Basic)', async () => `Basic ${Buffer.from(`${demoClientId}:secret`).toString('base64')}`],
    ['a garbage token', async () => 'Bearer not-a-jwt-at-all'],
    ['a token with a tampered signature', async () => `Bearer ${withTamperedSignature(await signToken())}`],
    ['a genuine signature over changed claims', async () => `Bearer ${withSwappedSubject(await signToken())}`],
    ['an unsigned token (alg none)', async () => `Bearer ${unsignedToken()}`],
    [
      'an expired token (beyond the clock skew)',
      async () => `Bearer ${await signToken({ claims: { iat: now() - 3700, exp: now() - 100 } })}`,
    ],
    ['a token for another audience', async () => `Bearer ${await signToken({ claims: { aud: 'someone-else-api' } })}`],
    ['a token from another issuer', async () => `Bearer ${await signToken({ claims: { iss: 'https://issuer.example' } })}`],
    ['a token signed by a key the service never published (unknown kid)', async () => `Bearer ${await signToken({ signer: outsiderKey })}`],
    ['a token naming an unknown kid', async () => `Bearer ${await signToken({ header: { kid: 'no-such-key' } })}`],
    ['a JWT that is not an access token (typ JWT)', async () => `Bearer ${await signToken({ header: { typ: 'JWT' } })}`],
    ['a token for a client that does not exist', async () => `Bearer ${await signToken({ claims: { sub: 'no-such-client' } })}`],
  ];

  it.each(refused)('answers %s with 401 invalid_token and a JSON body', async (_, authorization) => {
    const response = await call(route, await authorization());

    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="bureau", error="invalid_token", error_description="[^"\\]+"$/);
    expect(response.headers.get('content-type')).toMatch(/json/);
    expect(await response.json()).toMatchObject({ status: 401, error: 'invalid_token', detail: expect.any(String) });
  });
});
