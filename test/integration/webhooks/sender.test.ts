import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookEnvelope } from '../../../shared/events/envelope';
import type { DeliveryMessage } from '../../../shared/queues/queues';
import { deliveriesTable, webhooksTable } from '../../../shared/storage/tables';
import { DeliveryClient } from '../../../shared/webhooks/delivery-client';
import { DynamoDeliveryLog } from '../../../shared/webhooks/dynamo-delivery-log';
import { DynamoSubscriptionStore } from '../../../shared/webhooks/dynamo-subscription-store';
import { deliveryIdOf } from '../../../shared/webhooks/events';
import { MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../../shared/webhooks/retry-schedule';
import { WebhookSender } from '../../../shared/webhooks/sender';
import type { Subscription } from '../../../shared/webhooks/subscription';
import { presentMinuteMs } from '../../support/clock';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { fixtureSealer, subscriptionFixture } from '../../support/subscription-fixture';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver';

let tables: TestTables;
let receiver: WebhookReceiver;
let store: DynamoSubscriptionStore;
let log: DynamoDeliveryLog;
let client: DeliveryClient;
const start = new Date(presentMinuteMs());
let now = start;
let sequence = 0;

beforeAll(async () => {
  tables = await createTestTables([webhooksTable, deliveriesTable]);
  receiver = await startWebhookReceiver();
  store = new DynamoSubscriptionStore(tables.doc, tables.names.webhooks as string);
  log = new DynamoDeliveryLog(tables.doc, tables.names.deliveries as string, () => now);
  client = new DeliveryClient({ allowLoopback: true });
});

afterAll(async () => {
  await client?.close();
  await receiver?.stop();
});

const sender = () =>
  new WebhookSender({
    subscriptions: store,
    log,
    client,
    retry: { delaysSeconds: RETRY_DELAYS_SECONDS, random: () => 0.5 },
    clock: () => now,
    sealer: fixtureSealer,
  });

async function subscription(path: string): Promise<Subscription> {
  const created = await subscriptionFixture({ clientId: 'cli-sender', name: path, url: `${receiver.url}${path}`, at: now });
  await store.create(created);
  return created;
}

function message(target: Subscription): DeliveryMessage {
  const envelope: WebhookEnvelope = {
    type: 'profile.changed',
    apiVersion: 'v1',
    occurredAt: now.toISOString(),
    idempotencyKey: `profile.changed:GB:0000${++sequence}:overview:v2`,
    block: 'overview',
    data: { jurisdiction: 'GB', companyNumber: `0000${sequence}` },
  };
  return { deliveryId: deliveryIdOf(envelope.idempotencyKey, target.id), clientId: target.clientId, subscriptionId: target.id, envelope };
}

describe('the sender', () => {
  it("schedules each attempt from the log's count, lengthened by Retry-After, and keeps a dead delivery for recovery until it succeeds", async () => {
    const target = await subscription('/busy');
    let answer = 429;
    receiver.respondWith((delivery) =>
      delivery.path === '/busy' ? { status: answer, headers: { 'retry-after': '900' } } : { status: 200 },
    );
    const delivery = message(target);
    const due = async () => new Date((await log.read(target.id, delivery.deliveryId))?.nextAttemptAt as string);
    try {
      expect(await sender().send(delivery)).toMatchObject({
        kind: 'retry',
        delaySeconds: 900,
        attempt: { attempt: 1, httpStatus: 429, nextAttemptAt: new Date(start.getTime() + 15 * 60_000).toISOString() },
      });
      expect((await store.get(target.clientId, target.id))?.failingSince).toBe(start.toISOString());
      // Handed out again before its time (a visibility SQS would not grant in one go): hidden for the rest, nothing spent.
      expect(await sender().send(delivery)).toEqual({ kind: 'early', delaySeconds: 900 });

      now = await due();
      expect(await sender().send(delivery)).toMatchObject({ kind: 'retry', delaySeconds: 900, attempt: { attempt: 2 } });
      now = await due();
      expect(await sender().send(delivery)).toMatchObject({
        kind: 'retry',
        delaySeconds: RETRY_DELAYS_SECONDS[2],
        attempt: { attempt: 3 },
      });
      let last = await sender().send(delivery);
      for (let attempt = 4; attempt <= MAX_DELIVERY_ATTEMPTS; attempt++) {
        now = await due();
        last = await sender().send(delivery);
      }
      expect(last.kind).toBe('exhausted');
      expect(last).not.toHaveProperty('attempt.nextAttemptAt');
      const dead = await log.deadSince(target.id, start, { limit: 10 });
      expect(dead.items).toEqual([
        expect.objectContaining({ deliveryId: delivery.deliveryId, status: 'failed', attempts: MAX_DELIVERY_ATTEMPTS }),
      ]);
      expect((await log.deadSince(target.id, new Date(now.getTime() + 1), { limit: 10 })).items).toEqual([]);

      answer = 200;
      expect(await sender().send({ ...delivery, recovered: true, scheduleFrom: MAX_DELIVERY_ATTEMPTS })).toMatchObject({
        kind: 'delivered',
        attempt: { attempt: MAX_DELIVERY_ATTEMPTS + 1 },
      });
      expect((await log.deadSince(target.id, start, { limit: 10 })).items).toEqual([]);
      expect(await sender().send({ ...delivery, recovered: true, scheduleFrom: MAX_DELIVERY_ATTEMPTS })).toEqual({ kind: 'duplicate' });
    } finally {
      now = start;
    }
  });

  it('clears failingSince on the next success, and skips a delivery already delivered unless it is a manual retry', async () => {
    const target = await subscription('/recovering');
    receiver.respondWith((delivery) => ({
      status: delivery.path === '/recovering' && receiver.deliveries.filter((d) => d.path === '/recovering').length === 1 ? 500 : 200,
    }));
    const delivery = message(target);
    try {
      expect((await sender().send(delivery)).kind).toBe('retry');
      expect((await store.get(target.clientId, target.id))?.failingSince).toBeDefined();
      now = new Date((await log.read(target.id, delivery.deliveryId))?.nextAttemptAt as string);
      expect((await sender().send(delivery)).kind).toBe('delivered');
      expect((await store.get(target.clientId, target.id))?.failingSince).toBeUndefined();

      expect(await sender().send(delivery)).toEqual({ kind: 'duplicate' });
      expect(await sender().send({ ...delivery, manual: true, scheduleFrom: 2 })).toMatchObject({
        kind: 'delivered',
        attempt: { attempt: 3 },
      });
      expect(receiver.deliveries.filter((d) => d.path === '/recovering')).toHaveLength(3);
    } finally {
      now = start;
    }
  });

  it('disables a subscription that has failed for five days, saying since when', async () => {
    const target = await subscription('/dead');
    receiver.respondWith((delivery) => ({ status: delivery.path === '/dead' ? 503 : 200 }));
    await sender().send(message(target));
    now = new Date(now.getTime() + 5 * 24 * 3600 * 1000 + 1000);
    try {
      const outcome = await sender().send(message(target));
      const disabled = await store.get(target.clientId, target.id);
      expect(outcome.kind).toBe('gone');
      expect(disabled?.status).toBe('DISABLED');
      expect(disabled?.disabledReason).toBe(`No delivery succeeded since ${start.toISOString()} (5 days).`);
      expect((await store.activeSubscriptions([target.clientId])).get(target.clientId)?.map((active) => active.id) ?? []).not.toContain(
        target.id,
      );
    } finally {
      now = start;
    }
  });

  it("keeps in the log the receiver's status, the first 2 KiB of its 5 KiB answer marked truncated, and the call's duration", async () => {
    const target = await subscription('/refusing');
    const answer = `<!doctype html><title>Internal Server Error</title>${'<p>stack frame</p>'.repeat(300)}`.slice(0, 5 * 1024);
    receiver.respondWith((delivery) => (delivery.path === '/refusing' ? { status: 500, body: answer, delayMs: 25 } : { status: 200 }));

    await sender().send(message(target));
    const [attempt] = (await log.attempts(target.id, { limit: 1 })).items;

    expect(attempt).toMatchObject({
      outcome: 'failed',
      httpStatus: 500,
      responseBody: answer.slice(0, 2048),
      responseBodyTruncated: true,
      nextAttemptAt: expect.any(String),
    });
    expect(attempt?.durationMs).toBeGreaterThanOrEqual(25);
  });

  it('keeps an attempt a few KiB at most, whatever the answer: 5 KiB of bytes that are not UTF-8', async () => {
    const target = await subscription('/garbage');
    receiver.respondWith((delivery) =>
      delivery.path === '/garbage' ? { status: 502, body: new Uint8Array(5 * 1024).fill(0xff) } : { status: 200 },
    );

    await sender().send(message(target));
    const [attempt] = (await log.attempts(target.id, { limit: 1 })).items;

    expect(attempt?.responseBody).toBe('\uFFFD'.repeat(2048));
    // Every attribute of the stored attempt, names and values, as UTF-8: far below DynamoDB's 400 KB item.
    expect(Buffer.byteLength(JSON.stringify(attempt), 'utf8')).toBeLessThan(8 * 1024);
  });

  it('drops, and logs, a delivery to a disabled subscription; a deleted one leaves nothing to log', async () => {
    const target = await subscription('/off');
    await store.update(target.clientId, target.id, { status: 'DISABLED' }, now.toISOString());
    const delivery = message(target);
    expect(await sender().send(delivery)).toEqual({ kind: 'dropped', reason: 'the subscription is disabled' });
    expect((await log.read(target.id, delivery.deliveryId))?.status).toBe('dropped');
    await store.delete(target.clientId, target.id);
    expect(await sender().send(message(target))).toEqual({ kind: 'dropped', reason: 'the subscription was deleted' });
    expect(receiver.deliveries.filter((d) => d.path === '/off')).toHaveLength(0);
  });
});
