import type { DeliveryMessage } from '../queues/queues';
import { companyOfEnvelope } from './attempt-company';
import type { PostResult } from './delivery-client';
import type { DeliveryAttempt, DeliveryRecord, LogEntry } from './delivery-log';
import type { Subscription } from './subscription';

/** What an attempt is before its call: which delivery, which try, and when. */
export type AttemptStart = Pick<
  DeliveryAttempt,
  'deliveryId' | 'eventType' | 'idempotencyKey' | 'jurisdiction' | 'companyNumber' | 'block' | 'attempt' | 'attemptedAt'
>;

/** What the log keeps of a call. */
export type CallRecord = Pick<
  DeliveryAttempt,
  'httpStatus' | 'responseBody' | 'responseBodyTruncated' | 'error' | 'errorMessage' | 'durationMs'
>;

export function attemptStart(message: DeliveryMessage, attempt: number, at: Date): AttemptStart {
  return {
    deliveryId: message.deliveryId,
    eventType: message.envelope.type,
    idempotencyKey: message.envelope.idempotencyKey,
    // Kept on the attempt so the log can be filtered by company without reading each delivery's envelope.
    ...companyOfEnvelope(message.envelope),
    attempt,
    attemptedAt: at.toISOString(),
  };
}

/**
 * The status, the start of the answer and the time the call took; or, with no answer, why. Built
 * from the call's result alone, which holds nothing of the request: no header, no signature, no secret.
 */
export function callRecord(result: PostResult): CallRecord {
  if (result.kind === 'error') return { error: result.error, errorMessage: result.message, durationMs: result.durationMs };
  return {
    httpStatus: result.status,
    responseBody: result.excerpt.text,
    responseBodyTruncated: result.excerpt.truncated,
    durationMs: result.durationMs,
  };
}

/** The delivery's new state after `attempt`, written with it (and the dead entry it replaces, if any). */
export function logEntryOf(
  message: DeliveryMessage,
  subscription: Subscription,
  attempt: DeliveryAttempt,
  previous: DeliveryRecord | undefined,
): LogEntry {
  const delivery: DeliveryRecord = {
    deliveryId: message.deliveryId,
    clientId: subscription.clientId,
    subscriptionId: subscription.id,
    envelope: message.envelope,
    status: attempt.outcome === 'failed' && attempt.nextAttemptAt ? 'pending' : attempt.outcome,
    attempts: attempt.attempt,
    lastAttemptAt: attempt.attemptedAt,
    ...(attempt.nextAttemptAt ? { nextAttemptAt: attempt.nextAttemptAt } : {}),
  };
  return { delivery, attempt, ...(previous ? { previous } : {}) };
}
