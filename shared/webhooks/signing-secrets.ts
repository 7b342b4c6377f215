import type { SecretSealer } from '../crypto/secret-sealer';
import { signingSecretsAt } from './signature';
import {
  currentSecret,
  generateSigningSecret,
  type SealedSigningSecret,
  type SigningSecret,
  type Subscription,
  secretContext,
} from './subscription';

/** A new signing secret for the subscription: in clear for the one answer that shows it, sealed to be kept. */
export async function newSigningSecret(
  sealer: SecretSealer,
  owner: Pick<Subscription, 'clientId' | 'id'>,
  createdAt: string,
): Promise<{ readonly secret: string; readonly kept: SealedSigningSecret }> {
  const secret = generateSigningSecret();
  return { secret, kept: { sealed: await sealer.seal(secret, secretContext(owner)), createdAt } };
}

/** The secret that signs now, opened: for an explicit read of one subscription. */
export function openCurrentSecret(sealer: SecretSealer, subscription: Subscription): Promise<string> {
  return sealer.open(currentSecret(subscription).sealed, secretContext(subscription));
}

/** Every secret that signs at `now`, opened: what the sender signs a delivery with. */
export function openSecretsInForce(sealer: SecretSealer, subscription: Subscription, now: Date): Promise<SigningSecret[]> {
  const context = secretContext(subscription);
  return Promise.all(
    signingSecretsAt(subscription.signingSecrets, now).map(async ({ sealed, ...dates }) => ({
      ...dates,
      secret: await sealer.open(sealed, context),
    })),
  );
}
