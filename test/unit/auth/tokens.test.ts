import { decodeJwt, decodeProtectedHeader, generateKeyPair, importJWK, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type KeySet, publicJwks, rotateKeySet } from '../../../shared/auth/signing-keys';
import { InvalidTokenError, TokenIssuer, TokenVerifier } from '../../../shared/auth/tokens';
import { activeClient, clientLookup, manualClock, staticJwks, staticKeySet } from '../../support/fakes';

const audience = { issuer: 'https://bureau.test', audience: 'bureau-api' };

let keySet: KeySet;
beforeAll(async () => {
  keySet = await rotateKeySet(undefined);
});

function setup(options: { clients?: ReturnType<typeof clientLookup> } = {}) {
  const clock = manualClock();
  const clients = options.clients ?? clientLookup(activeClient('acme'));
  const issuer = new TokenIssuer(staticKeySet(keySet), { ...audience, clock });
  const verifier = new TokenVerifier({ ...audience, jwks: staticJwks(publicJwks(keySet)), clients, clock });
  return { clock, clients, issuer, verifier };
}

async function refusal(promise: Promise<unknown>): Promise<InvalidTokenError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(InvalidTokenError);
  return error as InvalidTokenError;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('access tokens', () => {
  it('are EdDSA JWTs naming the key, the issuer, the audience and the client, valid for an hour', async () => {
    const { issuer, clock } = setup();

    const token = await issuer.issue('acme');

    const header = decodeProtectedHeader(token.accessToken);
    const claims = decodeJwt(token.accessToken);
    const now = clock() / 1000;
    expect(header).toEqual({ alg: 'EdDSA', kid: keySet.current, typ: 'at+jwt' });
    expect(claims).toMatchObject({
      iss: audience.issuer,
      aud: audience.audience,
      sub: 'acme',
      client_id: 'acme',
      iat: now,
      exp: now + 3600,
      jti: token.tokenId,
    });
    expect(token).toMatchObject({ expiresIn: 3600, expiresAt: now + 3600 });
  });

  it('carry a fresh id each time', async () => {
    const { issuer } = setup();

    const [first, second] = await Promise.all([issuer.issue('acme'), issuer.issue('acme')]);

    expect(first.tokenId).not.toBe(second.tokenId);
  });

  it('verify to the principal they were issued to', async () => {
    const { issuer, verifier } = setup();
    const token = await issuer.issue('acme');

    const principal = await verifier.verify(token.accessToken);

    expect(principal).toEqual({ clientId: 'acme', tokenId: token.tokenId, expiresAt: token.expiresAt });
  });

  it('are accepted up to 30 s past expiry for clock skew, then refused as expired', async () => {
    const { issuer, verifier, clock } = setup();
    const token = await issuer.issue('acme');

    clock.advance(3600 + 29);
    await expect(verifier.verify(token.accessToken)).resolves.toMatchObject({ clientId: 'acme' });
    clock.advance(2);
    const error = await refusal(verifier.verify(token.accessToken));

    expect(error.reason).toBe('expired');
  });

  it('are refused when the payload was tampered with', async () => {
    const { issuer, verifier } = setup();
    const [header, payload, signature] = (await issuer.issue('acme')).accessToken.split('.');
    const claims = JSON.parse(Buffer.from(payload as string, 'base64url').toString());

    const tampered = [header, b64({ ...claims, sub: 'someone-else' }), signature].join('.');

    expect((await refusal(verifier.verify(tampered))).reason).toBe('invalid');
  });

  it('are refused unsigned (alg none)', async () => {
    const { issuer, verifier } = setup();
    const claims = decodeJwt((await issuer.issue('acme')).accessToken);

    const unsigned = `${b64({ alg: 'none', typ: 'at+jwt', kid: keySet.current })}.${b64(claims)}.`;

    expect((await refusal(verifier.verify(unsigned))).reason).toBe('invalid');
  });

  it('are refused when HMAC-signed with the public key (algorithm confusion)', async () => {
    const { issuer, verifier } = setup();
    const claims = decodeJwt((await issuer.issue('acme')).accessToken);
    const publicKey = publicJwks(keySet).keys[0];
    const candidates = [new TextEncoder().encode(JSON.stringify(publicKey)), Buffer.from(publicKey?.x ?? '', 'base64url')];

    for (const secret of candidates) {
      const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: keySet.current, typ: 'at+jwt' }).sign(secret);
      expect((await refusal(verifier.verify(forged))).reason).toBe('invalid');
    }
  });

  it('are refused when signed by another key under a published kid', async () => {
    const { issuer, verifier } = setup();
    const claims = decodeJwt((await issuer.issue('acme')).accessToken);
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });

    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: keySet.current, typ: 'at+jwt' }).sign(privateKey);

    expect((await refusal(verifier.verify(forged))).reason).toBe('invalid');
  });

  it('are refused when their kid is unknown or missing', async () => {
    const { verifier } = setup();
    const otherKeys = await rotateKeySet(undefined);
    const foreign = await new TokenIssuer(staticKeySet(otherKeys), audience).issue('acme');
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const claims = decodeJwt(foreign.accessToken);
    const withoutKid = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt' }).sign(privateKey);

    expect((await refusal(verifier.verify(foreign.accessToken))).reason).toBe('invalid');
    expect((await refusal(verifier.verify(withoutKid))).reason).toBe('invalid');
  });

  it('are refused from another issuer or for another audience', async () => {
    const { verifier } = setup();
    const wrongIssuer = await new TokenIssuer(staticKeySet(keySet), { ...audience, issuer: 'https://evil.test' }).issue('acme');
    const wrongAudience = await new TokenIssuer(staticKeySet(keySet), { ...audience, audience: 'other-api' }).issue('acme');

    expect((await refusal(verifier.verify(wrongIssuer.accessToken))).reason).toBe('invalid');
    expect((await refusal(verifier.verify(wrongAudience.accessToken))).reason).toBe('invalid');
  });

  it('are refused when they are not typed as access tokens', async () => {
    const { issuer, verifier } = setup();
    const claims = decodeJwt((await issuer.issue('acme')).accessToken);
    const { kty, crv, x, d } = keySet.keys[0] as KeySet['keys'][number];
    const key = await importJWK({ kty, crv, x, d }, 'EdDSA');

    const idToken = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: keySet.current, typ: 'JWT' }).sign(key);

    expect((await refusal(verifier.verify(idToken))).reason).toBe('invalid');
  });

  it.each(['', 'garbage', 'a.b.c', 'x'.repeat(5000)])('are refused when malformed (%#)', async (token) => {
    const { verifier } = setup();

    expect((await refusal(verifier.verify(token))).reason).toBe('invalid');
  });

  it('are refused once their client is disabled, unknown, or revoked them', async () => {
    const clients = clientLookup(activeClient('acme'));
    const { issuer, verifier, clock } = setup({ clients });
    const token = (await issuer.issue('acme')).accessToken;

    clients.records.set('acme', activeClient('acme', { status: 'disabled' }));
    expect((await refusal(verifier.verify(token))).reason).toBe('revoked');

    clients.records.set('acme', activeClient('acme', { tokensNotBefore: clock() / 1000 + 1 }));
    expect((await refusal(verifier.verify(token))).reason).toBe('revoked');

    clients.records.delete('acme');
    expect((await refusal(verifier.verify(token))).reason).toBe('revoked');
  });

  it('issued in the second of a revocation but before it are refused', async () => {
    const clients = clientLookup(activeClient('acme'));
    const { issuer, verifier, clock } = setup({ clients });
    const before = (await issuer.issue('acme')).accessToken;

    clients.records.set('acme', activeClient('acme', { tokensNotBefore: clock() / 1000 }));

    expect((await refusal(verifier.verify(before))).reason).toBe('revoked');
  });

  it('issued in the second of a revocation but after it stay valid', async () => {
    const clients = clientLookup(activeClient('acme'));
    const { issuer, verifier, clock } = setup({ clients });
    const tokensNotBefore = clock() / 1000;
    clients.records.set('acme', activeClient('acme', { tokensNotBefore }));

    const token = await issuer.issue('acme', { notBefore: tokensNotBefore });

    expect(decodeJwt(token.accessToken).iat).toBe(tokensNotBefore + 1);
    await expect(verifier.verify(token.accessToken)).resolves.toMatchObject({ clientId: 'acme' });
  });
});

describe('token lifetime limits', () => {
  async function signedWith(claims: { iat: number; exp: number }) {
    const { kty, crv, x, d } = keySet.keys[0] as KeySet['keys'][number];
    const key = await importJWK({ kty, crv, x, d }, 'EdDSA');
    return new SignJWT({ client_id: 'acme', ...claims })
      .setProtectedHeader({ alg: 'EdDSA', kid: keySet.current, typ: 'at+jwt' })
      .setIssuer(audience.issuer)
      .setAudience(audience.audience)
      .setSubject('acme')
      .setJti('forged-lifetime')
      .sign(key);
  }

  it('refuse a token signed with a ten-year lifetime, even while it is fresh', async () => {
    const { verifier, clock } = setup();
    const now = clock() / 1000;

    const token = await signedWith({ iat: now, exp: now + 10 * 365 * 24 * 3600 });

    expect((await refusal(verifier.verify(token))).reason).toBe('invalid');
  });

  it('refuse a token older than the lifetime plus the skew allowance, whatever its exp says', async () => {
    const { verifier, clock } = setup();
    const now = clock() / 1000;

    const token = await signedWith({ iat: now - 3600 - 31, exp: now + 60 });

    expect((await refusal(verifier.verify(token))).reason).toBe('expired');
  });

  it('refuse a token issued in the future beyond the skew allowance, and accept one within it', async () => {
    const { verifier, clock } = setup();
    const now = clock() / 1000;

    const future = await signedWith({ iat: now + 31, exp: now + 31 + 3600 });
    const skewed = await signedWith({ iat: now + 29, exp: now + 29 + 3600 });

    expect((await refusal(verifier.verify(future))).reason).toBe('invalid');
    await expect(verifier.verify(skewed)).resolves.toMatchObject({ clientId: 'acme' });
  });
});
