import type { PostResult } from './delivery-client';
import type { DeliveryAttempt, DeliveryLog, DeliveryMessage, DeliveryRecord } from './delivery-log';
import { nextRetryDelaySeconds, type RetryPolicy, retryAfterSeconds } from './retry-schedule';
import { signedHeaders } from './signature';
import type { Subscription, SubscriptionDirectory } from './subscription';

/** What became of one received delivery message. */
export type SendOutcome =
  | { readonly kind: 'delivered'; readonly attempt: DeliveryAttempt }
  /** Try again after delaySeconds (the message's visibility). */
  | { readonly kind: 'retry'; readonly delaySeconds: number; readonly attempt: DeliveryAttempt }
  /** No attempt left: the message goes to the dead-letter queue. */
  | { readonly kind: 'exhausted'; readonly attempt: DeliveryAttempt }
  /** The endpoint answered 410 Gone: the subscription is disabled. */
  | { readonly kind: 'gone'; readonly attempt: DeliveryAttempt }
  /** Not sent: the subscription is gone or disabled. */
  | { readonly kind: 'dropped'; readonly reason: string }
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
  /** A subscription with no success for this long is disabled; default 5 days. */
  readonly disableAfterFailingDays?: number;
}

export const DEFAULT_DISABLE_AFTER_FAILING_DAYS = 5;
const DAY_MS = 24 * 3600 * 1000;

/**
 * Sends one delivery: signs the envelope with every secret in force, POSTs it, logs the attempt,
 * and decides what follows — done, a retry on the schedule (Retry-After may only lengthen it), the
 * dead-letter queue when the schedule is spent, or the subscription disabled on 410 Gone or after
 * failing for days.
 */
export class WebhookSender {
  private readonly disableAfterMs: number;

  constructor(private readonly deps: SenderDeps) {
    this.disableAfterMs = (deps.disableAfterFailingDays ?? DEFAULT_DISABLE_AFTER_FAILING_DAYS) * DAY_MS;
  }

  /** `receiveCount` is how often the queue has handed out this message: the place in the schedule. */
  async send(message: DeliveryMessage, receiveCount: number): Promise<SendOutcome> {
    const [subscription, previous] = await Promise.all([
      this.deps.subscriptions.get(message.clientId, message.subscriptionId),
      this.deps.log.read(message.subscriptionId, message.deliveryId),
    ]);
    if (previous?.status === 'delivered' && !message.manual) return { kind: 'duplicate' };
    if (!subscription) return { kind: 'dropped', reason: 'the subscription was deleted' };
    const number = (previous?.attempts ?? 0) + 1;
    if (subscription.status !== 'ACTIVE') {
      const reason = 'the subscription is disabled';
      await this.record(message, subscription, {
        ...this.attemptBase(message, number),
        outcome: 'dropped',
        error: 'subscription_disabled',
        errorMessage: reason,
        durationMs: 0,
      });
      return { kind: 'dropped', reason };
    }

    const now = this.deps.clock();
    const body = JSON.stringify(message.envelope);
    const headers = signedHeaders(subscription.signingSecrets, message.deliveryId, now, body);
    const result = await this.deps.client.post(subscription.url, headers, body);
    const base = { ...this.attemptBase(message, number, now), durationMs: result.durationMs };
    const answer = result.kind === 'response' ? { httpStatus: result.status } : { error: result.error, errorMessage: result.message };

    if (result.kind === 'response' && result.status >= 200 && result.status < 300) {
      const attempt: DeliveryAttempt = { ...base, ...answer, outcome: 'delivered' };
      await this.record(message, subscription, attempt);
      if (subscription.failingSince) await this.deps.subscriptions.markHealthy(message.clientId, message.subscriptionId);
      return { kind: 'delivered', attempt };
    }
    if (result.kind === 'response' && result.status === 410) {
      const attempt: DeliveryAttempt = { ...base, ...answer, outcome: 'failed' };
      await this.record(message, subscription, attempt);
      await this.disable(subscription, `The endpoint answered 410 Gone on ${now.toISOString()}.`, now);
      return { kind: 'gone', attempt };
    }

    const retryAfter = result.kind === 'response' ? retryAfterSeconds(result.retryAfter, now) : undefined;
    const delay = nextRetryDelaySeconds(receiveCount, this.deps.retry, retryAfter);
    const attempt: DeliveryAttempt = {
      ...base,
      ...answer,
      outcome: 'failed',
      ...(delay === undefined ? {} : { nextAttemptAt: new Date(now.getTime() + delay * 1000).toISOString() }),
    };
    await this.record(message, subscription, attempt);
    const failingSince = subscription.failingSince ?? now.toISOString();
    if (!subscription.failingSince) await this.deps.subscriptions.markFailing(message.clientId, message.subscriptionId, failingSince);
    else if (now.getTime() - Date.parse(failingSince) >= this.disableAfterMs) {
      const days = Math.floor((now.getTime() - Date.parse(failingSince)) / DAY_MS);
      await this.disable(subscription, `No delivery succeeded since ${failingSince} (${days} days).`, now);
      return { kind: 'gone', attempt };
    }
    return delay === undefined ? { kind: 'exhausted', attempt } : { kind: 'retry', delaySeconds: delay, attempt };
  }

  private attemptBase(message: DeliveryMessage, attempt: number, now: Date = this.deps.clock()) {
    return {
      deliveryId: message.deliveryId,
      eventType: message.envelope.type,
      idempotencyKey: message.envelope.idempotencyKey,
      attempt,
      attemptedAt: now.toISOString(),
    };
  }

  private async record(message: DeliveryMessage, subscription: Subscription, attempt: DeliveryAttempt): Promise<void> {
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
    await this.deps.log.record(delivery, attempt);
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
