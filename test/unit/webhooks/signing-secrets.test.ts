import { describe, expect, it } from 'vitest';
import { UnsealableSecretError } from '../../../shared/crypto/secret-sealer';
import { newSigningSecret, openCurrentSecret, openSecretsInForce, sealSecretsKeptInClear } from '../../../shared/webhooks/signing-secrets';
import type { KeptSigningSecret, Subscription } from '../../../shared/webhooks/subscription';
import { testSealer as sealer, v1SealedSecret } from '../../support/sealer';

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

  it("open for their subscription's client alone: a data key made for one client is never used for another", async () => {
    const keys = sealer();
    const { kept: forA } = await newSigningSecret(keys, subscription([]), AT);
    const { kept: forB } = await newSigningSecret(keys, subscription([], { clientId: 'cli_b' }), AT);
    const dataKey = (kept: KeptSigningSecret) => ('sealed' in kept ? kept.sealed.split('.')[2] : undefined);

    expect(dataKey(forA)).not.toBe(dataKey(forB));
    await expect(openCurrentSecret(keys, subscription([forB]))).rejects.toThrow(UnsealableSecretError);
    await expect(openCurrentSecret(keys, subscription([forA], { clientId: 'cli_b' }))).rejects.toThrow(UnsealableSecretError);
  });

  it('sealed in the v1 format by an earlier version still open, and sign beside a new one', async () => {
    const v1 = v1SealedSecret();
    const legacy = { ...v1.subscription };
    const { secret, kept } = await newSigningSecret(v1.sealer, legacy, AT);
    const old = { sealed: v1.sealed, createdAt: v1.createdAt, expiresAt: '2026-11-25T12:00:00.000Z' };

    await expect(openCurrentSecret(v1.sealer, subscription([{ sealed: v1.sealed, createdAt: v1.createdAt }], legacy))).resolves.toBe(
      v1.secret,
    );
    await expect(openSecretsInForce(v1.sealer, subscription([old, kept], legacy), new Date(AT))).resolves.toEqual([
      { secret: v1.secret, createdAt: v1.createdAt, expiresAt: old.expiresAt },
      { secret, createdAt: AT },
    ]);
    expect(kept.sealed).toMatch(/^v2\./);
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
      { sealed: expect.stringMatching(/^v2\./), createdAt: previous.createdAt, expiresAt: previous.expiresAt },
      kept,
    ]);
    expect(JSON.stringify(sealed)).not.toContain(CLEAR.slice(6));
    await expect(openSecretsInForce(keys, subscription(sealed ?? []), new Date(AT))).resolves.toEqual(
      await openSecretsInForce(keys, subscription([previous, kept]), new Date(AT)),
    );
    await expect(sealSecretsKeptInClear(keys, subscription([kept]))).resolves.toBeUndefined();
  });
});
