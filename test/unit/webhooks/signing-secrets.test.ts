import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EnvelopeSealer, UnsealableSecretError } from '../../../shared/crypto/secret-sealer';
import { newSigningSecret, openCurrentSecret, openSecretsInForce, sealSecretsKeptInClear } from '../../../shared/webhooks/signing-secrets';
import type { KeptSigningSecret, Subscription } from '../../../shared/webhooks/subscription';

/** Data keys kept in memory: enough for the sealing to be real AES-GCM. */
const sealer = () => {
  const wrapped = new Map<string, Buffer>();
  return new EnvelopeSealer({
    generate: async () => {
      const plaintext = randomBytes(32);
      const encrypted = randomBytes(16);
      wrapped.set(encrypted.toString('hex'), plaintext);
      return { plaintext, encrypted };
    },
    decrypt: async (encrypted) => wrapped.get(Buffer.from(encrypted).toString('hex')) ?? Buffer.alloc(32),
  });
};

const CLEAR = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo=';
const AT = '2026-11-24T12:00:00.000Z';

const subscription = (signingSecrets: readonly KeptSigningSecret[], fields: Partial<Subscription> = {}): Subscription => ({
  id: 'wh_AAAAAAAAAAAAAAAA',
  clientId: 'cli_a',
  name: 'hook',
  url: 'https://hooks.example.com/in',
  status: 'ACTIVE',
  signingSecrets,
  createdAt: AT,
  updatedAt: AT,
  ...fields,
});

describe('signing secrets kept for a subscription', () => {
  it('open only for the subscription they were sealed for', async () => {
    const keys = sealer();
    const owner = subscription([]);
    const { secret, kept } = await newSigningSecret(keys, owner, AT);

    await expect(openCurrentSecret(keys, subscription([kept]))).resolves.toBe(secret);
    await expect(openCurrentSecret(keys, subscription([kept], { id: 'wh_BBBBBBBBBBBBBBBB' }))).rejects.toThrow(UnsealableSecretError);
    await expect(openCurrentSecret(keys, subscription([kept], { clientId: 'cli_b' }))).rejects.toThrow(UnsealableSecretError);
  });

  it('kept in clear by an earlier version are read as they are, beside sealed ones', async () => {
    const keys = sealer();
    const { secret, kept } = await newSigningSecret(keys, subscription([]), AT);
    const legacy = subscription([{ secret: CLEAR, createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-11-25T12:00:00.000Z' }, kept]);

    await expect(openCurrentSecret(keys, subscription([{ secret: CLEAR, createdAt: AT }]))).resolves.toBe(CLEAR);
    await expect(openSecretsInForce(keys, legacy, new Date(AT))).resolves.toEqual([
      { secret: CLEAR, createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-11-25T12:00:00.000Z' },
      { secret, createdAt: AT },
    ]);
  });

  it('in clear are sealed for their subscription, each keeping its dates; all sealed, there is nothing to do', async () => {
    const keys = sealer();
    const { kept } = await newSigningSecret(keys, subscription([]), AT);
    const previous = { secret: CLEAR, createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-11-25T12:00:00.000Z' };

    const sealed = await sealSecretsKeptInClear(keys, subscription([previous, kept]));

    expect(sealed).toEqual([
      { sealed: expect.stringMatching(/^v1\./), createdAt: previous.createdAt, expiresAt: previous.expiresAt },
      kept,
    ]);
    expect(JSON.stringify(sealed)).not.toContain(CLEAR.slice(6));
    await expect(openSecretsInForce(keys, subscription(sealed ?? []), new Date(AT))).resolves.toEqual(
      await openSecretsInForce(keys, subscription([previous, kept]), new Date(AT)),
    );
    await expect(sealSecretsKeptInClear(keys, subscription([kept]))).resolves.toBeUndefined();
  });
});
