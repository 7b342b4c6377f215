import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { KeyRevocation } from '../../../cli/operations/key-revocation';
import { KeyRotation, RotationError, type RotationStep } from '../../../shared/auth/key-rotation';
import { PublishedJwksStore } from '../../../shared/auth/published-jwks-store';
import { SecretsManagerKeySetSource, SecretsManagerKeySetVault } from '../../../shared/auth/secrets-manager-key-sets';
import { parseKeySet, UnknownSigningKeyError } from '../../../shared/auth/signing-keys';
import { JWKS_CACHE_SECONDS, KEY_SET_CACHE_SECONDS } from '../../../shared/auth/token-policy';
import { InvalidTokenError, TokenIssuer, TokenVerifier } from '../../../shared/auth/tokens';
import { clientsTable } from '../../../shared/storage/tables';
import { createTestTables } from '../../support/dynamo';
import { FakeSecretsManager } from '../../support/fake-secrets-manager';
import { activeClient, clientLookup, manualClock } from '../../support/fakes';

const SECRET_ID = 'arn:aws:secretsmanager:eu-west-2:123456789012:secret:bureau-signing-keys';
const STEPS: readonly RotationStep[] = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'];
const audience = { issuer: 'https://bureau.test', audience: 'bureau-api' };

/** A deployed stack in miniature: the secret, the published keys in DynamoDB Local, a signer and a verifier with their real caches. */
async function deployment() {
  const tables = await createTestTables([clientsTable]);
  const table = tables.names.clients as string;
  const clock = manualClock(Date.now());
  const secrets = new FakeSecretsManager(SECRET_ID);
  const rotation = new KeyRotation({ secrets: secrets.client, jwks: new PublishedJwksStore(tables.doc, table, { clock }), clock });
  const step = (step: RotationStep, token: string) => rotation.handle({ Step: step, SecretId: SECRET_ID, ClientRequestToken: token });
  async function rotate(token: string) {
    secrets.startRotation(token);
    for (const name of STEPS) await step(name, token);
  }
  await rotate('rotation-1');
  await rotate('rotation-2');
  const issuer = new TokenIssuer(new SecretsManagerKeySetSource(secrets.client, SECRET_ID, { clock }), { ...audience, clock });
  const verifier = new TokenVerifier({
    ...audience,
    jwks: new PublishedJwksStore(tables.doc, table, { clock }),
    clients: clientLookup(activeClient('acme')),
    clock,
  });
  const published = new PublishedJwksStore(tables.doc, table, { cacheSeconds: 0 });
  const revocation = new KeyRevocation({ vault: new SecretsManagerKeySetVault(secrets.client, SECRET_ID), jwks: published, clock });
  const current = () => parseKeySet(secrets.valueAt('AWSCURRENT') ?? '');
  return { clock, secrets, published, step, rotate, issuer, verifier, revocation, current };
}

const kidOf = (token: string) => decodeProtectedHeader(token).kid;

describe('emergency revocation of a signing key', () => {
  it('makes every verifier refuse the current key’s tokens within the cache time, and new tokens use a new key', async () => {
    const { clock, issuer, verifier, revocation, current } = await deployment();
    const leaked = current().current;
    const before = (await issuer.issue('acme')).accessToken;
    await expect(verifier.verify(before)).resolves.toMatchObject({ clientId: 'acme' });

    const result = await revocation.revoke(leaked);
    clock.advance(Math.max(JWKS_CACHE_SECONDS, KEY_SET_CACHE_SECONDS));
    const after = (await issuer.issue('acme')).accessToken;

    expect(result).toMatchObject({ revoked: leaked, replacedCurrent: true });
    expect(current().keys.map((key) => key.kid)).not.toContain(leaked);
    await expect(verifier.verify(before)).rejects.toEqual(new InvalidTokenError('invalid'));
    expect(kidOf(after)).toBe(result.current);
    await expect(verifier.verify(after)).resolves.toMatchObject({ clientId: 'acme' });
  });

  it('drops a retired key that rotation would have kept for another hour', async () => {
    const { clock, issuer, verifier, revocation, current, rotate } = await deployment();
    const retired = current().current;
    const signedByRetired = (await issuer.issue('acme')).accessToken;
    await rotate('rotation-3');
    expect(current().keys.map((key) => key.kid)).toContain(retired);

    await revocation.revoke(retired);
    clock.advance(JWKS_CACHE_SECONDS);

    expect((await revocation.list()).map((key) => key.kid)).not.toContain(retired);
    await expect(verifier.verify(signedByRetired)).rejects.toEqual(new InvalidTokenError('invalid'));
  });

  it('stops a rotation under way from bringing the revoked key back', async () => {
    const { secrets, step, rotate, revocation, current } = await deployment();
    const leaked = current().current;
    secrets.startRotation('rotation-3');
    await step('createSecret', 'rotation-3');
    await step('setSecret', 'rotation-3');

    await revocation.revoke(leaked);

    await expect(step('testSecret', 'rotation-3')).rejects.toThrow(RotationError);
    expect(current().keys.map((key) => key.kid)).not.toContain(leaked);
    await rotate('rotation-4');
    expect(current().keys.map((key) => key.kid)).not.toContain(leaked);
    expect((await revocation.list()).map((key) => key.kid)).not.toContain(leaked);
  });

  it('lists every key with whether it signs and whether it is accepted, and refuses an unknown kid', async () => {
    const { revocation, current } = await deployment();
    const keySet = current();

    const listed = await revocation.list();

    expect(listed).toEqual(
      keySet.keys.map((key) => ({ kid: key.kid, createdAt: key.createdAt, current: key.kid === keySet.current, published: true })),
    );
    expect(JSON.stringify(listed)).not.toContain(keySet.keys[0]?.d);
    await expect(revocation.revoke('no-such-kid')).rejects.toThrow(UnknownSigningKeyError);
  });

  it('can be run again after it was interrupted between publishing and replacing the secret', async () => {
    const { secrets, published, revocation, current } = await deployment();
    const leaked = current().current;
    const vault = new SecretsManagerKeySetVault(secrets.client, SECRET_ID);
    const failing = new KeyRevocation({
      vault: { read: () => vault.read(), replace: () => Promise.reject(new Error('throttled')) },
      jwks: published,
    });
    await expect(failing.revoke(leaked)).rejects.toThrow('throttled');
    expect((await revocation.list()).find((key) => key.kid === leaked)).toMatchObject({ current: true, published: false });

    await revocation.revoke(leaked);

    expect(current().keys.map((key) => key.kid)).not.toContain(leaked);
    expect((await revocation.list()).every((key) => key.published)).toBe(true);
  });
});
