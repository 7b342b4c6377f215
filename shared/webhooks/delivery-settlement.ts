import { callRecord, logEntryOf } from './delivery-attempt';
import type { PostResult } from './delivery-client';
import type { DeliveryAttempt, DeliveryLog, LogEntry } from './delivery-log';
import type { DueDelivery } from './delivery-preparation';
import { nextRetryDelaySeconds, type RetryPolicy, retryAfterSeconds } from './retry-schedule';
import type { SendOutcome } from './send-outcome';
import type { Subscription, SubscriptionDirectory } from './subscription';

const DAY_MS = 24 * 3600 * 1000;

/** One delivery of a batch, settled. */
export interface SettledStep {
  readonly outcome: SendOutcome;
  /** What the log is to hold of it; none when nothing was attempted. */
  readonly logged?: LogEntry;
  /** The subscription whose health the attempt speaks for, when a call was made. */
  readonly subscription?: Subscription;
}

/**
 * What a call's result means for its delivery: delivered on a 2xx; the subscription gone on a 410;
 * otherwise a retry on the schedule, counted from the end of this call (a slow neighbour in the batch
 * does not shift it), which a receiver's Retry-After may lengthen and never shorten; or, the schedule
 * spent, dead in the log, where a recovery finds it.
 */
export function settleCall(due: DueDelivery, result: PostResult, ended: Date, retry: RetryPolicy): SettledStep {
  const measured = { ...due.start, ...callRecord(result) };
  const entry = (attempt: DeliveryAttempt) => logEntryOf(due.message, due.subscription, attempt, due.previous);
  const step = (outcome: SendOutcome & { attempt: DeliveryAttempt }): SettledStep => ({
    outcome,
    logged: entry(outcome.attempt),
    subscription: due.subscription,
  });

  if (result.kind === 'response' && result.status >= 200 && result.status < 300) {
    return step({ kind: 'delivered', attempt: { ...measured, outcome: 'delivered' } });
  }
  if (result.kind === 'response' && result.status === 410) return step({ kind: 'gone', attempt: { ...measured, outcome: 'failed' } });
  const asked = result.kind === 'response' ? retryAfterSeconds(result.retryAfter, ended) : undefined;
  const delay = nextRetryDelaySeconds(due.round, retry, asked);
  if (delay === undefined) return step({ kind: 'exhausted', attempt: { ...measured, outcome: 'failed' } });
  const nextAttemptAt = new Date(ended.getTime() + delay * 1000).toISOString();
  return step({ kind: 'retry', delaySeconds: delay, attempt: { ...measured, outcome: 'failed', nextAttemptAt } });
}

/** What a batch's attempts mean for one subscription. */
export type HealthChange =
  /** It answered 410 Gone, or has failed for too long: the steps at `cutShort` lose their retries. */
  | { readonly kind: 'disable'; readonly subscription: Subscription; readonly reason: string; readonly cutShort: readonly number[] }
  /** A delivery went through after failures. */
  | { readonly kind: 'healthy'; readonly subscription: Subscription }
  /** Its first failure since the last success. */
  | { readonly kind: 'failing'; readonly subscription: Subscription; readonly since: string };

/**
 * Each subscription's health, once for the whole batch: a 410 disables it; a success clears
 * failingSince; a first failure sets it; a failure after failing for `disableAfterMs` disables it, and
 * its deliveries waiting to be retried are cut short (dead in the log, for a recovery).
 */
export function healthChanges(steps: readonly SettledStep[], now: Date, disableAfterMs: number): HealthChange[] {
  const bySubscription = new Map<string, { subscription: Subscription; indexes: number[] }>();
  steps.forEach((step, index) => {
    if (!step.subscription) return;
    const entry = bySubscription.get(step.subscription.id) ?? { subscription: step.subscription, indexes: [] };
    entry.indexes.push(index);
    bySubscription.set(step.subscription.id, entry);
  });
  const changes: HealthChange[] = [];
  for (const { subscription, indexes } of bySubscription.values()) {
    const kinds = indexes.map((index) => steps[index]?.outcome.kind);
    const failed = kinds.some((kind) => kind === 'retry' || kind === 'exhausted');
    if (kinds.includes('gone')) {
      changes.push({ kind: 'disable', subscription, reason: `The endpoint answered 410 Gone on ${now.toISOString()}.`, cutShort: [] });
    } else if (kinds.includes('delivered')) {
      if (subscription.failingSince) changes.push({ kind: 'healthy', subscription });
    } else if (failed && !subscription.failingSince) {
      changes.push({ kind: 'failing', subscription, since: now.toISOString() });
    } else if (failed && subscription.failingSince && now.getTime() - Date.parse(subscription.failingSince) >= disableAfterMs) {
      const days = Math.floor((now.getTime() - Date.parse(subscription.failingSince)) / DAY_MS);
      changes.push({
        kind: 'disable',
        subscription,
        reason: `No delivery succeeded since ${subscription.failingSince} (${days} days).`,
        cutShort: indexes.filter((index) => isCutShort(steps[index])),
      });
    }
  }
  return changes;
}

const isCutShort = (step: SettledStep | undefined) => step?.outcome.kind === 'retry' || step?.outcome.kind === 'exhausted';

/** A delivery whose retry will not come: dead in the log with no next attempt, its outcome the subscription's end. */
export function cutShortEntry(step: SettledStep): { readonly entry: LogEntry; readonly outcome: SendOutcome } | undefined {
  const { outcome, logged } = step;
  if (!logged || (outcome.kind !== 'retry' && outcome.kind !== 'exhausted')) return undefined;
  const { nextAttemptAt: _next, ...attempt } = outcome.attempt;
  const { nextAttemptAt: _due, ...delivery } = logged.delivery;
  return { entry: { delivery: { ...delivery, status: 'failed' }, attempt }, outcome: { kind: 'gone', attempt } };
}

/**
 * Carries the health changes out; the batch's outcomes, with those cut short now `gone`. A disable
 * holds only if the subscription is still as the batch read it.
 */
export async function applyHealthChanges(
  deps: {
    readonly subscriptions: Pick<SubscriptionDirectory, 'disable' | 'markHealthy' | 'markFailing'>;
    readonly log: Pick<DeliveryLog, 'recordMany'>;
  },
  steps: readonly SettledStep[],
  changes: readonly HealthChange[],
  now: Date,
): Promise<SendOutcome[]> {
  const outcomes = steps.map((step) => step.outcome);
  await Promise.all(
    changes.map(async (change) => {
      const { clientId, id } = change.subscription;
      if (change.kind === 'healthy') return deps.subscriptions.markHealthy(clientId, id);
      if (change.kind === 'failing') return deps.subscriptions.markFailing(clientId, id, change.since);
      // The client changed it after the batch read it (re-enabled it, mended its URL): its deliveries keep their retries.
      if (!(await deps.subscriptions.disable(change.subscription, change.reason, now.toISOString()))) return;
      const dead: LogEntry[] = [];
      for (const index of change.cutShort) {
        const ended = steps[index] && cutShortEntry(steps[index]);
        if (!ended) continue;
        dead.push(ended.entry);
        outcomes[index] = ended.outcome;
      }
      if (dead.length > 0) await deps.log.recordMany(dead);
    }),
  );
  return outcomes;
}
