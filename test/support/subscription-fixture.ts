import { generateSigningSecret, generateSubscriptionId, type Subscription } from '../../shared/webhooks/subscription';

/** A new ACTIVE subscription with a fresh id and secret, created now unless told otherwise. */
export function subscriptionFixture(fields: { clientId: string; url: string; name?: string; at?: Date }): Subscription {
  const at = (fields.at ?? new Date()).toISOString();
  return {
    id: generateSubscriptionId(),
    clientId: fields.clientId,
    name: fields.name ?? 'hook',
    url: fields.url,
    status: 'ACTIVE',
    signingSecrets: [{ secret: generateSigningSecret(), createdAt: at }],
    createdAt: at,
    updatedAt: at,
  };
}
