import { BLOCK_NAMES, type BlockName, JURISDICTIONS, type Jurisdiction } from '../companies/profile';
import type { WebhookEnvelope } from '../events/envelope';
import type { DeliveryAttempt } from './delivery-log';

/** The company and block an attempt's event names; each absent for a test event. */
export interface AttemptCompany {
  readonly jurisdiction?: Jurisdiction;
  readonly companyNumber?: string;
  readonly block?: BlockName;
}

/** What an envelope names, as the log keeps it beside each attempt: nothing for a test event. */
export function companyOfEnvelope(envelope: WebhookEnvelope): AttemptCompany {
  return {
    ...(envelope.data.jurisdiction ? { jurisdiction: envelope.data.jurisdiction } : {}),
    ...(envelope.data.companyNumber ? { companyNumber: envelope.data.companyNumber } : {}),
    ...(envelope.block ? { block: envelope.block } : {}),
  };
}

/**
 * The company and block of an event read back from its idempotencyKey, for attempts logged before they
 * were kept. The change detector writes `profile.changed:GB:12345678:riskOfFailure:v3` and
 * `early_signal:GB:12345678:<signal id>:<state>` (events.ts); a test event's key names no company.
 */
export function companyOfKey(eventType: string, idempotencyKey: string): AttemptCompany {
  const [kind, jurisdiction, companyNumber, detail] = idempotencyKey.split(':');
  if (!JURISDICTIONS.includes(jurisdiction as Jurisdiction) || !companyNumber) return {};
  const company = { jurisdiction: jurisdiction as Jurisdiction, companyNumber };
  if (kind === 'profile.changed' && eventType === 'profile.changed' && BLOCK_NAMES.includes(detail as BlockName)) {
    return { ...company, block: detail as BlockName };
  }
  if (kind === 'early_signal' && eventType.startsWith('profile.early_signal.')) return { ...company, block: 'earlySignals' };
  return {};
}

/** An attempt with its company and block, as kept or, for an older attempt, as its key names them. */
export function withCompany(attempt: DeliveryAttempt): DeliveryAttempt {
  if (attempt.companyNumber !== undefined) return attempt;
  return { ...attempt, ...companyOfKey(attempt.eventType, attempt.idempotencyKey) };
}
