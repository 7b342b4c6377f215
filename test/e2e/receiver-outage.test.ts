import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { applyDemoChange, type ChangeKind } from '../../demo/company-changes';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { createSqsClient } from '../../shared/queues/sqs';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { deliveriesTable } from '../../shared/storage/tables';
import { DynamoDeliveryLog } from '../../shared/webhooks/dynamo-delivery-log';
import { changeEvents, deliveryIdOf } from '../../shared/webhooks/events';
import { profileContent } from '../support/profile-fixture';
import { type TestRuntime, useTestRuntime } from '../support/runtime';
import { type ReceivedDelivery, startWebhookReceiver } from '../support/webhook-receiver';

/** Time compressed: one second between attempts, so the twelve attempts of the schedule take seconds, not days. */
const ONE_SECOND_SCHEDULE = Array(11).fill('1').join(',');
const SCHEDULE_ATTEMPTS = 12;

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely; the assertions check their shape
type Loose = any;

let companies = 18_700_000;

/**
 * A client of its own with one subscription to `url`, watching `count` fresh companies: each test's
 * events reach its own receiver only, whatever else the runtime is delivering.
 */
async function subscriber(bureau: TestRuntime, url: string, count: number) {
  const doc = createDocumentClient(createDynamoClient(bureau.runtime.env));
  const registry = new DynamoClientRegistry(doc, bureau.runtime.tables.clients as string);
  const { client, secret } = await registry.create({ name: `Outage ${companies}` });
  const token = await bureau.fetchToken({ clientId: client.clientId, clientSecret: secret });
  const store = new DynamoCompanyStore(doc, bureau.runtime.tables.companies as string);
  const log = new DynamoDeliveryLog(doc, bureau.runtime.tables[deliveriesTable.id] as string);

  const api = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const response = await fetch(`${bureau.baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    return { status: response.status, body: (await response.json()) as Loose };
  };

  const numbers: string[] = [];
  for (let index = 0; index < count; index++) {
    const companyNumber = String(++companies);
    await store.save(profileContent({ companyNumber, name: `Outage ${companyNumber} Ltd` }));
    expect((await api(`/v1/profile/${companyNumber}?jurisdiction=GB`)).status).toBe(200);
    numbers.push(companyNumber);
  }
  const created = await api('/v1/webhooks', { method: 'POST', body: { name: 'Outage', url } });
  expect(created.status).toBe(201);
  const subscription = created.body as { id: string; signingSecret: string };

  return {
    api,
    numbers,
    subscription,
    /** Applies a demo change and returns the idempotency keys of the events it must raise. */
    async change(companyNumber: string, kind: ChangeKind): Promise<string[]> {
      const before = await store.get('GB', companyNumber);
      const after = await applyDemoChange(store, 'GB', companyNumber, kind);
      return changeEvents(before as NonNullable<typeof before>, after).map((event) => event.idempotencyKey);
    },
    /** Every attempt in the subscription's log, oldest first. */
    async attempts(): Promise<Loose[]> {
      const items: Loose[] = [];
      for (let cursor: string | undefined, first = true; first || cursor; first = false) {
        const page = await api(
          `/v1/webhooks/${subscription.id}/deliveries?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        items.push(...page.body.items);
        cursor = page.body.nextCursor ?? undefined;
      }
      return items.reverse();
    },
    record: (deliveryId: string) => log.read(subscription.id, deliveryId),
  };
}

/** A receiver's URL with nothing listening: connections are refused, as when the client's endpoint is down. */
async function downReceiver(): Promise<{ url: string; port: number }> {
  const receiver = await startWebhookReceiver();
  await receiver.stop();
  return { url: `${receiver.url}/hooks`, port: Number(new URL(receiver.url).port) };
}

const keyOf = (delivery: ReceivedDelivery) => (JSON.parse(delivery.body) as { idempotencyKey: string }).idempotencyKey;
/** Attempts by delivery id, each delivery's in the order given. */
function perDelivery(attempts: Loose[]): Map<string, Loose[]> {
  const grouped = new Map<string, Loose[]>();
  for (const attempt of attempts) grouped.set(attempt.deliveryId, [...(grouped.get(attempt.deliveryId) ?? []), attempt]);
  return grouped;
}

async function parkedDeadLetters(bureau: TestRuntime): Promise<string | undefined> {
  const sqs = createSqsClient(bureau.runtime.env);
  try {
    const attributes = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: bureau.runtime.queues['deliveries-dlq']?.queueUrl as string,
        AttributeNames: ['ApproximateNumberOfMessages'],
      }),
    );
    return attributes.Attributes?.ApproximateNumberOfMessages;
  } finally {
    sqs.destroy();
  }
}

describe('a receiver that is down, on the whole retry schedule compressed to seconds', () => {
  const bureau = useTestRuntime({ DELIVERY_RETRY_DELAYS: ONE_SECOND_SCHEDULE });

  it('gets every event once, by idempotency key and under its webhook-id, when it comes back within the schedule', async () => {
    const down = await downReceiver();
    const client = await subscriber(bureau(), down.url, 3);
    const expected: string[] = [];
    for (const number of client.numbers)
      expected.push(...(await client.change(number, 'risk')), ...(await client.change(number, 'new-signal')));
    expect(expected).toHaveLength(6);

    // Down for a good part of the schedule: every delivery has failed three times before the receiver returns.
    await expect
      .poll(
        async () => {
          const failing = [...perDelivery(await client.attempts()).values()];
          return failing.filter((attempts) => attempts.filter((attempt) => attempt.error === 'connection_refused').length >= 3).length;
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe(expected.length);
    const receiver = await startWebhookReceiver({ port: down.port });
    try {
      const arrived = await receiver.waitFor(() => true, expected.length, 30_000);
      await expect
        .poll(async () => (await client.attempts()).filter((attempt) => attempt.outcome === 'delivered').length, { timeout: 10_000 })
        .toBe(expected.length);

      const attempts = await client.attempts();
      expect(receiver.deliveries.map(keyOf).sort()).toEqual([...expected].sort());
      for (const delivery of arrived) {
        const key = keyOf(delivery);
        expect(delivery.headers['webhook-id']).toBe(deliveryIdOf(key, client.subscription.id));
        expect(() => new Webhook(client.subscription.signingSecret).verify(delivery.body, delivery.headers)).not.toThrow();
        // One delivery per event, its failed attempts and its one success under one webhook-id.
        const own = attempts.filter((attempt) => attempt.idempotencyKey === key);
        expect(new Set(own.map((attempt) => attempt.deliveryId))).toEqual(new Set([delivery.headers['webhook-id']]));
        expect(own.map((attempt) => attempt.outcome).filter((outcome) => outcome === 'delivered')).toEqual(['delivered']);
        expect(own.at(-1)).toMatchObject({ outcome: 'delivered', attempt: own.length });
        expect(own.length).toBeGreaterThan(3);
        expect(own.length).toBeLessThanOrEqual(SCHEDULE_ATTEMPTS);
      }
      expect((await client.api(`/v1/webhooks/${client.subscription.id}`)).body).toMatchObject({ status: 'ACTIVE', failingSince: null });
    } finally {
      await receiver.stop();
    }
  }, 90_000);

  it('keeps each delivery failed in the log when it stays down past the schedule, parks nothing, and a recovery re-sends each under its original webhook-id', async () => {
    const down = await downReceiver();
    const client = await subscriber(bureau(), down.url, 2);
    const since = new Date(Date.now() - 1000).toISOString();
    const expected: string[] = [];
    for (const number of client.numbers) expected.push(...(await client.change(number, 'trading-status')));
    const deliveryIds = expected.map((key) => deliveryIdOf(key, client.subscription.id));

    await expect
      .poll(async () => Promise.all(deliveryIds.map(async (deliveryId) => (await client.record(deliveryId))?.status)), {
        timeout: 60_000,
        interval: 500,
      })
      .toEqual(deliveryIds.map(() => 'failed'));
    const attempts = perDelivery(await client.attempts());
    for (const deliveryId of deliveryIds) {
      expect(await client.record(deliveryId)).toMatchObject({ status: 'failed', attempts: SCHEDULE_ATTEMPTS });
      expect(attempts.get(deliveryId)?.map((attempt: Loose) => attempt.error)).toEqual(Array(SCHEDULE_ATTEMPTS).fill('connection_refused'));
      expect(attempts.get(deliveryId)?.at(-1)).toMatchObject({ attempt: SCHEDULE_ATTEMPTS, nextAttemptAt: null });
    }
    expect(await parkedDeadLetters(bureau())).toBe('0');

    const receiver = await startWebhookReceiver({ port: down.port });
    try {
      const recovered = await client.api(`/v1/webhooks/${client.subscription.id}/recover`, { method: 'POST', body: { since } });
      expect(recovered).toEqual({ status: 202, body: { since, queued: expected.length, nextCursor: null } });
      const arrived = await receiver.waitFor(() => true, expected.length, 20_000);
      expect(arrived.map((delivery) => delivery.headers['webhook-id']).sort()).toEqual([...deliveryIds].sort());
      expect(arrived.map(keyOf).sort()).toEqual([...expected].sort());
      await expect
        .poll(async () => Promise.all(deliveryIds.map(async (deliveryId) => (await client.record(deliveryId))?.status)))
        .toEqual(deliveryIds.map(() => 'delivered'));
      for (const deliveryId of deliveryIds) expect(await client.record(deliveryId)).toMatchObject({ attempts: SCHEDULE_ATTEMPTS + 1 });

      const again = await client.api(`/v1/webhooks/${client.subscription.id}/recover`, { method: 'POST', body: { since } });
      expect(again.body).toMatchObject({ queued: 0 });
    } finally {
      await receiver.stop();
    }
  }, 120_000);

  it('disables the subscription at the first 410 Gone, sends it nothing more, and keeps that delivery for a recovery once enabled again', async () => {
    const receiver = await startWebhookReceiver();
    receiver.respondWith(() => ({ status: 410 }));
    try {
      const client = await subscriber(bureau(), `${receiver.url}/gone`, 1);
      const number = client.numbers[0] as string;
      const [gone] = await client.change(number, 'risk');
      await receiver.waitFor(() => true);
      await expect.poll(async () => (await client.api(`/v1/webhooks/${client.subscription.id}`)).body.status).toBe('DISABLED');
      expect((await client.api(`/v1/webhooks/${client.subscription.id}`)).body.disabledReason).toMatch(/410 Gone/);
      const deliveryId = deliveryIdOf(gone as string, client.subscription.id);
      expect(await client.record(deliveryId)).toMatchObject({ status: 'failed', attempts: 1 });

      // The next change is fanned out (the client's events list it) and queued for no disabled subscription.
      const [later] = await client.change(number, 'trading-status');
      await expect
        .poll(async () =>
          (await client.api(`/v1/events?companyNumber=${number}&jurisdiction=GB`)).body.items.map((item: Loose) => item.idempotencyKey),
        )
        .toContain(later);
      expect(receiver.deliveries.map(keyOf)).toEqual([gone]);
      expect(await client.attempts()).toHaveLength(1);

      receiver.respondWith(() => ({ status: 200 }));
      expect((await client.api(`/v1/webhooks/${client.subscription.id}`, { method: 'PATCH', body: { status: 'ACTIVE' } })).status).toBe(
        200,
      );
      const since = new Date(Date.now() - 60_000).toISOString();
      expect((await client.api(`/v1/webhooks/${client.subscription.id}/recover`, { method: 'POST', body: { since } })).body).toMatchObject({
        queued: 1,
      });
      const [resent] = (await receiver.waitFor(() => true, 2)).slice(1);
      expect(resent?.headers['webhook-id']).toBe(deliveryId);
    } finally {
      await receiver.stop();
    }
  }, 60_000);
});

describe('a receiver failing for longer than DISABLE_FAILING_WEBHOOKS_AFTER_DAYS, compressed to 4 seconds', () => {
  const bureau = useTestRuntime({ DELIVERY_RETRY_DELAYS: ONE_SECOND_SCHEDULE, DISABLE_FAILING_WEBHOOKS_AFTER_DAYS: String(4 / 86_400) });

  it('has its subscription disabled at the first failure past the limit, the delivery cut short kept for a recovery', async () => {
    const receiver = await startWebhookReceiver();
    receiver.respondWith(() => ({ status: 503 }));
    try {
      const client = await subscriber(bureau(), `${receiver.url}/failing`, 1);
      const [key] = await client.change(client.numbers[0] as string, 'risk');
      const deliveryId = deliveryIdOf(key as string, client.subscription.id);

      await expect
        .poll(async () => (await client.api(`/v1/webhooks/${client.subscription.id}`)).body.status, { timeout: 30_000, interval: 250 })
        .toBe('DISABLED');
      const subscription = (await client.api(`/v1/webhooks/${client.subscription.id}`)).body;
      const failingSince = Date.parse(/^No delivery succeeded since (\S+Z) \(0 days\)\.$/.exec(subscription.disabledReason)?.[1] as string);
      const attempts = await client.attempts();
      const started = (attempt: Loose) => Date.parse(attempt.attemptedAt);
      // Failing since the first failure, disabled at least 4 s later by a failed attempt, the one before it not yet past the limit.
      expect(failingSince).toBeGreaterThanOrEqual(started(attempts[0]));
      expect(failingSince).toBeLessThanOrEqual(started(attempts[1]));
      expect(Date.parse(subscription.updatedAt) - failingSince).toBeGreaterThanOrEqual(4000);
      expect(started(attempts.at(-2)) - failingSince).toBeLessThan(4000);
      expect(attempts.length).toBeLessThan(SCHEDULE_ATTEMPTS);
      expect(attempts.map((attempt: Loose) => attempt.httpStatus)).toEqual(attempts.map(() => 503));
      expect(attempts.slice(0, -1).every((attempt: Loose) => attempt.nextAttemptAt !== null)).toBe(true);
      expect(attempts.at(-1).nextAttemptAt).toBeNull();
      expect(await client.record(deliveryId)).toMatchObject({ status: 'failed', attempts: attempts.length });
      const sent = receiver.deliveries.length;
      expect(sent).toBe(attempts.length);

      receiver.respondWith(() => ({ status: 200 }));
      expect(
        (await client.api(`/v1/webhooks/${client.subscription.id}`, { method: 'PATCH', body: { status: 'ACTIVE' } })).body,
      ).toMatchObject({
        status: 'ACTIVE',
        disabledReason: null,
        failingSince: null,
      });
      const since = new Date(Date.now() - 60_000).toISOString();
      expect((await client.api(`/v1/webhooks/${client.subscription.id}/recover`, { method: 'POST', body: { since } })).body).toMatchObject({
        queued: 1,
      });
      const resent = (await receiver.waitFor(() => true, sent + 1)).at(-1);
      expect(resent?.headers['webhook-id']).toBe(deliveryId);
      await expect.poll(async () => (await client.record(deliveryId))?.status).toBe('delivered');
    } finally {
      await receiver.stop();
    }
  }, 60_000);
});
