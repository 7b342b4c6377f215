import { numberSetting } from '../config/number-settings';
import type { SecretSealer } from '../crypto/secret-sealer';
import type { DeliveryMessage } from '../queues/queues';
import type { PostResult } from './delivery-client';
import type { DeliveryLog, DeliveryRecord } from './delivery-log';
import { loadBatchState, prepareDelivery, signedRequest } from './delivery-preparation';
import { applyHealthChanges, healthChanges, type SettledStep, settleCall } from './delivery-settlement';
import { LogWrites } from './log-writes';
import type { RetryPolicy } from './retry-schedule';
import type { SendOutcome } from './send-outcome';
import type { Subscription, SubscriptionDirectory } from './subscription';

export type { SendOutcome } from './send-outcome';

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
export const DISABLE_AFTER_FAILING_DAYS_VARIABLE = 'DISABLE_FAILING_WEBHOOKS_AFTER_DAYS';
const DAY_MS = 24 * 3600 * 1000;

/**
 * Days without a successful delivery after which a subscription is disabled, read at cold start: a
 * fraction compresses time in a test (down to a second), and a bad value (0, "", "five") stops the
 * function instead of disabling every subscription at its first failure, or none ever.
 */
export function disableAfterFailingDaysFrom(env: NodeJS.ProcessEnv = process.env): number {
  return numberSetting(env, DISABLE_AFTER_FAILING_DAYS_VARIABLE, DEFAULT_DISABLE_AFTER_FAILING_DAYS, { min: 1 / 86_400, max: 365 });
}

/**
 * Sends deliveries in three stages: prepare (delivery-preparation.ts: is it due, already delivered,
 * its subscription disabled; the signed request), call (delivery-client.ts: the POST alone) and
 * settle (delivery-settlement.ts: the attempt, with the start of the receiver's answer, and what
 * follows — done, a retry, dead in the log, the subscription disabled). A batch costs one read of its
 * subscriptions and delivery states, then its POSTs in parallel; each delivery is logged and told of
 * as soon as its own POST ends, the attempts that end together sharing one log write; the
 * subscriptions' health is settled once, after the whole batch.
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
    const messages = batch.map(({ message }) => message);
    const state = await loadBatchState(this.deps.subscriptions, this.deps.log, messages);
    const writes = new LogWrites(this.deps.log, batch.length, this.deps.logLingerMs ?? 5);
    const first = new Map<string, number>();
    const steps = await Promise.all(
      messages.map(async (message, index) => {
        // The same delivery twice in one batch (a fan-out step done twice) is sent once: its log
        // entries would collide in one write.
        const seen = first.get(message.deliveryId);
        first.set(message.deliveryId, seen ?? index);
        let step: SettledStep =
          seen === undefined
            ? await this.attempt(message, state.subscriptions.get(message.subscriptionId), state.previous.get(message.deliveryId))
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
    const now = this.deps.clock();
    return applyHealthChanges(this.deps, steps, healthChanges(steps, now, this.disableAfterMs), now);
  }

  private async attempt(
    message: DeliveryMessage,
    subscription: Subscription | undefined,
    previous: DeliveryRecord | undefined,
  ): Promise<SettledStep> {
    const started = this.deps.clock();
    const prepared = prepareDelivery(message, subscription, previous, started);
    if (prepared.kind === 'skip') return { outcome: prepared.outcome };
    if (prepared.kind === 'drop') return { outcome: prepared.outcome, logged: prepared.logged };
    const signed = await signedRequest(this.deps.sealer, prepared.due, started);
    if (signed.kind === 'unsigned') return { outcome: { kind: 'unsigned', reason: signed.reason } };
    const { url, headers, body } = signed.request;
    const result = await this.deps.client.post(url, headers, body);
    return settleCall(prepared.due, result, this.deps.clock(), this.deps.retry);
  }
}
