import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyDemoChange } from '../../demo/company-changes';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { createSqsClient } from '../../shared/queues/sqs';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { profileContent } from '../support/profile-fixture';
import { useTestRuntime } from '../support/runtime';
import { type ReceivedDelivery, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// Time compressed: a one-second wait after each failed attempt, so the whole schedule runs in seconds.
const bureau = useTestRuntime({ DELIVERY_RETRY_DELAYS: Array(11).fill('1').join(',') });
let store: DynamoCompanyStore;
let receiver: WebhookReceiver;
let token: string;

beforeAll(async () => {
  const doc = createDocumentClient(createDynamoClient(bureau().runtime.env));
  store = new DynamoCompanyStore(doc, bureau().runtime.tables.companies as string);
  receiver = await startWebhookReceiver();
  token = await bureau().fetchToken();
});

afterAll(async () => {
  await receiver?.stop();
});

/** Each test's subscriptions go with it: every one would otherwise receive the next tests' events too. */
const created: Array<{ id: string; token: string }> = [];
afterEach(async () => {
  for (const { id, token: owner } of created.splice(0)) await api(`/v1/webhooks/${id}`, { method: 'DELETE', token: owner });
  receiver.respondWith(() => ({ status: 200 }));
});

const api = async (path: string, init: { method?: string; body?: unknown; token?: string } = {}) => {
  const response = await fetch(`${bureau().baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${init.token ?? token}`,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: response.status, body: response.status === 204 ? undefined : ((await response.json()) as Record<string, Loose>) };
};

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely; the assertions check their shape
type Loose = any;

let companies = 18_100_000;
/** A company in the register that the caller (the demo client unless told) has fetched. */
async function watchedCompany(callerToken = token): Promise<string> {
  const companyNumber = String(++companies);
  await store.save(profileContent({ companyNumber, name: `Delivery Test ${companyNumber} Ltd` }));
  expect((await api(`/v1/profile/${companyNumber}?jurisdiction=GB`, { token: callerToken })).status).toBe(200);
  return companyNumber;
}

async function subscribe(path: string, callerToken = token): Promise<{ id: string; signingSecret: string }> {
  const response = await api('/v1/webhooks', { method: 'POST', body: { name: path, url: `${receiver.url}${path}` }, token: callerToken });
  expect(response.status).toBe(201);
  const subscription = response.body as { id: string; signingSecret: string };
  created.push({ id: subscription.id, token: callerToken });
  return subscription;
}

const to = (path: string) => (delivery: ReceivedDelivery) => delivery.path === path;
const envelopeOf = (delivery: ReceivedDelivery) => JSON.parse(delivery.body) as Record<string, Loose>;

async function secondClient(): Promise<string> {
  const registry = new DynamoClientRegistry(
    createDocumentClient(createDynamoClient(bureau().runtime.env)),
    bureau().runtime.tables.clients as string,
  );
  const { client, secret } = await registry.create({ name: `Other ${Date.now()}` });
  return bureau().fetchToken({ clientId: client.clientId, clientSecret: secret });
}

describe('a change to a fetched company', () => {
  it('reaches the subscriber as a signed profile.changed webhook in the spec envelope, verified by the Standard Webhooks library', async () => {
    const subscription = await subscribe('/changed');
    const companyNumber = await watchedCompany();
    const changed = await applyDemoChange(store, 'GB', companyNumber, 'risk');

    const [delivery] = await receiver.waitFor(to('/changed'));
    const verified = new Webhook(subscription.signingSecret).verify(delivery?.body as string, delivery?.headers as Record<string, string>);

    expect(verified).toEqual({
      type: 'profile.changed',
      apiVersion: 'v1',
      occurredAt: changed.updatedAt,
      idempotencyKey: `profile.changed:GB:${companyNumber}:riskOfFailure:v2`,
      block: 'riskOfFailure',
      data: { jurisdiction: 'GB', companyNumber },
    });
    expect(Object.keys(envelopeOf(delivery as ReceivedDelivery))).toEqual([
      'type',
      'apiVersion',
      'occurredAt',
      'idempotencyKey',
      'block',
      'data',
    ]);
    expect(delivery?.headers['content-type']).toBe('application/json');
    expect(delivery?.headers['x-bureau-signature']).toBe(delivery?.headers['webhook-signature']);
    expect(delivery?.headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]{27}$/);

    // The receiver re-fetches and reads the block the event names.
    const profile = await api(`/v1/profile/${companyNumber}?jurisdiction=GB`);
    expect(profile.body?.riskOfFailure.level).toBe('Moderate');

    const log = await api(`/v1/webhooks/${subscription.id}/deliveries`);
    expect(log.body?.items[0]).toMatchObject({
      deliveryId: delivery?.headers['webhook-id'],
      outcome: 'delivered',
      httpStatus: 200,
      attempt: 1,
    });
  });

  it('sends one event per changed block, and early signals as detected then updated', async () => {
    await subscribe('/signals');
    const companyNumber = await watchedCompany();
    await applyDemoChange(store, 'GB', companyNumber, 'new-signal');
    const [detected] = await receiver.waitFor(to('/signals'));
    await applyDemoChange(store, 'GB', companyNumber, 'expire-signal');
    const both = await receiver.waitFor(to('/signals'), 2);

    const signalId = (await store.get('GB', companyNumber))?.earlySignals.signals[0]?.id;
    expect(envelopeOf(detected as ReceivedDelivery)).toMatchObject({
      type: 'profile.early_signal.detected',
      block: 'earlySignals',
      idempotencyKey: `early_signal:GB:${companyNumber}:${signalId}:active`,
    });
    expect(envelopeOf(both[1] as ReceivedDelivery)).toMatchObject({
      type: 'profile.early_signal.updated',
      block: 'earlySignals',
      idempotencyKey: `early_signal:GB:${companyNumber}:${signalId}:expired`,
    });
  });

  it('goes to every ACTIVE subscription of every client that fetched it, and to no one else', async () => {
    const otherToken = await secondClient();
    await subscribe('/mine-a');
    await subscribe('/mine-b');
    const disabled = await subscribe('/mine-disabled');
    expect((await api(`/v1/webhooks/${disabled.id}`, { method: 'PATCH', body: { status: 'DISABLED' } })).status).toBe(200);
    await subscribe('/theirs', otherToken);
    const onlyMine = await watchedCompany();
    const both = await watchedCompany();
    expect((await api(`/v1/profile/${both}?jurisdiction=GB`, { token: otherToken })).status).toBe(200);

    await applyDemoChange(store, 'GB', onlyMine, 'trading-status');
    await applyDemoChange(store, 'GB', both, 'trading-status');
    await receiver.waitFor((delivery) => delivery.path === '/theirs');
    await receiver.waitFor((delivery) => delivery.path === '/mine-a' || delivery.path === '/mine-b', 4);
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const companiesAt = (path: string) =>
      receiver.deliveries
        .filter(to(path))
        .map((delivery) => envelopeOf(delivery).data.companyNumber as string)
        .sort();
    expect(companiesAt('/mine-a')).toEqual([onlyMine, both].sort());
    expect(companiesAt('/mine-b')).toEqual([onlyMine, both].sort());
    expect(companiesAt('/theirs')).toEqual([both]);
    expect(companiesAt('/mine-disabled')).toEqual([]);
  });

  it('is not sent for a company nobody fetched', async () => {
    await subscribe('/unwatched');
    const companyNumber = String(++companies);
    await store.save(profileContent({ companyNumber, name: `Unwatched ${companyNumber} Ltd` }));
    await applyDemoChange(store, 'GB', companyNumber, 'risk');
    const watched = await watchedCompany();
    await applyDemoChange(store, 'GB', watched, 'risk');
    await receiver.waitFor((delivery) => delivery.path === '/unwatched' && envelopeOf(delivery).data.companyNumber === watched);
    expect(receiver.deliveries.filter(to('/unwatched')).map((delivery) => envelopeOf(delivery).data.companyNumber)).toEqual([watched]);
  });
});

describe('delivery', () => {
  it('retries a failed attempt with the same webhook-id until the receiver accepts it', async () => {
    const subscription = await subscribe('/flaky');
    receiver.respondWith((delivery) => ({
      status: delivery.path === '/flaky' && receiver.deliveries.filter(to('/flaky')).length < 3 ? 500 : 200,
    }));
    const companyNumber = await watchedCompany();
    await applyDemoChange(store, 'GB', companyNumber, 'risk');
    const attempts = await receiver.waitFor(to('/flaky'), 3, 15_000);
    receiver.respondWith(() => ({ status: 200 }));

    expect(new Set(attempts.map((delivery) => delivery.headers['webhook-id'])).size).toBe(1);
    await expect
      .poll(async () => (await api(`/v1/webhooks/${subscription.id}/deliveries`)).body?.items.map((item: Loose) => item.outcome))
      .toEqual(['delivered', 'failed', 'failed']);
    const log = (await api(`/v1/webhooks/${subscription.id}/deliveries`)).body?.items;
    expect(log[1]).toMatchObject({ httpStatus: 500, attempt: 2, nextAttemptAt: expect.any(String) });
    expect((await api(`/v1/webhooks/${subscription.id}`)).body?.failingSince).toBeNull();
  });

  it("shows in the log what the receiver answered: its status, the first 2 KiB of a 5 KiB body marked truncated, and the call's duration", async () => {
    const subscription = await subscribe('/refusing');
    const answer = `{"error":"validation_failed","detail":"${'the event type is not one we handle; '.repeat(150)}"}`.slice(0, 5 * 1024);
    expect(answer).toHaveLength(5 * 1024);
    receiver.respondWith((delivery) => (delivery.path === '/refusing' ? { status: 500, body: answer } : { status: 200 }));
    expect((await api(`/v1/webhooks/${subscription.id}/test`, { method: 'POST' })).status).toBe(202);
    await receiver.waitFor(to('/refusing'));

    // Newest first, and the compressed schedule retries each second: the first attempt is the last item.
    await expect
      .poll(async () => (await api(`/v1/webhooks/${subscription.id}/deliveries`)).body?.items.at(-1), { timeout: 10_000 })
      .toMatchObject({
        attempt: 1,
        outcome: 'failed',
        httpStatus: 500,
        responseBody: answer.slice(0, 2048),
        responseBodyTruncated: true,
        durationMs: expect.any(Number),
        error: null,
        nextAttemptAt: expect.any(String),
      });
  });

  it('keeps a delivery whose schedule is spent dead in the log, off the queue; recovering it delivers it under the same webhook-id', async () => {
    const subscription = await subscribe('/down');
    receiver.respondWith((delivery) => ({ status: delivery.path === '/down' ? 503 : 200 }));
    const companyNumber = await watchedCompany();
    const since = new Date(Date.now() - 1000).toISOString();
    await applyDemoChange(store, 'GB', companyNumber, 'risk');
    await receiver.waitFor(to('/down'), 12, 40_000);
    await expect
      .poll(async () => (await api(`/v1/webhooks/${subscription.id}/deliveries?limit=1`)).body?.items[0], { timeout: 5000 })
      .toMatchObject({ outcome: 'failed', attempt: 12, nextAttemptAt: null });
    const sqs = createSqsClient(bureau().runtime.env);
    const parked = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: bureau().runtime.queues['deliveries-dlq']?.queueUrl as string,
        AttributeNames: ['ApproximateNumberOfMessages'],
      }),
    );
    sqs.destroy();
    expect(parked.Attributes?.ApproximateNumberOfMessages).toBe('0');

    receiver.respondWith(() => ({ status: 200 }));
    const recovered = await api(`/v1/webhooks/${subscription.id}/recover`, { method: 'POST', body: { since } });
    expect(recovered.status).toBe(202);
    expect(recovered.body).toEqual({ since, queued: 1, nextCursor: null });
    const all = await receiver.waitFor(to('/down'), 13, 10_000);
    expect(new Set(all.map((delivery) => delivery.headers['webhook-id'])).size).toBe(1);
    await expect
      .poll(async () => (await api(`/v1/webhooks/${subscription.id}/deliveries?limit=1`)).body?.items[0])
      .toMatchObject({ outcome: 'delivered', attempt: 13 });
    const again = await api(`/v1/webhooks/${subscription.id}/recover`, { method: 'POST', body: { since } });
    expect(again.body).toMatchObject({ queued: 0 });
  }, 90_000);

  it('disables the subscription when the endpoint answers 410 Gone, and says why', async () => {
    const subscription = await subscribe('/gone');
    receiver.respondWith((delivery) => ({ status: delivery.path === '/gone' ? 410 : 200 }));
    const companyNumber = await watchedCompany();
    await applyDemoChange(store, 'GB', companyNumber, 'risk');
    await receiver.waitFor(to('/gone'));
    receiver.respondWith(() => ({ status: 200 }));

    await expect.poll(async () => (await api(`/v1/webhooks/${subscription.id}`)).body?.status).toBe('DISABLED');
    expect((await api(`/v1/webhooks/${subscription.id}`)).body?.disabledReason).toMatch(/410 Gone/);
    await applyDemoChange(store, 'GB', companyNumber, 'trading-status');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.deliveries.filter(to('/gone'))).toHaveLength(1);
  });

  it('signs with both secrets during the grace period after a rotation, each signature verifying on its own', async () => {
    const subscription = await subscribe('/rotated');
    const rotated = await api(`/v1/webhooks/${subscription.id}/rotate-secret`, { method: 'POST' });
    const companyNumber = await watchedCompany();
    await applyDemoChange(store, 'GB', companyNumber, 'risk');
    const [delivery] = (await receiver.waitFor(to('/rotated'))) as [ReceivedDelivery];
    const signatures = (delivery.headers['webhook-signature'] as string).split(' ');

    expect(signatures).toHaveLength(2);
    for (const [secret, signature] of [
      [rotated.body?.signingSecret, signatures[0]],
      [subscription.signingSecret, signatures[1]],
    ] as const) {
      const headers = { ...delivery.headers, 'webhook-signature': signature as string };
      expect(() => new Webhook(secret as string).verify(delivery.body, headers)).not.toThrow();
    }
  });

  it('a test event and a manual retry go through the same queue, signing and log', async () => {
    const subscription = await subscribe('/tested');
    const test = await api(`/v1/webhooks/${subscription.id}/test`, { method: 'POST' });
    expect(test.status).toBe(202);
    const [delivery] = await receiver.waitFor(to('/tested'));
    expect(
      new Webhook(subscription.signingSecret).verify(delivery?.body as string, delivery?.headers as Record<string, string>),
    ).toMatchObject({
      type: 'webhook.test',
    });
    // The log records an attempt once the receiver has answered: a retry names a logged delivery.
    await expect.poll(async () => (await api(`/v1/webhooks/${subscription.id}/deliveries`)).body?.items.length).toBe(1);
    const retried = await api(`/v1/webhooks/${subscription.id}/deliveries/${test.body?.deliveryId}/retry`, { method: 'POST' });
    expect(retried.status).toBe(202);
    const both = await receiver.waitFor(to('/tested'), 2);
    expect(both[1]?.headers['webhook-id']).toBe(test.body?.deliveryId);
    await expect
      .poll(async () => (await api(`/v1/webhooks/${subscription.id}/deliveries`)).body?.items.map((item: Loose) => item.attempt))
      .toEqual([2, 1]);
  });
});
