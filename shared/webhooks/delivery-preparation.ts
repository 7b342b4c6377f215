import type { SecretSealer } from '../crypto/secret-sealer';
import type { DeliveryMessage } from '../queues/queues';
import { type AttemptStart, attemptStart, logEntryOf } from './delivery-attempt';
import type { DeliveryAttempt, DeliveryLog, DeliveryRecord, LogEntry } from './delivery-log';
import type { SendOutcome } from './send-outcome';
import { type SignedHeaders, signedHeaders } from './signature';
import { openSecretsInForce } from './signing-secrets';
import type { SigningSecret, Subscription, SubscriptionDirectory } from './subscription';

/** A retry that returns this close to its time is sent rather than hidden again. */
export const DUE_TOLERANCE_MS = 1000;

/** What a batch's deliveries are to be prepared from: their subscriptions by id, their log records by delivery id. */
export interface BatchState {
  readonly subscriptions: ReadonlyMap<string, Subscription>;
  readonly previous: ReadonlyMap<string, DeliveryRecord>;
}

/** A delivery to send now, and everything its settlement needs to know of it. */
export interface DueDelivery {
  readonly message: DeliveryMessage;
  readonly subscription: Subscription;
  /** Its record in the log before this attempt. */
  readonly previous?: DeliveryRecord;
  readonly start: AttemptStart;
  /** This message's own attempts so far, this one included: its place in the retry schedule. */
  readonly round: number;
}

export type Preparation =
  /** Neither sent nor logged. */
  | { readonly kind: 'skip'; readonly outcome: SendOutcome }
  /** Not sent, but logged: the subscription is disabled. */
  | { readonly kind: 'drop'; readonly outcome: SendOutcome; readonly logged: LogEntry }
  | { readonly kind: 'send'; readonly due: DueDelivery };

export interface SignedRequest {
  readonly url: string;
  readonly headers: SignedHeaders;
  readonly body: string;
}

/** One read of the subscriptions and one of the log, for the whole batch. */
export async function loadBatchState(
  subscriptions: Pick<SubscriptionDirectory, 'getMany'>,
  log: Pick<DeliveryLog, 'readMany'>,
  messages: readonly DeliveryMessage[],
): Promise<BatchState> {
  const [found, previous] = await Promise.all([
    subscriptions.getMany(messages.map((message) => ({ clientId: message.clientId, id: message.subscriptionId }))),
    log.readMany(messages.map((message) => ({ subscriptionId: message.subscriptionId, deliveryId: message.deliveryId }))),
  ]);
  return { subscriptions: found, previous };
}

/**
 * Whether a delivery is sent now, from its message, its subscription and its record in the log:
 * already delivered (sent again only on a manual retry), its subscription gone or another client's
 * (nothing to log it under), disabled (logged as dropped), not yet due (hidden again for the time
 * left: a retry before its next attempt, a recovered delivery before its slot; a manual retry is due
 * at once), or due. Its place in the schedule is the log's
 * count, never the queue's receive count, so a run that logged nothing spent no attempt.
 */
export function prepareDelivery(
  message: DeliveryMessage,
  subscription: Subscription | undefined,
  previous: DeliveryRecord | undefined,
  now: Date,
): Preparation {
  if (previous?.status === 'delivered' && !message.manual) return { kind: 'skip', outcome: { kind: 'duplicate' } };
  if (!subscription || subscription.clientId !== message.clientId) {
    return { kind: 'skip', outcome: { kind: 'dropped', reason: 'the subscription was deleted' } };
  }
  const waitMs = message.manual ? 0 : dueAtOf(message, previous) - now.getTime();
  if (waitMs > DUE_TOLERANCE_MS) return { kind: 'skip', outcome: { kind: 'early', delaySeconds: Math.ceil(waitMs / 1000) } };
  const number = (previous?.attempts ?? 0) + 1;
  const start = attemptStart(message, number, now);
  if (subscription.status !== 'ACTIVE') {
    const reason = 'the subscription is disabled';
    const attempt: DeliveryAttempt = { ...start, outcome: 'dropped', error: 'subscription_disabled', errorMessage: reason, durationMs: 0 };
    return { kind: 'drop', outcome: { kind: 'dropped', reason }, logged: logEntryOf(message, subscription, attempt, previous) };
  }
  // A manual retry or a recovery starts the schedule afresh from the attempts before it was queued.
  const round = Math.max(1, number - (message.scheduleFrom ?? 0));
  return { kind: 'send', due: { message, subscription, ...(previous ? { previous } : {}), start, round } };
}

/** When a delivery may be sent (epoch ms): its slot, if a recovery gave it one, and its next attempt, if one is scheduled. */
function dueAtOf(message: DeliveryMessage, previous: DeliveryRecord | undefined): number {
  const slot = message.dueAt === undefined ? Number.NaN : Date.parse(message.dueAt);
  const next = previous?.status === 'pending' && previous.nextAttemptAt ? Date.parse(previous.nextAttemptAt) : Number.NaN;
  return Math.max(Number.isNaN(slot) ? 0 : slot, Number.isNaN(next) ? 0 : next);
}

/** The POST of a due delivery: its envelope as the body, signed by the secrets given. */
export function requestOf(due: Pick<DueDelivery, 'message' | 'subscription'>, secrets: readonly SigningSecret[], at: Date): SignedRequest {
  const body = JSON.stringify(due.message.envelope);
  return { url: due.subscription.url, headers: signedHeaders(secrets, due.message.deliveryId, at, body), body };
}

/**
 * Opens the subscription's secrets in force and signs the request with each. Secrets that do not open
 * hold back this delivery alone: the reason, for the queue to hand it out again.
 */
export async function signedRequest(
  sealer: SecretSealer,
  due: Pick<DueDelivery, 'message' | 'subscription'>,
  at: Date,
): Promise<{ readonly kind: 'signed'; readonly request: SignedRequest } | { readonly kind: 'unsigned'; readonly reason: string }> {
  let secrets: SigningSecret[];
  try {
    secrets = await openSecretsInForce(sealer, due.subscription, at);
  } catch (error) {
    return { kind: 'unsigned', reason: (error as Error).message };
  }
  return { kind: 'signed', request: requestOf(due, secrets, at) };
}
