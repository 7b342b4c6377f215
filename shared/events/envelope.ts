import type { BlockName, Jurisdiction } from '../companies/profile';

/*
 * An event as the API shows it: the same envelope in a webhook's body and in GET /v1/events. What
 * makes events (the change detector, a webhook test) and what carries them (the queues, the sender,
 * the events feed) all build on this module, which builds on nothing of theirs.
 */

export type ProfileEventType = 'profile.changed' | 'profile.early_signal.detected' | 'profile.early_signal.updated';

export const PROFILE_EVENT_TYPES: readonly ProfileEventType[] = [
  'profile.changed',
  'profile.early_signal.detected',
  'profile.early_signal.updated',
];

/** Sent by POST /v1/webhooks/{id}/test: it names no company and no block. */
export const TEST_EVENT_TYPE = 'webhook.test';
export type EventType = ProfileEventType | typeof TEST_EVENT_TYPE;

/** The spec's webhook envelope, exactly: it names the change and the company, never a value. */
export interface WebhookEnvelope {
  readonly type: EventType;
  readonly apiVersion: 'v1';
  readonly occurredAt: string;
  readonly idempotencyKey: string;
  readonly block: BlockName | null;
  readonly data: { readonly jurisdiction: Jurisdiction | null; readonly companyNumber: string | null };
}
