import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { UnsealableSecretError } from '../../../shared/crypto/secret-sealer';
import {
  type DueDelivery,
  loadBatchState,
  type Preparation,
  prepareDelivery,
  signedRequest,
} from '../../../shared/webhooks/delivery-preparation';
import {
  activeSubscription,
  deliveryMessage,
  FIXTURE_NOW,
  FIXTURE_SECRET,
  fixtureEnvelope,
  pendingAfter,
} from '../../support/delivery-fixture';

const NOW = FIXTURE_NOW;
const later = (ms: number) => new Date(NOW.getTime() + ms).toISOString();

function due(preparation: Preparation): DueDelivery {
  if (preparation.kind !== 'send') throw new Error(`expected a delivery to send, got ${preparation.kind}`);
  return preparation.due;
}

describe('preparing a delivery', () => {
  it('sends a first delivery as attempt 1, first in the schedule', () => {
    const sending = due(prepareDelivery(deliveryMessage(), activeSubscription(), undefined, NOW));

    expect(sending.start).toEqual({
      deliveryId: 'msg_1',
      eventType: 'profile.changed',
      idempotencyKey: fixtureEnvelope.idempotencyKey,
      jurisdiction: 'GB',
      companyNumber: '00000001',
      block: 'overview',
      attempt: 1,
      attemptedAt: NOW.toISOString(),
    });
    expect(sending.round).toBe(1);
  });

  it("counts its attempt from the log's record, never from how often the queue handed it out", () => {
    const previous = pendingAfter(4);
    const sending = due(prepareDelivery(deliveryMessage(), activeSubscription(), previous, NOW));

    expect(sending).toMatchObject({ start: { attempt: 5 }, round: 5, previous });
  });

  it('skips a delivery already delivered, unless it is a manual retry', () => {
    const delivered = pendingAfter(2, { status: 'delivered', nextAttemptAt: undefined });

    expect(prepareDelivery(deliveryMessage(), activeSubscription(), delivered, NOW)).toEqual({
      kind: 'skip',
      outcome: { kind: 'duplicate' },
    });
    expect(prepareDelivery(deliveryMessage({ recovered: true, scheduleFrom: 2 }), activeSubscription(), delivered, NOW).kind).toBe('skip');
    expect(
      due(prepareDelivery(deliveryMessage({ manual: true, scheduleFrom: 2 }), activeSubscription(), delivered, NOW)).start.attempt,
    ).toBe(3);
  });

  it('sends nothing and logs nothing for a subscription that is gone, or that belongs to another client', () => {
    const deleted = { kind: 'skip', outcome: { kind: 'dropped', reason: 'the subscription was deleted' } };

    expect(prepareDelivery(deliveryMessage(), undefined, undefined, NOW)).toEqual(deleted);
    expect(prepareDelivery(deliveryMessage({ clientId: 'cli_other' }), activeSubscription(), undefined, NOW)).toEqual(deleted);
  });

  it('logs a delivery to a disabled subscription as dropped, sending nothing', () => {
    const preparation = prepareDelivery(deliveryMessage(), activeSubscription({ status: 'DISABLED' }), pendingAfter(1), NOW);

    expect(preparation).toMatchObject({
      kind: 'drop',
      outcome: { kind: 'dropped', reason: 'the subscription is disabled' },
      logged: {
        delivery: { status: 'dropped', attempts: 2 },
        attempt: { attempt: 2, outcome: 'dropped', error: 'subscription_disabled', durationMs: 0 },
      },
    });
  });

  it('hides a delivery that came back before its next attempt for the time left, and sends one within a second of it', () => {
    const notYet = pendingAfter(3, { nextAttemptAt: later(90_500) });
    const almost = pendingAfter(3, { nextAttemptAt: later(900) });

    expect(prepareDelivery(deliveryMessage(), activeSubscription(), notYet, NOW)).toEqual({
      kind: 'skip',
      outcome: { kind: 'early', delaySeconds: 91 },
    });
    expect(prepareDelivery(deliveryMessage(), activeSubscription(), almost, NOW).kind).toBe('send');
  });

  it('sends a manual retry at once, starting the schedule afresh from the attempts before it', () => {
    const waiting = pendingAfter(12, { nextAttemptAt: later(3_600_000) });
    const sending = due(prepareDelivery(deliveryMessage({ manual: true, scheduleFrom: 12 }), activeSubscription(), waiting, NOW));
    expect(sending).toMatchObject({ start: { attempt: 13 }, round: 1 });
  });

  it('sends a recovery at its slot, starting the schedule afresh, and holds it while a retry of it is not yet due', () => {
    const dead = pendingAfter(12, { status: 'failed', nextAttemptAt: undefined });
    const recovered = deliveryMessage({ recovered: true, scheduleFrom: 12, dueAt: NOW.toISOString() });
    expect(due(prepareDelivery(recovered, activeSubscription(), dead, NOW))).toMatchObject({ start: { attempt: 13 }, round: 1 });
    const waiting = pendingAfter(13, { nextAttemptAt: later(3_600_000) });
    expect(prepareDelivery(recovered, activeSubscription(), waiting, NOW)).toEqual({
      kind: 'skip',
      outcome: { kind: 'early', delaySeconds: 3600 },
    });
  });
});

describe('signing a due delivery', () => {
  it('posts the envelope to the subscription URL, signed so a Standard Webhooks library verifies it', async () => {
    const sending = due(prepareDelivery(deliveryMessage(), activeSubscription(), undefined, NOW));
    const sealer = { seal: async (value: string) => value, open: async (value: string) => value };

    // Signed at the present: the verifier refuses a timestamp minutes from its own clock.
    const signed = await signedRequest(sealer, sending, new Date());
    if (signed.kind !== 'signed') throw new Error(signed.reason);

    expect(signed.request.url).toBe('https://hooks.example.com/in');
    expect(JSON.parse(signed.request.body)).toEqual(fixtureEnvelope);
    expect(signed.request.headers['webhook-id']).toBe('msg_1');
    const verified = new Webhook(FIXTURE_SECRET).verify(signed.request.body, { ...signed.request.headers });
    expect(verified).toEqual(fixtureEnvelope);
  });

  it('holds back a delivery whose secrets do not open, saying why', async () => {
    const sealed = activeSubscription({ signingSecrets: [{ sealed: 'v1.damaged', createdAt: NOW.toISOString() }] });
    const sending = due(prepareDelivery(deliveryMessage(), sealed, undefined, NOW));
    const sealer = {
      seal: async (value: string) => value,
      open: async (): Promise<string> => {
        throw new UnsealableSecretError('it was sealed for another owner, or altered');
      },
    };

    expect(await signedRequest(sealer, sending, NOW)).toEqual({ kind: 'unsigned', reason: expect.stringContaining('could not be opened') });
  });
});

describe("loading a batch's state", () => {
  it('reads all its subscriptions in one call and all its log records in another', async () => {
    const asked: string[] = [];
    const subscription = activeSubscription();
    const previous = pendingAfter(1);
    const state = await loadBatchState(
      {
        getMany: async (keys) => {
          asked.push(`subscriptions:${keys.map((key) => key.id).join(',')}`);
          return new Map([[subscription.id, subscription]]);
        },
      },
      {
        readMany: async (keys) => {
          asked.push(`log:${keys.map((key) => key.deliveryId).join(',')}`);
          return new Map([[previous.deliveryId, previous]]);
        },
      },
      [deliveryMessage(), deliveryMessage({ deliveryId: 'msg_2', subscriptionId: 'wh_BBBBBBBBBBBBBBBB' })],
    );

    expect(asked.sort()).toEqual(['log:msg_1,msg_2', 'subscriptions:wh_AAAAAAAAAAAAAAAA,wh_BBBBBBBBBBBBBBBB']);
    expect(state.subscriptions.get(subscription.id)).toBe(subscription);
    expect(state.previous.get('msg_1')).toBe(previous);
  });
});
