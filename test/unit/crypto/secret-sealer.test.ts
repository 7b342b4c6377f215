import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type DataKeys, EnvelopeSealer, UnsealableSecretError } from '../../../shared/crypto/secret-sealer';
import type { EncryptionContext } from '../../../shared/crypto/webhook-secrets-key';
import { testSealer, v1SealedSecret } from '../../support/sealer';

const contextText = (context: EncryptionContext) => JSON.stringify(Object.entries(context).sort());

/**
 * Data keys "wrapped" by prefixing the context they were made under, which decrypt checks as a key
 * service does, counting the calls and recording each context asked for.
 */
function countingKeys(options: { failDecrypts?: number } = {}) {
  const calls = { generate: 0, decrypt: 0 };
  const contexts: { generate: EncryptionContext[]; decrypt: EncryptionContext[] } = { generate: [], decrypt: [] };
  let failures = options.failDecrypts ?? 0;
  const keys: DataKeys = {
    generate: async (context) => {
      calls.generate += 1;
      contexts.generate.push(context);
      const plaintext = randomBytes(32);
      return { plaintext, encrypted: Buffer.concat([Buffer.from(`${contextText(context)}|`), plaintext]) };
    },
    decrypt: async (encrypted, context) => {
      calls.decrypt += 1;
      contexts.decrypt.push(context);
      if (failures-- > 0) throw new Error('key service unavailable');
      const prefix = Buffer.from(`${contextText(context)}|`);
      if (!Buffer.from(encrypted).subarray(0, prefix.length).equals(prefix)) throw new Error('InvalidCiphertextException');
      return Buffer.from(encrypted).subarray(prefix.length);
    },
  };
  return { keys, calls, contexts };
}

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo=';
const A = { clientId: 'cli_a', owner: 'webhook-signing-secret:cli_a/wh_1' };
const B = { clientId: 'cli_b', owner: 'webhook-signing-secret:cli_b/wh_1' };
const PURPOSE = 'bureau-webhook-signing-secrets';

/** The same sealed value, its recorded client replaced. */
const recordedFor = (sealed: string, clientId: string) => {
  const [version, , ...rest] = sealed.split('.');
  return [version, Buffer.from(clientId).toString('base64url'), ...rest].join('.');
};

describe('envelope sealing of signing secrets', () => {
  it('keeps nothing of the secret in clear, records its client, and opens it again for the same owner', async () => {
    const { keys } = countingKeys();
    const sealer = new EnvelopeSealer(keys);

    const sealed = await sealer.seal(SECRET, A);

    expect(sealed).toMatch(/^v2\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(Buffer.from(sealed.split('.')[1] as string, 'base64url').toString()).toBe('cli_a');
    expect(sealed).not.toContain(SECRET.slice(6, 20));
    await expect(sealer.open(sealed, A)).resolves.toBe(SECRET);
  });

  it("makes and opens each data key under its client's encryption context, never one shared by all", async () => {
    const { keys, contexts } = countingKeys();
    const sealed = await new EnvelopeSealer(keys).seal(SECRET, A);

    await new EnvelopeSealer(keys).open(sealed, A);

    expect(contexts.generate).toEqual([{ purpose: PURPOSE, clientId: 'cli_a' }]);
    expect(contexts.decrypt).toEqual([{ purpose: PURPOSE, clientId: 'cli_a' }]);
  });

  it('refuses to open a sealed secret moved to another owner or client, or altered', async () => {
    const sealer = new EnvelopeSealer(countingKeys().keys);
    const sealed = await sealer.seal(SECRET, A);
    const [version, client, key, iv, data, tag] = sealed.split('.');
    const flipped = Buffer.from(data as string, 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;

    await expect(sealer.open(sealed, { ...A, owner: 'webhook-signing-secret:cli_a/wh_2' })).rejects.toThrow(UnsealableSecretError);
    await expect(sealer.open(sealed, B)).rejects.toThrow('sealed for another client');
    await expect(sealer.open([version, client, key, iv, flipped.toString('base64url'), tag].join('.'), A)).rejects.toThrow(
      UnsealableSecretError,
    );
    await expect(sealer.open('v2.garbage', A)).rejects.toThrow(UnsealableSecretError);
  });

  it("never hands one client's data key to another: a value relabelled for B is refused by the key service", async () => {
    const { keys, contexts } = countingKeys();
    const sealer = new EnvelopeSealer(keys);
    const sealed = await sealer.seal(SECRET, A);
    // The same sealer holds A's data key, opened; relabelled, the value must still go to the key service under B's context.
    const relabelled = recordedFor(sealed, 'cli_b');

    await expect(sealer.open(relabelled, { clientId: 'cli_b', owner: A.owner })).rejects.toThrow('InvalidCiphertextException');
    expect(contexts.decrypt).toEqual([{ purpose: PURPOSE, clientId: 'cli_b' }]);
  });

  it('seals each client under a data key of its own, and shares one among the secrets of a client', async () => {
    const { keys, calls } = countingKeys();
    const sealer = new EnvelopeSealer(keys);

    const [a1, a2, b1] = await Promise.all([sealer.seal(SECRET, A), sealer.seal(SECRET, A), sealer.seal(SECRET, B)]);

    const dataKey = (sealed?: string) => sealed?.split('.')[2];
    expect(calls.generate).toBe(2);
    expect(dataKey(a1)).toBe(dataKey(a2));
    expect(dataKey(b1)).not.toBe(dataKey(a1));
  });

  it('asks the key service for one data key for many secrets of a client, and opens each data key once', async () => {
    const { keys, calls } = countingKeys();
    const writer = new EnvelopeSealer(keys);
    const owner = (i: number) => ({ clientId: 'cli_a', owner: `owner-${i}` });
    const sealed = await Promise.all(Array.from({ length: 50 }, (_, i) => writer.seal(`${SECRET}${i}`, owner(i))));
    const reader = new EnvelopeSealer(keys);

    const opened = await Promise.all(sealed.map((value, i) => reader.open(value, owner(i))));

    expect(opened[49]).toBe(`${SECRET}49`);
    expect(calls).toEqual({ generate: 1, decrypt: 1 });
  });

  it('takes a new data key after five minutes', async () => {
    const { keys, calls } = countingKeys();
    let now = 0;
    const sealer = new EnvelopeSealer(keys, () => now);

    await sealer.seal(SECRET, A);
    now += 5 * 60_000 + 1;
    await sealer.seal(SECRET, A);

    expect(calls.generate).toBe(2);
  });

  it('asks again after a failed decryption rather than keeping the failure', async () => {
    const { keys, calls } = countingKeys({ failDecrypts: 1 });
    const sealed = await new EnvelopeSealer(keys).seal(SECRET, A);
    const reader = new EnvelopeSealer(keys);

    await expect(reader.open(sealed, A)).rejects.toThrow('key service unavailable');
    await expect(reader.open(sealed, A)).resolves.toBe(SECRET);
    expect(calls.decrypt).toBe(2);
  });

  it('never takes a secret in clear for a sealed one', async () => {
    await expect(new EnvelopeSealer(countingKeys().keys).open(SECRET, A)).rejects.toThrow(UnsealableSecretError);
  });
});

describe('sealing against the local key service', () => {
  it("refuses, as KMS does, client A's secret relabelled and opened as client B's", async () => {
    const sealer = testSealer();
    const sealed = await sealer.seal(SECRET, A);

    await expect(sealer.open(sealed, A)).resolves.toBe(SECRET);
    await expect(sealer.open(sealed, B)).rejects.toThrow(UnsealableSecretError);
    await expect(sealer.open(recordedFor(sealed, 'cli_b'), { clientId: 'cli_b', owner: A.owner })).rejects.toMatchObject({
      name: 'InvalidCiphertextException',
    });
  });

  it('opens a secret sealed in the v1 format, its data key under the purpose alone', async () => {
    const v1 = v1SealedSecret();
    const binding = { clientId: v1.subscription.clientId, owner: `webhook-signing-secret:cli_legacy/wh_legacy` };

    expect(v1.sealed).toMatch(/^v1\./);
    await expect(v1.sealer.open(v1.sealed, binding)).resolves.toBe(v1.secret);
    await expect(v1.sealer.open(v1.sealed, { ...binding, owner: 'webhook-signing-secret:cli_legacy/wh_other' })).rejects.toThrow(
      UnsealableSecretError,
    );
  });

  it("keeps v1's data key closed under a client's context: the old context is used for v1 values only", async () => {
    const v1 = v1SealedSecret();
    const dataKey = Buffer.from(v1.sealed.split('.')[1] as string, 'base64url');

    await expect(v1.keys.decrypt(dataKey, { purpose: PURPOSE })).resolves.toHaveLength(32);
    await expect(v1.keys.decrypt(dataKey, { purpose: PURPOSE, clientId: 'cli_legacy' })).rejects.toMatchObject({
      name: 'InvalidCiphertextException',
    });
  });
});
