import type { SecretSealer } from '../crypto/secret-sealer';
import type { DeliveryMessage } from '../queues/queues';
import type { PostResult } from './delivery-client';
import type { DeliveryAttempt, DeliveryLog, DeliveryRecord } from './delivery-log';
import { nextRetryDelaySeconds, type RetryPolicy, retryAfterSeconds } from './retry-schedule';
import { signedHeaders } from './signature';
import { openSecretsInForce } from './signing-secrets';
import type { SigningSecret, Subscription, SubscriptionDirectory } from './subscription';

/** What became of one received delivery message. */
export type SendOutcome =
  | { readonly kind: 'delivered'; readonly attempt: DeliveryAttempt }
  /** Try again after delaySeconds (the message's visibility). */
  | { readonly kind: 'retry'; readonly delaySeconds: number; readonly attempt: DeliveryAttempt }
  /** No attempt left: the message goes to the dead-letter queue. */
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
}

/** One received message and how often the queue has handed it out: its place in the schedule. */
export interface ReceivedDelivery {
  readonly message: DeliveryMessage;
  readonly receiveCount: number;
}

export const DEFAULT_DISABLE_AFTER_FAILING_DAYS = 5;
const DAY_MS = 24 * 3600 * 1000;

interface Step {
  readonly outcome: SendOutcome;
  readonly logged?: { readonly delivery: DeliveryRecord; readonly attempt: DeliveryAttempt };
  readonly subscription?: Subscription;
}

/**
 * Sends deliveries: signs each envelope with every secret in force, POSTs it, logs the attempt, and
 * decides what follows — done, a retry on the schedule (Retry-After may only lengthen it), the
 * dead-letter queue when the schedule is spent, or the subscription disabled on 410 Gone or after
 * failing for days. A batch costs one read of its subscriptions and delivery states, then its POSTs
 * in parallel, each logged the moment it ends.
 */
export class WebhookSender {
  private readonly disableAfterMs: number;

  constructor(private readonly deps: SenderDeps) {
    this.disableAfterMs = (deps.disableAfterFailingDays ?? DEFAULT_DISABLE_AFTER_FAILING_DAYS) * DAY_MS;
  }

  async send(message: DeliveryMessage, receiveCount: number): Promise<SendOutcome> {
    const [outcome] = await this.sendBatch([{ message, receiveCount }]);
    return outcome as SendOutcome;
  }

  /** The outcomes in the order of the batch. */
  async sendBatch(batch: readonly ReceivedDelivery[]): Promise<SendOutcome[]> {
    const [subscriptions, previous] = await Promise.all([
      this.deps.subscriptions.getMany(batch.map(({ message }) => ({ clientId: message.clientId, id: message.subscriptionId }))),
      this.deps.log.readMany(batch.map(({ message }) => ({ subscriptionId: message.subscriptionId, deliveryId: message.deliveryId }))),
    ]);
    const now = this.deps.clock();
    const steps = await Promise.all(
      batch.map(async (item) => {
        const step = await this.attempt(item, subscriptions.get(item.message.subscriptionId), previous.get(item.message.deliveryId), now);
        // Logged as soon as it is known, not with the batch: should the sender die waiting on a slow
        // receiver, what was delivered is on record and is not sent again.
        if (step.logged) await this.deps.log.record(step.logged.delivery, step.logged.attempt);
        return step;
      }),
    );
    return this.settleHealth(steps, now);
  }

  private async attempt(
    { message, receiveCount }: ReceivedDelivery,
    subscription: Subscription | undefined,
    previous: DeliveryRecord | undefined,
    now: Date,
  ): Promise<Step> {
    if (previous?.status === 'delivered' && !message.manual) return { outcome: { kind: 'duplicate' } };
    if (!subscription || subscription.clientId !== message.clientId) {
      return { outcome: { kind: 'dropped', reason: 'the subscription was deleted' } };
    }
    const number = (previous?.attempts ?? 0) + 1;
    const base = {
      deliveryId: message.deliveryId,
      eventType: message.envelope.type,
      idempotencyKey: message.envelope.idempotencyKey,
      attempt: number,
      attemptedAt: now.toISOString(),
    };
    if (subscription.status !== 'ACTIVE') {
      const reason = 'the subscription is disabled';
      const attempt: DeliveryAttempt = { ...base, outcome: 'dropped', error: 'subscription_disabled', errorMessage: reason, durationMs: 0 };
      return { outcome: { kind: 'dropped', reason }, logged: this.logEntry(message, subscription, attempt) };
    }

    const body = JSON.stringify(message.envelope);
    let secrets: SigningSecret[];
    try {
      secrets = await openSecretsInForce(this.deps.sealer, subscription, now);
    } catch (error) {
      // One subscription's secrets failing to open holds back its own message, never the batch's others.
      return { outcome: { kind: 'unsigned', reason: (error as Error).message } };
    }
    const result = await this.deps.client.post(subscription.url, signedHeaders(secrets, message.deliveryId, now, body), body);
    const answer = result.kind === 'response' ? { httpStatus: result.status } : { error: result.error, errorMessage: result.message };
    const measured = { ...base, ...answer, durationMs: result.durationMs };

    if (result.kind === 'response' && result.status >= 200 && result.status < 300) {
      const attempt: DeliveryAttempt = { ...measured, outcome: 'delivered' };
      return { outcome: { kind: 'delivered', attempt }, logged: this.logEntry(message, subscription, attempt), subscription };
    }
    if (result.kind === 'response' && result.status === 410) {
      const attempt: DeliveryAttempt = { ...measured, outcome: 'failed' };
      return { outcome: { kind: 'gone', attempt }, logged: this.logEntry(message, subscription, attempt), subscription };
    }
    const retryAfter = result.kind === 'response' ? retryAfterSeconds(result.retryAfter, now) : undefined;
    const delay = nextRetryDelaySeconds(receiveCount, this.deps.retry, retryAfter);
    const attempt: DeliveryAttempt = {
      ...measured,
      outcome: 'failed',
      ...(delay === undefined ? {} : { nextAttemptAt: new Date(now.getTime() + delay * 1000).toISOString() }),
    };
    const outcome: SendOutcome = delay === undefined ? { kind: 'exhausted', attempt } : { kind: 'retry', delaySeconds: delay, attempt };
    return { outcome, logged: this.logEntry(message, subscription, attempt), subscription };
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
          for (const index of indexes) {
            const outcome = outcomes[index];
            if (outcome && (outcome.kind === 'retry' || outcome.kind === 'exhausted'))
              outcomes[index] = { kind: 'gone', attempt: outcome.attempt };
          }
        }
      }),
    );
    return outcomes;
  }

  private logEntry(message: DeliveryMessage, subscription: Subscription, attempt: DeliveryAttempt) {
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
    return { delivery, attempt };
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
