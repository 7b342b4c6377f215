import { describe, expect, it } from 'vitest';
import { attemptStart, callRecord, logEntryOf } from '../../../shared/webhooks/delivery-attempt';
import type { DeliveryAttempt } from '../../../shared/webhooks/delivery-log';
import { activeSubscription, answered, deliveryMessage, FIXTURE_NOW, pendingAfter } from '../../support/delivery-fixture';

describe("the log's record of an attempt", () => {
  it('keeps of an answer its status, the start of its body, whether that was all of it, and the time taken: nothing else', () => {
    const record = callRecord(answered(500, { body: '<h1>Oops</h1>', truncated: true, durationMs: 812, retryAfter: '60' }));

    expect(record).toEqual({ httpStatus: 500, responseBody: '<h1>Oops</h1>', responseBodyTruncated: true, durationMs: 812 });
  });

  it('keeps of a call with no answer why, and the time taken', () => {
    expect(callRecord({ kind: 'error', error: 'timeout', message: 'The endpoint did not answer in time.', durationMs: 10_000 })).toEqual({
      error: 'timeout',
      errorMessage: 'The endpoint did not answer in time.',
      durationMs: 10_000,
    });
  });

  it("writes the delivery's state with the attempt: pending while a retry is due, else the attempt's own outcome", () => {
    const start = attemptStart(deliveryMessage(), 3, FIXTURE_NOW);
    const previous = pendingAfter(2, { status: 'failed', nextAttemptAt: undefined });
    const failed: DeliveryAttempt = { ...start, outcome: 'failed', httpStatus: 500, durationMs: 5 };
    const next = new Date(FIXTURE_NOW.getTime() + 5000).toISOString();

    const waiting = logEntryOf(deliveryMessage(), activeSubscription(), { ...failed, nextAttemptAt: next }, previous);
    const dead = logEntryOf(deliveryMessage(), activeSubscription(), failed, undefined);

    expect(waiting).toMatchObject({ delivery: { status: 'pending', attempts: 3, nextAttemptAt: next }, previous });
    expect(dead.delivery.status).toBe('failed');
    expect(dead).not.toHaveProperty('previous');
    expect(dead.delivery).not.toHaveProperty('nextAttemptAt');
  });
});
