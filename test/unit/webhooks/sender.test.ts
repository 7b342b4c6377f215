import { describe, expect, it } from 'vitest';
import { type SecretSealer, UnsealableSecretError } from '../../../shared/crypto/secret-sealer';
import type { DeliveryMessage } from '../../../shared/queues/queues';
import type { PostResult } from '../../../shared/webhooks/delivery-client';
import type { DeliveryLog, DeliveryRecord, LogEntry } from '../../../shared/webhooks/delivery-log';
import { MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../../shared/webhooks/retry-schedule';
import { type SendOutcome, WebhookSender } from '../../../shared/webhooks/sender';
import type { Subscription, SubscriptionChanges, SubscriptionDirectory } from '../../../shared/webhooks/subscription';
import { answered } from '../../support/delivery-fixture';

const NOW = new Date('2026-11-24T12:00:00.000Z');
const envelope = {
  type: 'profile.changed' as const,
  apiVersion: 'v1' as const,
  occurredAt: NOW.toISOString(),
  idempotencyKey: 'profile.changed:GB:00000001:overview:v2',
  block: 'overview' as const,
  data: { jurisdiction: 'GB' as const, companyNumber: '00000001' },
};

function subscription(fields: Partial<Subscription> = {}): Subscription {
  return {
    id: 'wh_AAAAAAAAAAAAAAAA',
    clientId: 'cli_a',
    name: 'hook',
    url: 'https://hooks.example.com/in',
    status: 'ACTIVE',
    signingSecrets: [{ sealed: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo=', createdAt: '2026-01-01T00:00:00.000Z' }],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...fields,
  };
}

/** Fakes of the sender's ports that remember what was asked of them. */
function world(
  options: {
    subscription?: Subscription;
    others?: Subscription[];
    previous?: DeliveryRecord;
    answer?: PostResult;
    post?: (url: string) => Promise<PostResult>;
    sealer?: SecretSealer;
    logFails?: boolean;
  } = {},
) {
  const target = options.subscription ?? subscription();
  const known = new Map([target, ...(options.others ?? [])].map((each) => [each.id, each]));
  const posted: { url: string; headers: Readonly<Record<string, string>> }[] = [];
  const recorded: LogEntry[] = [];
  const writes: number[] = [];
  const changes: { id: string; changes: SubscriptionChanges }[] = [];
  const marks: string[] = [];
  const subscriptions: SubscriptionDirectory = {
    activeSubscriptions: async () => new Map(),
    get: async () => target,
    getMany: async (keys) => new Map(keys.flatMap((key) => (known.has(key.id) ? [[key.id, known.get(key.id) as Subscription]] : []))),
    update: async (_clientId, id, change) => {
      changes.push({ id, changes: change });
      return target;
    },
    disable: async (seen, reason) => {
      changes.push({ id: seen.id, changes: { status: 'DISABLED', disabledReason: reason } });
      return true;
    },
    markFailing: async (_clientId, id) => void marks.push(`failing:${id}`),
    markHealthy: async (_clientId, id) => void marks.push(`healthy:${id}`),
  };
  const log: DeliveryLog = {
    read: async () => options.previous,
    readMany: async () => new Map(options.previous ? [[options.previous.deliveryId, options.previous]] : []),
    recordMany: async (entries) => {
      if (options.logFails) throw new Error('the table is unavailable');
      writes.push(entries.length);
      recorded.push(...entries);
    },
    deadSince: async () => ({ items: [] }),
    attempts: async () => ({ items: [] }),
  };
  const sealer: SecretSealer = options.sealer ?? { seal: async (value) => value, open: async (value) => value };
  const sender = new WebhookSender({
    subscriptions,
    log,
    client: {
      post: async (url, headers) => {
        posted.push({ url, headers });
        if (options.post) return options.post(url);
        return options.answer ?? answered(200, { durationMs: 12 });
      },
    },
    retry: { delaysSeconds: RETRY_DELAYS_SECONDS, random: () => 0.5 },
    clock: () => NOW,
    sealer,
  });
  return { sender, posted, recorded, writes, changes, marks };
}

/** The log's record of a delivery tried `attempts` times, its next attempt due now. */
const pendingAfter = (attempts: number, fields: Partial<DeliveryRecord> = {}): DeliveryRecord => ({
  deliveryId: 'msg_1',
  clientId: 'cli_a',
  subscriptionId: 'wh_AAAAAAAAAAAAAAAA',
  envelope,
  status: 'pending',
  attempts,
  lastAttemptAt: NOW.toISOString(),
  nextAttemptAt: NOW.toISOString(),
  ...fields,
});

const message = (fields: Partial<DeliveryMessage> = {}): DeliveryMessage => ({
  deliveryId: 'msg_1',
  clientId: 'cli_a',
  subscriptionId: 'wh_AAAAAAAAAAAAAAAA',
  envelope,
  ...fields,
});

const kindOf = (outcome: SendOutcome) => outcome.kind;

describe("the sender's decisions", () => {
  it('delivers on a 2xx, signs with the opened secret, logs it delivered', async () => {
    const { sender, posted, recorded } = world();

    const outcome = await sender.send(message());

    expect(kindOf(outcome)).toBe('delivered');
    expect(posted[0]?.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(recorded[0]?.delivery.status).toBe('delivered');
  });

  it("logs the receiver's answer with the attempt, and nothing of the request: no header, no signature, no secret", async () => {
    const { sender, posted, recorded } = world({ answer: answered(500, { body: 'upstream said no', truncated: true, durationMs: 230 }) });

    await sender.send(message());

    expect(recorded[0]?.attempt).toMatchObject({
      httpStatus: 500,
      responseBody: 'upstream said no',
      responseBodyTruncated: true,
      durationMs: 230,
    });
    const stored = JSON.stringify(recorded);
    expect(stored).not.toContain(posted[0]?.headers['webhook-signature']?.slice(3));
    expect(stored).not.toContain('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(stored).not.toMatch(/webhook-|x-bureau-signature|whsec_/);
  });

  it.each([
    ['a 500 on the first attempt', answered(500, { durationMs: 3 }), 1, RETRY_DELAYS_SECONDS[0]],
    ['a 500 on the third', answered(500, { durationMs: 3 }), 3, RETRY_DELAYS_SECONDS[2]],
    ['a 429 asking for 900 s, longer than the schedule', answered(429, { retryAfter: '900', durationMs: 3 }), 1, 900],
    [
      'a refused connection',
      { kind: 'error', error: 'connection_refused', message: 'x', durationMs: 3 } as PostResult,
      2,
      RETRY_DELAYS_SECONDS[1],
    ],
  ])('retries after %s on the schedule, Retry-After only lengthening it', async (_case, answer, attempt, delay) => {
    const { sender, recorded, marks } = world({ answer, ...(attempt > 1 ? { previous: pendingAfter(attempt - 1) } : {}) });

    const outcome = await sender.send(message());

    expect(outcome).toMatchObject({ kind: 'retry', delaySeconds: delay });
    expect(recorded[0]?.delivery).toMatchObject({
      status: 'pending',
      nextAttemptAt: new Date(NOW.getTime() + (delay as number) * 1000).toISOString(),
    });
    expect(marks).toEqual(['failing:wh_AAAAAAAAAAAAAAAA']);
  });

  it('holds back only the message whose signing secrets do not open, sending the rest of the batch', async () => {
    const damaged = subscription({ id: 'wh_BBBBBBBBBBBBBBBB', signingSecrets: [{ sealed: 'v1.damaged', createdAt: NOW.toISOString() }] });
    const { sender, posted, recorded, marks } = world({
      others: [damaged],
      sealer: {
        seal: async (value) => value,
        open: async (value) => {
          if (value === 'v1.damaged') throw new UnsealableSecretError('it was sealed for another owner, or altered');
          return value;
        },
      },
    });

    const outcomes = await sender.sendBatch([
      { message: message({ deliveryId: 'msg_damaged', subscriptionId: damaged.id }) },
      { message: message() },
    ]);

    expect(outcomes).toEqual([
      { kind: 'unsigned', reason: expect.stringContaining('could not be opened') },
      expect.objectContaining({ kind: 'delivered' }),
    ]);
    expect(posted).toHaveLength(1);
    expect(recorded.map(({ delivery }) => delivery.deliveryId)).toEqual(['msg_1']);
    expect(marks).toEqual([]);
  });

  it('gives up after the last attempt of the schedule, leaving the delivery dead in the log', async () => {
    const { sender, recorded } = world({
      answer: answered(503, { durationMs: 3 }),
      previous: pendingAfter(MAX_DELIVERY_ATTEMPTS - 1),
    });

    const outcome = await sender.send(message());

    expect(kindOf(outcome)).toBe('exhausted');
    expect(recorded[0]?.attempt.attempt).toBe(MAX_DELIVERY_ATTEMPTS);
    expect(recorded[0]?.attempt).not.toHaveProperty('nextAttemptAt');
    expect(recorded[0]?.delivery.status).toBe('failed');
  });

  it('takes the place in the schedule from the log, so a receive that logged nothing (a throttled or timed-out run) spends no attempt', async () => {
    const { sender, recorded } = world({ answer: answered(500, { durationMs: 3 }), previous: pendingAfter(2) });

    expect(await sender.send(message())).toMatchObject({ kind: 'retry', delaySeconds: RETRY_DELAYS_SECONDS[2] });
    expect(recorded[0]?.attempt.attempt).toBe(3);
  });

  it('hides a message that came back before its attempt is due again for the time left, sending nothing', async () => {
    const due = new Date(NOW.getTime() + 2 * 3600_000).toISOString();
    const { sender, posted, recorded } = world({ previous: pendingAfter(5, { nextAttemptAt: due }) });

    expect(await sender.send(message())).toEqual({ kind: 'early', delaySeconds: 7200 });
    expect(posted).toEqual([]);
    expect(recorded).toEqual([]);
  });

  it('starts the schedule afresh for a manual retry or a recovery, counting its attempts on from the log', async () => {
    const dead = pendingAfter(MAX_DELIVERY_ATTEMPTS, { status: 'failed', nextAttemptAt: undefined });
    const answer: PostResult = answered(500, { durationMs: 3 });
    for (const resent of [{ manual: true }, { recovered: true }]) {
      const { sender, recorded } = world({ answer, previous: dead });
      expect(await sender.send(message({ ...resent, scheduleFrom: MAX_DELIVERY_ATTEMPTS }))).toMatchObject({
        kind: 'retry',
        delaySeconds: RETRY_DELAYS_SECONDS[0],
      });
      expect(recorded[0]).toMatchObject({ attempt: { attempt: MAX_DELIVERY_ATTEMPTS + 1 }, previous: dead });
    }
  });

  it('holds a recovered delivery until its slot in the recovery pace, and its retries until they are due', async () => {
    const dead = pendingAfter(MAX_DELIVERY_ATTEMPTS, { status: 'failed', nextAttemptAt: undefined });
    const slot = new Date(NOW.getTime() + 90_000).toISOString();
    const early = world({ previous: dead });
    expect(await early.sender.send(message({ recovered: true, scheduleFrom: 12, dueAt: slot }))).toEqual({
      kind: 'early',
      delaySeconds: 90,
    });
    expect(early.posted).toEqual([]);

    // Its first recovered attempt failed: the copy a second recovery queued waits for the retry's time too.
    const retryAt = new Date(NOW.getTime() + 300_000).toISOString();
    const retrying = world({ previous: pendingAfter(MAX_DELIVERY_ATTEMPTS + 1, { nextAttemptAt: retryAt }) });
    expect(await retrying.sender.send(message({ recovered: true, scheduleFrom: 12, dueAt: NOW.toISOString() }))).toEqual({
      kind: 'early',
      delaySeconds: 300,
    });
    expect(retrying.posted).toEqual([]);
  });

  it('sends a recovered delivery unless it has been delivered since', async () => {
    const { sender, posted } = world({ previous: pendingAfter(3, { status: 'delivered', nextAttemptAt: undefined }) });

    expect(kindOf(await sender.send(message({ recovered: true, scheduleFrom: 3 })))).toBe('duplicate');
    expect(posted).toEqual([]);
  });

  it('sends one delivery queued twice in the same batch once', async () => {
    const { sender, posted } = world();

    expect((await sender.sendBatch([{ message: message() }, { message: message() }])).map(kindOf)).toEqual(['delivered', 'duplicate']);
    expect(posted).toHaveLength(1);
  });

  it('settles each delivery as soon as its own POST ends, and logs the quick ones of a batch in one write', async () => {
    let answerSlow: (result: PostResult) => void = () => {};
    const slow = subscription({ id: 'wh_SSSSSSSSSSSSSSSS', url: 'https://slow.example.com/in' });
    const { sender, writes } = world({
      others: [slow],
      post: (url) =>
        url.includes('slow')
          ? new Promise<PostResult>((resolve) => {
              answerSlow = resolve;
            })
          : Promise.resolve(answered(500, { durationMs: 1 })),
    });
    const settled: string[] = [];
    const batch = [
      { message: message({ deliveryId: 'msg_slow', subscriptionId: slow.id }) },
      ...['msg_a', 'msg_b', 'msg_c'].map((deliveryId) => ({ message: message({ deliveryId }) })),
    ];

    const sending = sender.sendBatch(batch, async (index, outcome) => void settled.push(`${index}:${outcome.kind}`));
    await expect.poll(() => settled).toEqual(['1:retry', '2:retry', '3:retry']);
    answerSlow(answered(200, { durationMs: 9000 }));
    await sending;

    expect(settled).toEqual(['1:retry', '2:retry', '3:retry', '0:delivered']);
    expect(writes).toEqual([3, 1]);
  });

  it('keeps a delivery whose attempt could not be logged for the queue to hand out again', async () => {
    const { sender, posted } = world({ logFails: true });

    expect(await sender.send(message())).toEqual({ kind: 'unrecorded', reason: 'the table is unavailable' });
    expect(posted).toHaveLength(1);
  });

  it('disables the subscription when the endpoint answers 410 Gone', async () => {
    const { sender, changes } = world({ answer: answered(410, { durationMs: 3 }) });

    expect(kindOf(await sender.send(message()))).toBe('gone');
    expect(changes).toEqual([
      { id: 'wh_AAAAAAAAAAAAAAAA', changes: { status: 'DISABLED', disabledReason: expect.stringContaining('410 Gone') } },
    ]);
  });

  it('disables a subscription that has failed for five days, on its next failure', async () => {
    const failing = subscription({ failingSince: new Date(NOW.getTime() - 5 * 24 * 3600_000).toISOString() });
    const { sender, changes, recorded } = world({
      subscription: failing,
      answer: answered(500, { durationMs: 3 }),
      previous: pendingAfter(3),
    });

    expect(kindOf(await sender.send(message()))).toBe('gone');
    expect(changes[0]?.changes).toMatchObject({ status: 'DISABLED', disabledReason: expect.stringContaining('(5 days)') });
    // Its retry will not come: the delivery is logged dead, for recovery.
    expect(recorded.at(-1)?.delivery.status).toBe('failed');
    expect(recorded.at(-1)?.delivery).not.toHaveProperty('nextAttemptAt');
  });

  it('sends nothing for a disabled subscription, and logs why', async () => {
    const { sender, posted, recorded } = world({ subscription: subscription({ status: 'DISABLED' }) });

    expect(kindOf(await sender.send(message()))).toBe('dropped');
    expect(posted).toEqual([]);
    expect(recorded[0]?.attempt).toMatchObject({ outcome: 'dropped', error: 'subscription_disabled' });
  });

  it('sends nothing for a subscription of another client, or one that is gone', async () => {
    const { sender, posted } = world();

    expect(kindOf(await sender.send(message({ clientId: 'cli_other' })))).toBe('dropped');
    expect(kindOf(await sender.send(message({ subscriptionId: 'wh_BBBBBBBBBBBBBBBB' })))).toBe('dropped');
    expect(posted).toEqual([]);
  });

  it('sends a delivery already delivered only when it is a manual retry', async () => {
    const previous: DeliveryRecord = {
      deliveryId: 'msg_1',
      clientId: 'cli_a',
      subscriptionId: 'wh_AAAAAAAAAAAAAAAA',
      envelope,
      status: 'delivered',
      attempts: 1,
      lastAttemptAt: NOW.toISOString(),
    };
    const { sender, posted, recorded } = world({ previous });

    expect(kindOf(await sender.send(message()))).toBe('duplicate');
    expect(kindOf(await sender.send(message({ manual: true, scheduleFrom: 1 })))).toBe('delivered');
    expect(posted).toHaveLength(1);
    expect(recorded[0]?.attempt.attempt).toBe(2);
  });
});
