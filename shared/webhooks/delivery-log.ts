import type { BlockName, Jurisdiction } from '../companies/profile';
import type { WebhookEnvelope } from '../events/envelope';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'dropped';

/** Why an attempt did not deliver, when no HTTP status says it. */
export type AttemptError = string;

export interface DeliveryAttempt {
  readonly deliveryId: string;
  readonly eventType: string;
  readonly idempotencyKey: string;
  /**
   * The company and block the event names, as its envelope does; absent for a test event. Attempts
   * logged before these were kept have them read back from the idempotencyKey.
   */
  readonly jurisdiction?: Jurisdiction;
  readonly companyNumber?: string;
  readonly block?: BlockName;
  /** 1 for the first attempt; manual retries go on counting. */
  readonly attempt: number;
  readonly attemptedAt: string;
  readonly outcome: 'delivered' | 'failed' | 'dropped';
  readonly httpStatus?: number;
  /**
   * The start of the receiver's answer (response-excerpt.ts), when it answered: at most
   * MAX_EXCERPT_TEXT_BYTES, so an attempt stays a few KiB, far below DynamoDB's 400 KB item. Never the
   * request's headers: they carry the signatures.
   */
  readonly responseBody?: string;
  /** The answer went on past responseBody, or was cut short. */
  readonly responseBodyTruncated?: boolean;
  readonly error?: AttemptError;
  readonly errorMessage?: string;
  readonly durationMs: number;
  /** When the next attempt is due; absent when none will follow. */
  readonly nextAttemptAt?: string;
}

export interface DeliveryRecord {
  readonly deliveryId: string;
  readonly clientId: string;
  readonly subscriptionId: string;
  readonly envelope: WebhookEnvelope;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly lastAttemptAt: string;
  readonly nextAttemptAt?: string;
}

/** A delivery's new state, the attempt that led to it, and the dead-delivery entry it settles, written together. */
export interface LogEntry {
  readonly delivery: DeliveryRecord;
  readonly attempt: DeliveryAttempt;
  /**
   * The delivery's state before this attempt, when it was dead (failed or dropped): its entry among
   * the dead is replaced, so a recovered delivery is not found dead again.
   */
  readonly previous?: DeliveryRecord;
}

/** A delivery that ended without success, kept for recovery: found by the time of its last attempt. */
export interface DeadDelivery {
  readonly deliveryId: string;
  readonly clientId: string;
  readonly subscriptionId: string;
  readonly envelope: WebhookEnvelope;
  readonly status: 'failed' | 'dropped';
  readonly attempts: number;
  readonly lastAttemptAt: string;
}

export interface DeadDeliveryPage {
  readonly items: readonly DeadDelivery[];
  readonly nextCursor?: string;
}

export interface AttemptPage {
  readonly items: readonly DeliveryAttempt[];
  readonly nextCursor?: string;
}

/** Which attempts a listing keeps: each field absent means any value. */
export interface AttemptFilter {
  readonly outcome?: DeliveryAttempt['outcome'];
  readonly jurisdiction?: Jurisdiction;
  readonly companyNumber?: string;
}

export interface AttemptQuery extends AttemptFilter {
  readonly limit: number;
  readonly cursor?: string;
}

/**
 * Attempts a filtered page reads at most before it answers with what matched: a filter that matches
 * little still answers quickly, with fewer items than asked and a cursor to go on from.
 */
export const ATTEMPT_READ_BUDGET = 1000;

/** How long the log keeps a delivery and its attempts. */
export const DELIVERY_LOG_DAYS = 30;

/** How long a dead delivery can be recovered, counted from its last attempt. */
export const RECOVERY_DAYS = 14;

export const isDead = (record: Pick<DeliveryRecord, 'status'> | undefined): boolean =>
  record?.status === 'failed' || record?.status === 'dropped';

export interface DeliveryLog {
  read(subscriptionId: string, deliveryId: string): Promise<DeliveryRecord | undefined>;
  /** The deliveries that have a record among those named, by delivery id. */
  readMany(keys: ReadonlyArray<{ readonly subscriptionId: string; readonly deliveryId: string }>): Promise<Map<string, DeliveryRecord>>;
  /** The deliveries' new states and their attempts, as few writes as the store allows. */
  recordMany(entries: readonly LogEntry[]): Promise<void>;
  /**
   * Dead deliveries whose last attempt is at or after `since`, oldest first, leaving out those a
   * recovery has claimed. A cursor holds the `since` it was given for.
   */
  deadSince(subscriptionId: string, since: Date, options: { limit: number; cursor?: string }): Promise<DeadDeliveryPage>;
  /** Attempts newest first, within the last DELIVERY_LOG_DAYS; filtered, at most ATTEMPT_READ_BUDGET read a page. */
  attempts(subscriptionId: string, query: AttemptQuery): Promise<AttemptPage>;
}

/** Where a subscription's recovered deliveries can start: the first of the slots reserved, or when there will be room. */
export type RecoverySlots = { readonly kind: 'reserved'; readonly firstAt: Date } | { readonly kind: 'full'; readonly roomAt: Date };

/**
 * What a recovery needs of the log beyond reading it: each dead delivery claimed by one recovery
 * alone, and the subscription's schedule of recovered deliveries, so they go out one slot at a time.
 */
export interface RecoveryLedger {
  /**
   * Marks a dead delivery as queued by the recovery holding `claim`; false when another recovery has
   * it already or it is dead no longer. The mark goes with the entry when the delivery's next attempt
   * replaces it.
   */
  claimDead(dead: DeadDelivery, claim: string): Promise<boolean>;
  /** Gives back what `claim` marked, when it could not be queued; best effort. */
  releaseClaims(dead: readonly DeadDelivery[], claim: string): Promise<void>;
  /**
   * Reserves `count` consecutive slots of `intervalMs` on the subscription's recovery schedule,
   * starting now or where the last reservation ended, atomically; with `maxAheadMs`, refuses a
   * reservation that would end further ahead than that.
   */
  reserveRecoverySlots(
    subscriptionId: string,
    count: number,
    options: { readonly now: Date; readonly intervalMs: number; readonly maxAheadMs?: number },
  ): Promise<RecoverySlots>;
}

export class InvalidAttemptCursorError extends Error {
  constructor(message = 'The cursor is not one this listing returned') {
    super(message);
    this.name = 'InvalidAttemptCursorError';
  }
}

export class DeliveryNotFoundError extends Error {
  constructor(readonly deliveryId: string) {
    super(`No delivery with id "${deliveryId}"`);
    this.name = 'DeliveryNotFoundError';
  }
}
