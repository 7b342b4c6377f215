import type { SecretSealer } from '../../shared/crypto/secret-sealer';
import { newSigningSecret } from '../../shared/webhooks/signing-secrets';
import { generateSubscriptionId, type Subscription } from '../../shared/webhooks/subscription';
import { testSealer } from './sealer';

/** The sealer the fixtures seal with: give it to whatever opens their secrets. */
export const fixtureSealer = testSealer();

/** A new ACTIVE subscription with a fresh id and sealed secret, created now unless told otherwise. */
export async function subscriptionFixture(fields: {
  clientId: string;
  url: string;
  name?: string;
  at?: Date;
  sealer?: SecretSealer;
}): Promise<Subscription> {
  const at = (fields.at ?? new Date()).toISOString();
  const id = generateSubscriptionId();
  const { kept } = await newSigningSecret(fields.sealer ?? fixtureSealer, { clientId: fields.clientId, id }, at);
  return {
    id,
    clientId: fields.clientId,
    name: fields.name ?? 'hook',
    url: fields.url,
    status: 'ACTIVE',
    signingSecrets: [kept],
    createdAt: at,
    updatedAt: at,
  };
}
