import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type DataKeys, EnvelopeSealer, UnsealableSecretError } from '../../../shared/crypto/secret-sealer';

/** Data keys "wrapped" by prefixing a marker, counting the calls a key service would get. */
function countingKeys(options: { failDecrypts?: number } = {}) {
  const calls = { generate: 0, decrypt: 0 };
  let failures = options.failDecrypts ?? 0;
  const keys: DataKeys = {
    generate: async () => {
      calls.generate += 1;
      const plaintext = randomBytes(32);
      return { plaintext, encrypted: Buffer.concat([Buffer.from('wrapped:'), plaintext]) };
    },
    decrypt: async (encrypted) => {
      calls.decrypt += 1;
      if (failures-- > 0) throw new Error('key service unavailable');
      return Buffer.from(encrypted).subarray('wrapped:'.length);
    },
  };
  return { keys, calls };
}

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo=';

describe('envelope sealing of signing secrets', () => {
  it('keeps nothing of the secret in clear, and opens it again for the same owner', async () => {
    const { keys } = countingKeys();
    const sealer = new EnvelopeSealer(keys);

    const sealed = await sealer.seal(SECRET, 'webhook-signing-secret:cli_a/wh_1');

    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(SECRET.slice(6, 20));
    await expect(sealer.open(sealed, 'webhook-signing-secret:cli_a/wh_1')).resolves.toBe(SECRET);
  });

  it('refuses to open a sealed secret moved to another owner, or altered', async () => {
    const sealer = new EnvelopeSealer(countingKeys().keys);
    const sealed = await sealer.seal(SECRET, 'webhook-signing-secret:cli_a/wh_1');
    const [version, key, iv, data, tag] = sealed.split('.');
    const flipped = Buffer.from(data as string, 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;

    await expect(sealer.open(sealed, 'webhook-signing-secret:cli_b/wh_1')).rejects.toThrow(UnsealableSecretError);
    await expect(
      sealer.open([version, key, iv, flipped.toString('base64url'), tag].join('.'), 'webhook-signing-secret:cli_a/wh_1'),
    ).rejects.toThrow(UnsealableSecretError);
    await expect(sealer.open('v1.garbage', 'x')).rejects.toThrow(UnsealableSecretError);
  });

  it('asks the key service for one data key for many secrets, and opens each data key once', async () => {
    const { keys, calls } = countingKeys();
    const writer = new EnvelopeSealer(keys);
    const sealed = await Promise.all(Array.from({ length: 50 }, (_, i) => writer.seal(`${SECRET}${i}`, `owner-${i}`)));
    const reader = new EnvelopeSealer(keys);

    const opened = await Promise.all(sealed.map((value, i) => reader.open(value, `owner-${i}`)));

    expect(opened[49]).toBe(`${SECRET}49`);
    expect(calls).toEqual({ generate: 1, decrypt: 1 });
  });

  it('takes a new data key after five minutes', async () => {
    const { keys, calls } = countingKeys();
    let now = 0;
    const sealer = new EnvelopeSealer(keys, () => now);

    await sealer.seal(SECRET, 'a');
    now += 5 * 60_000 + 1;
    await sealer.seal(SECRET, 'b');

    expect(calls.generate).toBe(2);
  });

  it('asks again after a failed decryption rather than keeping the failure', async () => {
    const { keys, calls } = countingKeys({ failDecrypts: 1 });
    const sealed = await new EnvelopeSealer(keys).seal(SECRET, 'a');
    const reader = new EnvelopeSealer(keys);

    await expect(reader.open(sealed, 'a')).rejects.toThrow('key service unavailable');
    await expect(reader.open(sealed, 'a')).resolves.toBe(SECRET);
    expect(calls.decrypt).toBe(2);
  });

  it('never takes a secret in clear for a sealed one', async () => {
    await expect(new EnvelopeSealer(countingKeys().keys).open(SECRET, 'any')).rejects.toThrow(UnsealableSecretError);
  });
});
