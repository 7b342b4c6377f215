import { describe, expect, it } from 'vitest';
import type { PostResult } from '../../../shared/webhooks/delivery-client';
import type { LogEntry } from '../../../shared/webhooks/delivery-log';
import { type DueDelivery, prepareDelivery } from '../../../shared/webhooks/delivery-preparation';
import {
  applyHealthChanges,
  cutShortEntry,
  healthChanges,
  type SettledStep,
  settleCall,
} from '../../../shared/webhooks/delivery-settlement';
import { MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../../shared/webhooks/retry-schedule';
import type { Subscription } from '../../../shared/webhooks/subscription';
import { activeSubscription, answered, deliveryMessage, FIXTURE_NOW, pendingAfter } from '../../support/delivery-fixture';

const STARTED = FIXTURE_NOW;
/** The call ended 4 s after it started: the next attempt counts from here. */
const ENDED = new Date(STARTED.getTime() + 4000);
const retry = { delaysSeconds: RETRY_DELAYS_SECONDS, random: () => 0.5 };
const DAY_MS = 24 * 3600_000;

function dueAfter(attempts: number, subscription: Subscription = activeSubscription()): DueDelivery {
  const preparation = prepareDelivery(deliveryMessage(), subscription, attempts > 0 ? pendingAfter(attempts) : undefined, STARTED);
  if (preparation.kind !== 'send') throw new Error(`expected a delivery to send, got ${preparation.kind}`);
  return preparation.due;
}

describe('settling a call', () => {
  it('logs a 2xx delivered, with its company, status, the start of the answer and the time the call took', () => {
    const step = settleCall(dueAfter(0), answered(202, { body: '{"received":true}', durationMs: 41 }), ENDED, retry);

    expect(step.outcome).toEqual({
      kind: 'delivered',
      attempt: {
        deliveryId: 'msg_1',
        eventType: 'profile.changed',
        idempotencyKey: 'profile.changed:GB:00000001:overview:v2',
        jurisdiction: 'GB',
        companyNumber: '00000001',
        block: 'overview',
        attempt: 1,
        attemptedAt: STARTED.toISOString(),
        outcome: 'delivered',
        httpStatus: 202,
        responseBody: '{"received":true}',
        responseBodyTruncated: false,
        durationMs: 41,
      },
    });
    expect(step.logged?.delivery).toMatchObject({ status: 'delivered', attempts: 1, lastAttemptAt: STARTED.toISOString() });
    expect(step.logged?.delivery).not.toHaveProperty('nextAttemptAt');
  });

  it("retries a failure on the schedule, counted from the call's end, keeping the answer's excerpt", () => {
    const body = 'x'.repeat(2048);
    const step = settleCall(dueAfter(2), answered(500, { body, truncated: true, durationMs: 4000 }), ENDED, retry);
    const delay = RETRY_DELAYS_SECONDS[2] as number;

    expect(step.outcome).toMatchObject({
      kind: 'retry',
      delaySeconds: delay,
      attempt: { attempt: 3, outcome: 'failed', httpStatus: 500, responseBody: body, responseBodyTruncated: true, durationMs: 4000 },
    });
    expect(step.logged?.delivery).toMatchObject({
      status: 'pending',
      nextAttemptAt: new Date(ENDED.getTime() + delay * 1000).toISOString(),
    });
  });

  it.each([
    ['seconds longer than the schedule', '900', 900],
    ['an HTTP date an hour ahead', new Date(ENDED.getTime() + 3600_000).toUTCString(), 3600],
    ['seconds shorter than the schedule', '1', RETRY_DELAYS_SECONDS[0]],
  ])('honours a Retry-After of %s only where it lengthens the wait', (_case, header, delay) => {
    expect(settleCall(dueAfter(0), answered(429, { retryAfter: header }), ENDED, retry).outcome).toMatchObject({
      kind: 'retry',
      delaySeconds: delay,
    });
  });

  it('leaves a delivery dead in the log when the schedule is spent', () => {
    const step = settleCall(dueAfter(MAX_DELIVERY_ATTEMPTS - 1), answered(503), ENDED, retry);

    expect(step.outcome).toMatchObject({ kind: 'exhausted', attempt: { attempt: MAX_DELIVERY_ATTEMPTS, outcome: 'failed' } });
    expect(step.outcome).not.toHaveProperty('attempt.nextAttemptAt');
    expect(step.logged?.delivery.status).toBe('failed');
  });

  it('takes a 410 Gone as the end of the subscription, with no retry', () => {
    const step = settleCall(dueAfter(0), answered(410, { body: 'gone' }), ENDED, retry);

    expect(step.outcome).toMatchObject({ kind: 'gone', attempt: { httpStatus: 410, responseBody: 'gone', outcome: 'failed' } });
    expect(step.logged?.delivery.status).toBe('failed');
    expect(step.subscription?.id).toBe('wh_AAAAAAAAAAAAAAAA');
  });

  it('retries a call that got no answer, logging why, with no status and no excerpt', () => {
    const refused: PostResult = {
      kind: 'error',
      error: 'connection_refused',
      message: 'The endpoint refused the connection.',
      durationMs: 2,
    };

    const step = settleCall(dueAfter(0), refused, ENDED, retry);

    expect(step.outcome.kind).toBe('retry');
    const attempt = step.logged?.attempt;
    expect(attempt).toMatchObject({ error: 'connection_refused', errorMessage: 'The endpoint refused the connection.', durationMs: 2 });
    expect(attempt).not.toHaveProperty('httpStatus');
    expect(attempt).not.toHaveProperty('responseBody');
    expect(attempt).not.toHaveProperty('responseBodyTruncated');
  });
});

/** A settled step of `subscription` whose call ended as `kind`. */
function stepOf(subscription: Subscription, answer: PostResult, attempts = 0): SettledStep {
  return settleCall(dueAfter(attempts, subscription), answer, ENDED, retry);
}

describe("a batch's health changes", () => {
  const now = ENDED;

  it('disables a subscription that answered 410 Gone, saying when', () => {
    const subscription = activeSubscription();

    expect(healthChanges([stepOf(subscription, answered(410))], now, 5 * DAY_MS)).toEqual([
      { kind: 'disable', subscription, reason: `The endpoint answered 410 Gone on ${now.toISOString()}.`, cutShort: [] },
    ]);
  });

  it('marks a subscription failing at its first failure, and healthy again at a success; a success beside a failure wins', () => {
    const fresh = activeSubscription();
    const failing = activeSubscription({ id: 'wh_FFFFFFFFFFFFFFFF', failingSince: new Date(now.getTime() - DAY_MS).toISOString() });

    expect(healthChanges([stepOf(fresh, answered(500))], now, 5 * DAY_MS)).toEqual([
      { kind: 'failing', subscription: fresh, since: now.toISOString() },
    ]);
    expect(healthChanges([stepOf(failing, answered(500)), stepOf(failing, answered(200))], now, 5 * DAY_MS)).toEqual([
      { kind: 'healthy', subscription: failing },
    ]);
    // Healthy already, or failing within the allowance: nothing to change.
    expect(healthChanges([stepOf(fresh, answered(200))], now, 5 * DAY_MS)).toEqual([]);
    expect(healthChanges([stepOf(failing, answered(500))], now, 5 * DAY_MS)).toEqual([]);
  });

  it('disables a subscription failing for longer than allowed, cutting short the retries of its batch', () => {
    const since = new Date(now.getTime() - 5 * DAY_MS - 1000).toISOString();
    const failing = activeSubscription({ failingSince: since });
    const other = activeSubscription({ id: 'wh_OOOOOOOOOOOOOOOO' });
    const steps = [stepOf(failing, answered(500)), stepOf(other, answered(200)), stepOf(failing, answered(503), MAX_DELIVERY_ATTEMPTS - 1)];

    expect(healthChanges(steps, now, 5 * DAY_MS)).toEqual([
      { kind: 'disable', subscription: failing, reason: `No delivery succeeded since ${since} (5 days).`, cutShort: [0, 2] },
    ]);
  });

  it('ignores deliveries that made no call', () => {
    expect(healthChanges([{ outcome: { kind: 'duplicate' } }, { outcome: { kind: 'early', delaySeconds: 9 } }], now, DAY_MS)).toEqual([]);
  });
});

describe('carrying the health changes out', () => {
  function directory(options: { changedSinceRead?: boolean } = {}) {
    const calls: string[] = [];
    const recorded: LogEntry[] = [];
    const deps = {
      subscriptions: {
        disable: async (seen: Subscription) => {
          calls.push(`disable:${seen.id}`);
          return !options.changedSinceRead;
        },
        markHealthy: async (_clientId: string, id: string) => void calls.push(`healthy:${id}`),
        markFailing: async (_clientId: string, id: string, at: string) => void calls.push(`failing:${id}:${at}`),
      },
      log: { recordMany: async (entries: readonly LogEntry[]) => void recorded.push(...entries) },
    };
    return { deps, calls, recorded };
  }

  it('disables, and logs dead each delivery cut short, whose outcome becomes the subscription gone', async () => {
    const failing = activeSubscription({ failingSince: new Date(ENDED.getTime() - 6 * DAY_MS).toISOString() });
    const steps = [stepOf(failing, answered(500, { body: 'down' }))];
    const { deps, calls, recorded } = directory();

    const outcomes = await applyHealthChanges(deps, steps, healthChanges(steps, ENDED, 5 * DAY_MS), ENDED);

    expect(calls).toEqual(['disable:wh_AAAAAAAAAAAAAAAA']);
    expect(outcomes).toEqual([{ kind: 'gone', attempt: expect.objectContaining({ responseBody: 'down' }) }]);
    expect(outcomes[0]).not.toHaveProperty('attempt.nextAttemptAt');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]?.delivery).toMatchObject({ status: 'failed' });
    expect(recorded[0]?.delivery).not.toHaveProperty('nextAttemptAt');
  });

  it('keeps the retries of a subscription the client changed after the batch read it, which stays as the client left it', async () => {
    const failing = activeSubscription({ failingSince: new Date(ENDED.getTime() - 6 * DAY_MS).toISOString() });
    const steps = [stepOf(failing, answered(500))];
    const { deps, recorded } = directory({ changedSinceRead: true });

    const outcomes = await applyHealthChanges(deps, steps, healthChanges(steps, ENDED, 5 * DAY_MS), ENDED);

    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['retry']);
    expect(recorded).toEqual([]);
  });

  it('marks failing and healthy, writing nothing to the log', async () => {
    const fresh = activeSubscription();
    const recovering = activeSubscription({ id: 'wh_RRRRRRRRRRRRRRRR', failingSince: ENDED.toISOString() });
    const steps = [stepOf(fresh, answered(500)), stepOf(recovering, answered(200))];
    const { deps, calls, recorded } = directory();

    const outcomes = await applyHealthChanges(deps, steps, healthChanges(steps, ENDED, 5 * DAY_MS), ENDED);

    expect(calls.sort()).toEqual([`failing:wh_AAAAAAAAAAAAAAAA:${ENDED.toISOString()}`, 'healthy:wh_RRRRRRRRRRRRRRRR']);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['retry', 'delivered']);
    expect(recorded).toEqual([]);
  });

  it('cuts short only a delivery waiting for a retry', () => {
    expect(cutShortEntry(stepOf(activeSubscription(), answered(200)))).toBeUndefined();
    expect(cutShortEntry(stepOf(activeSubscription(), answered(500)))?.outcome.kind).toBe('gone');
  });
});
