import { createHash } from 'node:crypto';
import { canonicalJson } from '../companies/company-store';
import type { BlockName, CompanyProfile, EarlySignal } from '../companies/profile';
import { type ProfileEventType, TEST_EVENT_TYPE, type WebhookEnvelope } from '../events/envelope';

/** The blocks whose any change is one profile.changed event; earlySignals has events of its own. */
export const CHANGE_TRACKED_BLOCKS = ['overview', 'tradingStatus', 'filingBehaviour', 'riskOfFailure', 'creditCapacity'] as const;

/** Signal states whose arrival is an update event; a return to active is not one (the spec names none). */
const UPDATE_STATES: ReadonlySet<EarlySignal['state']> = new Set(['superseded', 'expired']);

function envelope(type: ProfileEventType, after: CompanyProfile, block: BlockName, idempotencyKey: string): WebhookEnvelope {
  return {
    type,
    apiVersion: 'v1',
    occurredAt: new Date(after.updatedAt).toISOString(),
    idempotencyKey,
    block,
    data: { jurisdiction: after.jurisdiction, companyNumber: after.companyNumber },
  };
}

/**
 * The events one profile write makes, from its old and new images alone, so a record processed
 * twice yields the same events with the same keys: one profile.changed per changed tracked block
 * (keyed by the new version), one detected per new signal id, one updated per signal that moved to
 * superseded or expired (keyed by signal id and state).
 */
export function changeEvents(before: CompanyProfile, after: CompanyProfile): WebhookEnvelope[] {
  const company = `${after.jurisdiction}:${after.companyNumber}`;
  const events: WebhookEnvelope[] = [];
  for (const block of CHANGE_TRACKED_BLOCKS) {
    // Keys sorted: the images come from DynamoDB maps, whose key order is not the written order.
    if (canonicalJson(before[block]) === canonicalJson(after[block])) continue;
    events.push(envelope('profile.changed', after, block, `profile.changed:${company}:${block}:v${after.version}`));
  }
  const previous = new Map((before.earlySignals?.signals ?? []).map((signal) => [signal.id, signal]));
  for (const signal of after.earlySignals?.signals ?? []) {
    const known = previous.get(signal.id);
    const key = `early_signal:${company}:${signal.id}:${signal.state}`;
    if (!known) events.push(envelope('profile.early_signal.detected', after, 'earlySignals', key));
    else if (known.state !== signal.state && UPDATE_STATES.has(signal.state)) {
      events.push(envelope('profile.early_signal.updated', after, 'earlySignals', key));
    }
  }
  return events;
}

/** A test event: its key is unique to the request, so a receiver never dedupes it away. */
export function testEvent(subscriptionId: string, at: Date, nonce: string): WebhookEnvelope {
  return {
    type: TEST_EVENT_TYPE,
    apiVersion: 'v1',
    occurredAt: at.toISOString(),
    idempotencyKey: `${TEST_EVENT_TYPE}:${subscriptionId}:${nonce}`,
    block: null,
    data: { jurisdiction: null, companyNumber: null },
  };
}

/**
 * The delivery of one event to one subscription, named the same however often it is computed: the
 * webhook-id header, stable across retries and re-processing, as Standard Webhooks asks.
 */
export function deliveryIdOf(idempotencyKey: string, subscriptionId: string): string {
  return `msg_${createHash('sha256').update(`${idempotencyKey}\n${subscriptionId}`).digest('base64url').slice(0, 27)}`;
}

export const DELIVERY_ID = /^msg_[A-Za-z0-9_-]{27}$/;
