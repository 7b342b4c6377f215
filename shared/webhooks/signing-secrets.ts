import type { SealBinding, SecretSealer } from '../crypto/secret-sealer';
import { signingSecretsAt } from './signature';
import {
  currentSecret,
  generateSigningSecret,
  isSealed,
  type KeptSigningSecret,
  type SealedSigningSecret,
  type SigningSecret,
  type Subscription,
  secretContext,
} from './subscription';

/** A subscription's secrets are sealed with its client's data keys, for that one subscription. */
const bindingOf = (subscription: Pick<Subscription, 'clientId' | 'id'>): SealBinding => ({
  clientId: subscription.clientId,
  owner: secretContext(subscription),
});

/** A new signing secret for the subscription: in clear for the one answer that shows it, sealed to be kept. */
export async function newSigningSecret(
  sealer: SecretSealer,
  owner: Pick<Subscription, 'clientId' | 'id'>,
  createdAt: string,
): Promise<{ readonly secret: string; readonly kept: SealedSigningSecret }> {
  const secret = generateSigningSecret();
  return { secret, kept: { sealed: await sealer.seal(secret, bindingOf(owner)), createdAt } };
}

/** A secret kept in clear by an earlier version needs no opening. */
const opened = (sealer: SecretSealer, kept: KeptSigningSecret, binding: SealBinding): Promise<string> =>
  isSealed(kept) ? sealer.open(kept.sealed, binding) : Promise.resolve(kept.secret);

/** The secret that signs now, opened: for an explicit read of one subscription. */
export function openCurrentSecret(sealer: SecretSealer, subscription: Subscription): Promise<string> {
  return opened(sealer, currentSecret(subscription), bindingOf(subscription));
}

/** Every secret that signs at `now`, opened: what the sender signs a delivery with. */
export function openSecretsInForce(sealer: SecretSealer, subscription: Subscription, now: Date): Promise<SigningSecret[]> {
  const binding = bindingOf(subscription);
  return Promise.all(
    signingSecretsAt(subscription.signingSecrets, now).map(async (kept) => ({
      createdAt: kept.createdAt,
      ...(kept.expiresAt === undefined ? {} : { expiresAt: kept.expiresAt }),
      secret: await opened(sealer, kept, binding),
    })),
  );
}

/**
 * The subscription's secrets, every one sealed, when an earlier version left any in clear; undefined
 * when all are sealed already. Each keeps its dates, so it signs for exactly as long as before.
 */
export async function sealSecretsKeptInClear(sealer: SecretSealer, subscription: Subscription): Promise<SealedSigningSecret[] | undefined> {
  if (subscription.signingSecrets.every(isSealed)) return undefined;
  const binding = bindingOf(subscription);
  return Promise.all(
    subscription.signingSecrets.map(async (kept) =>
      isSealed(kept)
        ? kept
        : {
            sealed: await sealer.seal(kept.secret, binding),
            createdAt: kept.createdAt,
            ...(kept.expiresAt === undefined ? {} : { expiresAt: kept.expiresAt }),
          },
    ),
  );
}
