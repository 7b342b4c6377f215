import { randomBytes, randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import type { RateLimiter, RateLimitResult } from '../auth/rate-limit';
import type { WebhookEnvelope } from '../events/envelope';
import type { DeliveryMessage, TaskQueue } from '../queues/queues';
import {
  type AttemptPage,
  type AttemptQuery,
  type DeadDelivery,
  type DeadDeliveryPage,
  type DeliveryLog,
  DeliveryNotFoundError,
  InvalidAttemptCursorError,
  RECOVERY_DAYS,
  type RecoveryLedger,
} from './delivery-log';
import { deliveryIdOf, testEvent } from './events';
import type { Subscriptions } from './subscriptions';

/** Dead deliveries re-sent by one recovery call: a call stays well inside the function's time. */
export const RECOVERY_PAGE_SIZE = 1000;
/**
 * Recovered deliveries of one subscription start at most this often: one a second, 60 a minute,
 * whatever the number of recoveries, so a receiver back from an outage is not flooded.
 */
export const RECOVERY_PACE_PER_MINUTE = 60;
const RECOVERY_INTERVAL_MS = 60_000 / RECOVERY_PACE_PER_MINUTE;
/**
 * How far ahead a subscription's recovery schedule may be booked: an hour, 3,600 deliveries. A
 * recovery counts by the deliveries it queues, each taking a slot; one that would book further
 * ahead is refused until the schedule has room.
 */
export const RECOVERY_BACKLOG_MINUTES = 60;
/** Claims of one page sent at once: a page of a thousand is twenty rounds of conditional writes. */
const CLAIM_CONCURRENCY = 50;

export interface RecoveryPage {
  readonly since: string;
  /** Deliveries queued by this call, each with its original webhook-id. */
  readonly queued: number;
  /** More remain: the same call with this cursor queues the next page. */
  readonly nextCursor?: string;
}

export class SubscriptionDisabledError extends Error {
  constructor(readonly id: string) {
    super(`Webhook subscription ${id} is disabled: enable it (PATCH status ACTIVE) before recovering its deliveries`);
    this.name = 'SubscriptionDisabledError';
  }
}

export class RecoveryBacklogError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(
      `The subscription's recovered deliveries are booked ${RECOVERY_BACKLOG_MINUTES} minutes ahead (${RECOVERY_PACE_PER_MINUTE} a minute); try again in ${retryAfterSeconds} s`,
    );
    this.name = 'RecoveryBacklogError';
  }
}

export class InvalidRecoveryError extends Error {
  constructor(
    readonly field: 'since' | 'cursor',
    message: string,
  ) {
    super(message);
    this.name = 'InvalidRecoveryError';
  }
}

/** Test events and manual retries per client per minute, together: each makes Bureau POST to the client's URL. */
export const MANUAL_SENDS_PER_MINUTE = 10;
const DAY_MS = 24 * 3600 * 1000;
export const manualSendsRateKey = (clientId: string) => `manual-sends#${clientId}`;

export class TooManyManualSendsError extends Error {
  constructor(readonly usage: RateLimitResult) {
    super(`At most ${usage.limit} test events and retries a minute; try again in ${usage.resetSeconds} s.`);
    this.name = 'TooManyManualSendsError';
  }
}

/**
 * What a client can do with deliveries: send a test event, read the attempts, and send a delivery
 * again. Everything goes through the deliveries queue, so a test or a retry is signed, logged and
 * retried exactly as a real event is.
 */
export class Deliveries {
  constructor(
    private readonly deps: {
      readonly subscriptions: Subscriptions;
      readonly log: DeliveryLog & RecoveryLedger;
      readonly queue: TaskQueue<DeliveryMessage>;
      readonly clock: () => Date;
      /**
       * Counts a client's test events and retries, which make Bureau send to an address the client
       * chose; an operator's own tools pass 'unlimited', which also lets their recoveries book the
       * schedule beyond RECOVERY_BACKLOG_MINUTES (still paced).
       */
      readonly manualSends: Pick<RateLimiter, 'consume'> | 'unlimited';
    },
  ) {}

  async sendTest(clientId: string, subscriptionId: string): Promise<{ deliveryId: string; event: WebhookEnvelope }> {
    await counted(this.deps.subscriptions.get(clientId, subscriptionId), this.countManualSend(clientId));
    const event = testEvent(subscriptionId, this.deps.clock(), randomBytes(9).toString('base64url'));
    const deliveryId = deliveryIdOf(event.idempotencyKey, subscriptionId);
    await this.deps.queue.send([{ deliveryId, clientId, subscriptionId, envelope: event }]);
    return { deliveryId, event };
  }

  /**
   * The log is read beside the subscription's look-up, not after it, so a page costs one round trip
   * less; what was read is answered only if the subscription is the client's (a 404 comes first).
   */
  async attempts(clientId: string, subscriptionId: string, query: AttemptQuery): Promise<AttemptPage> {
    const [owned, page] = await Promise.allSettled([
      this.deps.subscriptions.get(clientId, subscriptionId),
      this.deps.log.attempts(subscriptionId, query),
    ]);
    if (owned.status === 'rejected') throw owned.reason;
    if (page.status === 'rejected') throw page.reason;
    return page.value;
  }

  async retry(clientId: string, subscriptionId: string, deliveryId: string): Promise<{ deliveryId: string }> {
    const [, delivery] = await counted(
      Promise.all([this.deps.subscriptions.get(clientId, subscriptionId), this.deps.log.read(subscriptionId, deliveryId)]),
      this.countManualSend(clientId),
    );
    if (!delivery || delivery.clientId !== clientId) throw new DeliveryNotFoundError(deliveryId);
    await this.deps.queue.send([
      { deliveryId, clientId, subscriptionId, envelope: delivery.envelope, manual: true, scheduleFrom: delivery.attempts },
    ]);
    return { deliveryId };
  }

  /**
   * Re-sends, with their original webhook-ids, the subscription's deliveries that ended without
   * success (schedule spent, endpoint gone, subscription disabled) and whose last attempt is at or
   * after `since`, a page at a time in the order they died. Each dead delivery is claimed before it is
   * queued, so recoveries at once queue it once; the claimed ones take consecutive slots of the
   * subscription's recovery schedule, and each is due at its slot, not before. Counted as one manual
   * send per call, and by the slots its deliveries take.
   */
  async recover(clientId: string, subscriptionId: string, request: { since: Date; cursor?: string }): Promise<RecoveryPage> {
    const subscription = await counted(this.deps.subscriptions.get(clientId, subscriptionId), this.countManualSend(clientId));
    if (subscription.status !== 'ACTIVE') throw new SubscriptionDisabledError(subscriptionId);
    const now = this.deps.clock();
    const oldest = new Date(now.getTime() - RECOVERY_DAYS * DAY_MS);
    if (request.since.getTime() < oldest.getTime()) {
      throw new InvalidRecoveryError(
        'since',
        `since must be within the last ${RECOVERY_DAYS} days (from ${oldest.toISOString()}): dead deliveries are kept that long after their last attempt.`,
      );
    }
    if (request.since.getTime() > now.getTime()) throw new InvalidRecoveryError('since', 'since must not be in the future.');
    let page: DeadDeliveryPage;
    try {
      page = await this.deps.log.deadSince(subscriptionId, request.since, {
        limit: RECOVERY_PAGE_SIZE,
        ...(request.cursor === undefined ? {} : { cursor: request.cursor }),
      });
    } catch (error) {
      if (error instanceof InvalidAttemptCursorError) throw new InvalidRecoveryError('cursor', `${error.message}.`);
      throw error;
    }
    const claim = randomUUID();
    const claimed = await this.claim(
      page.items.filter((dead) => dead.clientId === clientId),
      claim,
    );
    const done = (queued: number): RecoveryPage => ({
      since: request.since.toISOString(),
      queued,
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    });
    if (claimed.length === 0) return done(0);
    const slots = await this.reserveSlots(subscriptionId, claimed, claim, now);
    const messages: DeliveryMessage[] = claimed.map((dead, index) => ({
      deliveryId: dead.deliveryId,
      clientId,
      subscriptionId,
      envelope: dead.envelope,
      recovered: true,
      scheduleFrom: dead.attempts,
      dueAt: new Date(slots.getTime() + index * RECOVERY_INTERVAL_MS).toISOString(),
    }));
    try {
      await this.deps.queue.send(messages);
    } catch (error) {
      // Not queued (or not all): a later recovery may claim them again.
      await this.deps.log.releaseClaims(claimed, claim);
      throw error;
    }
    return done(messages.length);
  }

  private async claim(dead: readonly DeadDelivery[], claim: string): Promise<DeadDelivery[]> {
    const limit = pLimit(CLAIM_CONCURRENCY);
    const won = await Promise.all(dead.map((entry) => limit(() => this.deps.log.claimDead(entry, claim))));
    return dead.filter((_, index) => won[index]);
  }

  /** The first slot of the claimed deliveries; refused, the claims are given back. */
  private async reserveSlots(subscriptionId: string, claimed: readonly DeadDelivery[], claim: string, now: Date): Promise<Date> {
    const maxAheadMs = this.deps.manualSends === 'unlimited' ? undefined : RECOVERY_BACKLOG_MINUTES * 60_000;
    let slots: Awaited<ReturnType<RecoveryLedger['reserveRecoverySlots']>>;
    try {
      slots = await this.deps.log.reserveRecoverySlots(subscriptionId, claimed.length, {
        now,
        intervalMs: RECOVERY_INTERVAL_MS,
        ...(maxAheadMs === undefined ? {} : { maxAheadMs }),
      });
    } catch (error) {
      await this.deps.log.releaseClaims(claimed, claim);
      throw error;
    }
    if (slots.kind === 'reserved') return slots.firstAt;
    await this.deps.log.releaseClaims(claimed, claim);
    throw new RecoveryBacklogError(Math.max(1, Math.ceil((slots.roomAt.getTime() - now.getTime()) / 1000)));
  }

  private async countManualSend(clientId: string): Promise<void> {
    if (this.deps.manualSends === 'unlimited') return;
    const usage = await this.deps.manualSends.consume(manualSendsRateKey(clientId), MANUAL_SENDS_PER_MINUTE);
    if (!usage.allowed) throw new TooManyManualSendsError(usage);
  }
}

/**
 * The look-ups and the count go out together, so the limit costs no round trip of its own; a
 * subscription or delivery that is not the client's is reported before the limit is.
 */
async function counted<T>(lookUp: Promise<T>, count: Promise<void>): Promise<T> {
  const [found, allowed] = await Promise.allSettled([lookUp, count]);
  if (found.status === 'rejected') throw found.reason;
  if (allowed.status === 'rejected') throw allowed.reason;
  return found.value;
}
