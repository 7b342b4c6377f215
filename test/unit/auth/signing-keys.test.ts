import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { FileKeySetSource } from '../../../local/key-file';
import { SecretsManagerKeySetSource } from '../../../shared/auth/secrets-manager-key-sets';
import {
  currentSigningKey,
  generateSigningKey,
  InvalidKeySetError,
  parseKeySet,
  publicJwks,
  revokeKey,
  rotateKeySet,
  UnknownSigningKeyError,
} from '../../../shared/auth/signing-keys';
import { RETIRED_KEY_RETENTION_SECONDS } from '../../../shared/auth/token-policy';
import { FakeSecretsManager } from '../../support/fake-secrets-manager';
import { manualClock } from '../../support/fakes';

const at = (iso: string) => new Date(iso);
const addSeconds = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bureau-keys-'));
  tempDirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('signing keys', () => {
  it('are Ed25519 private JWKs identified by their thumbprint', async () => {
    const key = await generateSigningKey(at('2025-03-01T00:00:00Z'));

    expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', createdAt: '2025-03-01T00:00:00.000Z' });
    expect(key.kid).toBe(await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: key.x }));
    expect(Buffer.from(key.d, 'base64url')).toHaveLength(32);
  });

  it('rotate to a new current key and keep the one just retired', async () => {
    const first = await rotateKeySet(undefined, at('2025-03-01T00:00:00Z'));

    const second = await rotateKeySet(first, at('2025-04-01T00:00:00Z'));

    expect(first.keys).toHaveLength(1);
    expect(second.current).not.toBe(first.current);
    expect(second.keys.map((key) => key.kid)).toEqual([first.current, second.current]);
    expect(currentSigningKey(second).createdAt).toBe('2025-04-01T00:00:00.000Z');
  });

  it('drop a retired key only once every token it can have signed has expired', async () => {
    const start = at('2025-03-01T00:00:00Z');
    const first = await rotateKeySet(undefined, start);
    const second = await rotateKeySet(first, addSeconds(start, 60));

    const soon = await rotateKeySet(second, addSeconds(start, 60 + RETIRED_KEY_RETENTION_SECONDS - 1));
    const later = await rotateKeySet(second, addSeconds(start, 60 + RETIRED_KEY_RETENTION_SECONDS));

    expect(soon.keys.map((key) => key.kid)).toEqual([first.current, second.current, soon.current]);
    expect(later.keys.map((key) => key.kid)).toEqual([second.current, later.current]);
  });

  it('drop a revoked retired key at once, whatever its age, keeping the current one', async () => {
    const first = await rotateKeySet(undefined, at('2025-03-01T00:00:00Z'));
    const second = await rotateKeySet(first, at('2025-03-01T00:00:10Z'));

    const revoked = await revokeKey(second, first.current, at('2025-03-01T00:00:20Z'));

    expect(revoked).toEqual({ current: second.current, keys: [currentSigningKey(second)] });
  });

  it('replace a revoked current key with a new one, so tokens can still be issued', async () => {
    const first = await rotateKeySet(undefined, at('2025-03-01T00:00:00Z'));
    const second = await rotateKeySet(first, at('2025-03-01T00:00:10Z'));

    const revoked = await revokeKey(second, second.current, at('2025-03-01T00:00:20Z'));

    expect(revoked.current).not.toBe(second.current);
    expect(revoked.keys.map((key) => key.kid)).toEqual([first.current, revoked.current]);
    expect(currentSigningKey(revoked).createdAt).toBe('2025-03-01T00:00:20.000Z');
  });

  it('refuse to revoke a kid the set does not hold', async () => {
    const keySet = await rotateKeySet(undefined);

    await expect(revokeKey(keySet, 'no-such-kid')).rejects.toThrow(UnknownSigningKeyError);
  });

  it('publish only the public halves', async () => {
    const keySet = await rotateKeySet(await rotateKeySet(undefined));

    const jwks = publicJwks(keySet);

    expect(jwks.keys).toHaveLength(2);
    for (const key of jwks.keys) {
      expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
      expect(key).toMatchObject({ alg: 'EdDSA', use: 'sig' });
    }
    expect(JSON.stringify(jwks)).not.toContain(keySet.keys[0]?.d);
  });

  it('parse back from JSON and refuse anything else', async () => {
    const keySet = await rotateKeySet(undefined);
    const [key] = keySet.keys;

    expect(parseKeySet(JSON.stringify(keySet))).toEqual(keySet);
    for (const text of [
      'not json',
      '{}',
      JSON.stringify({ current: 'x', keys: [] }),
      JSON.stringify({ ...keySet, current: 'missing' }),
      JSON.stringify({ ...keySet, keys: [{ ...key, crv: 'P-256' }] }),
      JSON.stringify({ ...keySet, keys: [{ ...key, d: undefined }] }),
      JSON.stringify({ ...keySet, keys: [{ ...key, createdAt: 'yesterday' }] }),
    ]) {
      expect(() => parseKeySet(text), text).toThrow(InvalidKeySetError);
    }
  });
});

describe('the key file used locally', () => {
  it('is created on first use, readable by its owner only, and reused afterwards', async () => {
    const path = join(tempDir(), 'nested', 'signing-keys.json');

    const created = await new FileKeySetSource(path).get();
    const reloaded = await new FileKeySetSource(path).get();

    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(reloaded).toEqual(created);
    expect(parseKeySet(readFileSync(path, 'utf8'))).toEqual(created);
  });

  it('is never overwritten when it holds something unreadable', async () => {
    const path = join(tempDir(), 'signing-keys.json');
    writeFileSync(path, '{"broken": true}');

    await expect(new FileKeySetSource(path).get()).rejects.toThrow(InvalidKeySetError);
    expect(readFileSync(path, 'utf8')).toBe('{"broken": true}');
  });

  it('is read again after the cache time, so a replacement reaches a running signer', async () => {
    const path = join(tempDir(), 'signing-keys.json');
    const clock = manualClock();
    const signer = new FileKeySetSource(path, { cacheSeconds: 60, clock });
    const original = await signer.get();
    const replaced = await revokeKey(original, original.current);

    await new FileKeySetSource(path).replace(replaced);
    const cached = await signer.get();
    clock.advance(60);
    const reread = await signer.get();

    expect(cached).toEqual(original);
    expect(reread).toEqual(replaced);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});

describe('the key set in Secrets Manager', () => {
  it('is read as AWSCURRENT and cached for a few minutes', async () => {
    const secrets = new FakeSecretsManager('arn:keys');
    const first = await rotateKeySet(undefined);
    secrets.seed('v1', JSON.stringify(first), ['AWSCURRENT']);
    const clock = manualClock();
    const source = new SecretsManagerKeySetSource(secrets.client, 'arn:keys', { cacheSeconds: 300, clock });

    expect(await source.get()).toEqual(first);
    const second = await rotateKeySet(first);
    secrets.seed('v2', JSON.stringify(second), ['AWSCURRENT']);
    clock.advance(299);
    const cached = await source.get();
    clock.advance(1);
    const refreshed = await source.get();

    expect(cached).toEqual(first);
    expect(refreshed).toEqual(second);
    expect(secrets.calls.filter((call) => call === 'GetSecretValueCommand')).toHaveLength(2);
  });

  it('keeps signing with the last key set read while Secrets Manager cannot be reached, and reads again after', async () => {
    const secrets = new FakeSecretsManager('arn:keys');
    const first = await rotateKeySet(undefined);
    secrets.seed('v1', JSON.stringify(first), ['AWSCURRENT']);
    const clock = manualClock();
    const source = new SecretsManagerKeySetSource(secrets.client, 'arn:keys', { cacheSeconds: 300, clock });
    await source.get();

    secrets.unreachable = true;
    clock.advance(300);
    const duringOutage = await source.get();
    secrets.unreachable = false;
    const second = await rotateKeySet(first);
    secrets.seed('v2', JSON.stringify(second), ['AWSCURRENT']);
    clock.advance(300);
    const after = await source.get();

    expect(duringOutage).toEqual(first);
    expect(after).toEqual(second);
  });

  it('is read again after a failed read instead of caching the failure', async () => {
    const secrets = new FakeSecretsManager('arn:keys');
    const source = new SecretsManagerKeySetSource(secrets.client, 'arn:keys');

    await expect(source.get()).rejects.toThrow();
    const keySet = await rotateKeySet(undefined);
    secrets.seed('v1', JSON.stringify(keySet), ['AWSCURRENT']);

    expect(await source.get()).toEqual(keySet);
  });
});
