import type { SecretSealer } from '../crypto/secret-sealer';
import type { DeliveryMessage } from '../queues/queues';
import type { PostResult } from './delivery-client';
import type { DeliveryAttempt, DeliveryLog, DeliveryRecord, LogEntry } from './delivery-log';
import { LogWrites } from './log-writes';
import { nextRetryDelaySeconds, type RetryPolicy, retryAfterSeconds } from './retry-schedule';
import { signedHeaders } from './signature';
import { openSecretsInForce } from './signing-secrets';
import type { SigningSecret, Subscription, SubscriptionDirectory } from './subscription';

/** What became of one received delivery message. */
export type SendOutcome =
  | { readonly kind: 'delivered'; readonly attempt: DeliveryAttempt }
  /** Try again after delaySeconds (the message's visibility). */
  | { readonly kind: 'retry'; readonly delaySeconds: number; readonly attempt: DeliveryAttempt }
  /** No attempt left: the delivery is dead in the log, where recovery finds it; the message is done. */
  | { readonly kind: 'exhausted'; readonly attempt: DeliveryAttempt }
  /** The endpoint answered 410 Gone, or failed for days: the subscription is disabled. */
  | { readonly kind: 'gone'; readonly attempt: DeliveryAttempt }
  /** Not sent: the subscription is gone or disabled. */
  | { readonly kind: 'dropped'; readonly reason: string }
  /**
   * Not sent: its signing secrets could not be opened (KMS failed, or the sealed value is not this
   * subscription's). The message is left to the queue, which hands it out again and in the end parks it.
   */
  | { readonly kind: 'unsigned'; readonly reason: string }
  /**
   * Sent, but its attempt could not be logged. The message is left to the queue: the next attempt
   * carries the same webhook-id, so a receiver that got this one can tell.
   */
  | { readonly kind: 'unrecorded'; readonly reason: string }
  /**
   * Not sent: the message came back before its next attempt is due (a visibility SQS would not grant
   * in one go, or a sender that died after logging). Hidden again for the time left.
   */
  | { readonly kind: 'early'; readonly delaySeconds: number }
  /** Already delivered (a fan-out step done twice). */
  | { readonly kind: 'duplicate' };

export interface Poster {
  post(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<PostResult>;
}

export interface SenderDeps {
  readonly subscriptions: SubscriptionDirectory;
  readonly log: DeliveryLog;
  readonly client: Poster;
  readonly retry: RetryPolicy;
  readonly clock: () => Date;
  /** Opens the signing secrets, which are kept sealed. */
  readonly sealer: SecretSealer;
  /** A subscription with no success for this long is disabled; default 5 days. */
  readonly disableAfterFailingDays?: number;
  /** How long a finished attempt waits for others of its batch to share one log write; default 5 ms. */
  readonly logLingerMs?: number;
}

/** One received message. Its place in the retry schedule is read from the log, never from the queue's receive count. */
export interface ReceivedDelivery {
  readonly message: DeliveryMessage;
}

/** Told of each delivery's outcome the moment it is known and logged, before the rest of its batch. */
export type OnSettled = (index: number, outcome: SendOutcome) => Promise<void>;

export const DEFAULT_DISABLE_AFTER_FAILING_DAYS = 5;
const DAY_MS = 24 * 3600 * 1000;
/** A retry that returns this close to its time is sent rather than hidden again. */
const DUE_TOLERANCE_MS = 1000;

interface Step {
  readonly outcome: SendOutcome;
  readonly logged?: LogEntry;
  readonly subscription?: Subscription;
}

/**
 * Sends deliveries: signs each envelope with every secret in force, POSTs it, logs the attempt, and
 * decides what follows — done, a retry on the schedule (Retry-After may only lengthen it), dead in
 * the log when the schedule is spent, or the subscription disabled on 410 Gone or after failing for
 * days. A batch costs one read of its subscriptions and delivery states, then its POSTs in parallel;
 * each delivery is settled as soon as its own POST ends, and the attempts that end together share
 * one log write.
 */
export class WebhookSender {
  private readonly disableAfterMs: number;

  constructor(private readonly deps: SenderDeps) {
    this.disableAfterMs = (deps.disableAfterFailingDays ?? DEFAULT_DISABLE_AFTER_FAILING_DAYS) * DAY_MS;
  }

  async send(message: DeliveryMessage): Promise<SendOutcome> {
    const [outcome] = await this.sendBatch([{ message }]);
    return outcome as SendOutcome;
  }

  /** The outcomes in the order of the batch; onSettled hears of each one as soon as it is logged. */
  async sendBatch(batch: readonly ReceivedDelivery[], onSettled?: OnSettled): Promise<SendOutcome[]> {
    const [subscriptions, previous] = await Promise.all([
      this.deps.subscriptions.getMany(batch.map(({ message }) => ({ clientId: message.clientId, id: message.subscriptionId }))),
      this.deps.log.readMany(batch.map(({ message }) => ({ subscriptionId: message.subscriptionId, deliveryId: message.deliveryId }))),
    ]);
    const writes = new LogWrites(this.deps.log, batch.length, this.deps.logLingerMs ?? 5);
    const first = new Map<string, number>();
    const steps = await Promise.all(
      batch.map(async ({ message }, index) => {
        // The same delivery twice in one batch (a fan-out step done twice) is sent once: its log
        // entries would collide in one write.
        const seen = first.get(message.deliveryId);
        first.set(message.deliveryId, seen ?? index);
        let step: Step =
          seen === undefined
            ? await this.attempt(message, subscriptions.get(message.subscriptionId), previous.get(message.deliveryId))
            : { outcome: { kind: 'duplicate' } };
        if (step.logged) {
          try {
            await writes.write(step.logged);
          } catch (error) {
            step = { outcome: { kind: 'unrecorded', reason: (error as Error).message } };
          }
        } else writes.skip();
        await onSettled?.(index, step.outcome);
        return step;
      }),
    );
    return this.settleHealth(steps, this.deps.clock());
  }

  private async attempt(
    message: DeliveryMessage,
    subscription: Subscription | undefined,
    previous: DeliveryRecord | undefined,
  ): Promise<Step> {
    if (previous?.status === 'delivered' && !message.manual) return { outcome: { kind: 'duplicate' } };
    if (!subscription || subscription.clientId !== message.clientId) {
      return { outcome: { kind: 'dropped', reason: 'the subscription was deleted' } };
    }
    const started = this.deps.clock();
    if (!message.manual && !message.recovered && previous?.status === 'pending' && previous.nextAttemptAt) {
      const waitMs = Date.parse(previous.nextAttemptAt) - started.getTime();
      if (waitMs > DUE_TOLERANCE_MS) return { outcome: { kind: 'early', delaySeconds: Math.ceil(waitMs / 1000) } };
    }
    const number = (previous?.attempts ?? 0) + 1;
    // This message's own attempts so far: a manual retry or a recovery starts the schedule afresh.
    const round = Math.max(1, number - (message.scheduleFrom ?? 0));
    const base = {
      deliveryId: message.deliveryId,
      eventType: message.envelope.type,
      idempotencyKey: message.envelope.idempotencyKey,
      attempt: number,
      attemptedAt: started.toISOString(),
    };
    if (subscription.status !== 'ACTIVE') {
      const reason = 'the subscription is disabled';
      const attempt: DeliveryAttempt = { ...base, outcome: 'dropped', error: 'subscription_disabled', errorMessage: reason, durationMs: 0 };
      return { outcome: { kind: 'dropped', reason }, logged: this.logEntry(message, subscription, attempt, previous) };
    }

    const body = JSON.stringify(message.envelope);
    let secrets: SigningSecret[];
    try {
      secrets = await openSecretsInForce(this.deps.sealer, subscription, started);
    } catch (error) {
      // One subscription's secrets failing to open holds back its own message, never the batch's others.
      return { outcome: { kind: 'unsigned', reason: (error as Error).message } };
    }
    const result = await this.deps.client.post(subscription.url, signedHeaders(secrets, message.deliveryId, started, body), body);
    const answer = result.kind === 'response' ? { httpStatus: result.status } : { error: result.error, errorMessage: result.message };
    const measured = { ...base, ...answer, durationMs: result.durationMs };

    if (result.kind === 'response' && result.status >= 200 && result.status < 300) {
      const attempt: DeliveryAttempt = { ...measured, outcome: 'delivered' };
      return { outcome: { kind: 'delivered', attempt }, logged: this.logEntry(message, subscription, attempt, previous), subscription };
    }
    if (result.kind === 'response' && result.status === 410) {
      const attempt: DeliveryAttempt = { ...measured, outcome: 'failed' };
      return { outcome: { kind: 'gone', attempt }, logged: this.logEntry(message, subscription, attempt, previous), subscription };
    }
    // Counted from the end of this POST, not the batch's start: a slow neighbour does not shift it.
    const ended = this.deps.clock();
    const retryAfter = result.kind === 'response' ? retryAfterSeconds(result.retryAfter, ended) : undefined;
    const delay = nextRetryDelaySeconds(round, this.deps.retry, retryAfter);
    const attempt: DeliveryAttempt = {
      ...measured,
      outcome: 'failed',
      ...(delay === undefined ? {} : { nextAttemptAt: new Date(ended.getTime() + delay * 1000).toISOString() }),
    };
    const outcome: SendOutcome = delay === undefined ? { kind: 'exhausted', attempt } : { kind: 'retry', delaySeconds: delay, attempt };
    return { outcome, logged: this.logEntry(message, subscription, attempt, previous), subscription };
  }

  /**
   * Subscription health, once per subscription of the batch: a success clears failingSince, a
   * first failure sets it, 410 or failing for longer than allowed disables the subscription.
   */
  private async settleHealth(steps: readonly Step[], now: Date): Promise<SendOutcome[]> {
    const outcomes = steps.map((step) => step.outcome);
    const bySubscription = new Map<string, { subscription: Subscription; indexes: number[] }>();
    steps.forEach((step, index) => {
      if (!step.subscription) return;
      const entry = bySubscription.get(step.subscription.id) ?? { subscription: step.subscription, indexes: [] };
      entry.indexes.push(index);
      bySubscription.set(step.subscription.id, entry);
    });
    await Promise.all(
      [...bySubscription.values()].map(async ({ subscription, indexes }) => {
        const kinds = indexes.map((index) => outcomes[index]?.kind);
        if (kinds.includes('gone')) {
          await this.disable(subscription, `The endpoint answered 410 Gone on ${now.toISOString()}.`, now);
          return;
        }
        const failed = kinds.some((kind) => kind === 'retry' || kind === 'exhausted');
        if (kinds.includes('delivered')) {
          if (subscription.failingSince) await this.deps.subscriptions.markHealthy(subscription.clientId, subscription.id);
        } else if (failed && !subscription.failingSince) {
          await this.deps.subscriptions.markFailing(subscription.clientId, subscription.id, now.toISOString());
        } else if (failed && subscription.failingSince && now.getTime() - Date.parse(subscription.failingSince) >= this.disableAfterMs) {
          const days = Math.floor((now.getTime() - Date.parse(subscription.failingSince)) / DAY_MS);
          await this.disable(subscription, `No delivery succeeded since ${subscription.failingSince} (${days} days).`, now);
          // Their retries will not come: each is logged dead instead, where recovery finds it once the endpoint is back.
          const dead: LogEntry[] = [];
          for (const index of indexes) {
            const outcome = outcomes[index];
            const logged = steps[index]?.logged;
            if (!outcome || !logged || (outcome.kind !== 'retry' && outcome.kind !== 'exhausted')) continue;
            const { nextAttemptAt: _next, ...attempt } = outcome.attempt;
            const { nextAttemptAt: _due, ...delivery } = logged.delivery;
            dead.push({ delivery: { ...delivery, status: 'failed' }, attempt });
            outcomes[index] = { kind: 'gone', attempt };
          }
          await this.deps.log.recordMany(dead);
        }
      }),
    );
    return outcomes;
  }

  private logEntry(
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

  private async disable(subscription: Subscription, reason: string, now: Date): Promise<void> {
    await this.deps.subscriptions.update(
      subscription.clientId,
      subscription.id,
      { status: 'DISABLED', disabledReason: reason },
      now.toISOString(),
    );
  }
}
