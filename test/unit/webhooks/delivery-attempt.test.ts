import { describe, expect, it } from 'vitest';
import { companyOfKey } from '../../../shared/webhooks/attempt-company';
import { attemptStart, callRecord, logEntryOf } from '../../../shared/webhooks/delivery-attempt';
import type { DeliveryAttempt } from '../../../shared/webhooks/delivery-log';
import { testEvent } from '../../../shared/webhooks/events';
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

describe("the company an attempt's event names", () => {
  it('is kept from the envelope, and none for a test event', () => {
    const test = testEvent('wh_AAAAAAAAAAAAAAAA', FIXTURE_NOW, 'n0nce');

    expect(attemptStart(deliveryMessage(), 1, FIXTURE_NOW)).toMatchObject({
      jurisdiction: 'GB',
      companyNumber: '00000001',
      block: 'overview',
    });
    expect(attemptStart(deliveryMessage({ envelope: test }), 1, FIXTURE_NOW)).not.toHaveProperty('companyNumber');
  });

  it("is read back from an older attempt's idempotencyKey, whatever kind of event it was", () => {
    expect(companyOfKey('profile.changed', 'profile.changed:GB:SC000123:riskOfFailure:v3')).toEqual({
      jurisdiction: 'GB',
      companyNumber: 'SC000123',
      block: 'riskOfFailure',
    });
    expect(companyOfKey('profile.early_signal.updated', 'early_signal:IE:12345:sig_gazette_1:expired')).toEqual({
      jurisdiction: 'IE',
      companyNumber: '12345',
      block: 'earlySignals',
    });
    expect(companyOfKey('webhook.test', 'webhook.test:wh_AAAAAAAAAAAAAAAA:n0nce')).toEqual({});
    expect(companyOfKey('profile.changed', 'something:else')).toEqual({});
  });
});
