import type { WebhookEnvelope } from '../../shared/events/envelope';
import type { DeliveryMessage } from '../../shared/queues/queues';
import type { PostResult } from '../../shared/webhooks/delivery-client';
import type { DeliveryRecord } from '../../shared/webhooks/delivery-log';
import type { Subscription } from '../../shared/webhooks/subscription';

/** The instant the delivery fixtures are made at. */
export const FIXTURE_NOW = new Date('2026-11-24T12:00:00.000Z');

/** A Standard Webhooks secret, kept in clear as an earlier version kept them: it opens with no sealer. */
export const FIXTURE_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo=';

export const fixtureEnvelope: WebhookEnvelope = {
  type: 'profile.changed',
  apiVersion: 'v1',
  occurredAt: FIXTURE_NOW.toISOString(),
  idempotencyKey: 'profile.changed:GB:00000001:overview:v2',
  block: 'overview',
  data: { jurisdiction: 'GB', companyNumber: '00000001' },
};

export function activeSubscription(fields: Partial<Subscription> = {}): Subscription {
  return {
    id: 'wh_AAAAAAAAAAAAAAAA',
    clientId: 'cli_a',
    name: 'hook',
    url: 'https://hooks.example.com/in',
    status: 'ACTIVE',
    signingSecrets: [{ secret: FIXTURE_SECRET, createdAt: '2026-01-01T00:00:00.000Z' }],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...fields,
  };
}

export const deliveryMessage = (fields: Partial<DeliveryMessage> = {}): DeliveryMessage => ({
  deliveryId: 'msg_1',
  clientId: 'cli_a',
  subscriptionId: 'wh_AAAAAAAAAAAAAAAA',
  envelope: fixtureEnvelope,
  ...fields,
});

/** The log's record of a delivery tried `attempts` times, its next attempt due at FIXTURE_NOW. */
export const pendingAfter = (attempts: number, fields: Partial<DeliveryRecord> = {}): DeliveryRecord => ({
  deliveryId: 'msg_1',
  clientId: 'cli_a',
  subscriptionId: 'wh_AAAAAAAAAAAAAAAA',
  envelope: fixtureEnvelope,
  status: 'pending',
  attempts,
  lastAttemptAt: FIXTURE_NOW.toISOString(),
  nextAttemptAt: FIXTURE_NOW.toISOString(),
  ...fields,
});

/** A receiver's answer as the delivery client reports it. */
export const answered = (
  status: number,
  fields: { retryAfter?: string; durationMs?: number; body?: string; truncated?: boolean } = {},
): PostResult => ({
  kind: 'response',
  status,
  ...(fields.retryAfter === undefined ? {} : { retryAfter: fields.retryAfter }),
  excerpt: { text: fields.body ?? '', truncated: fields.truncated ?? false },
  durationMs: fields.durationMs ?? 3,
});
