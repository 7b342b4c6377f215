import { randomUUID } from 'node:crypto';
import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqsClient, type LocalSqs, startLocalSqs } from '../../../local/fauxqs';
import { ensureQueue } from '../../../local/queues';
import { eventIdOf } from '../../../shared/events/client-events';
import { DynamoClientEventStore } from '../../../shared/events/dynamo-client-events';
import type { WebhookEnvelope } from '../../../shared/events/envelope';
import type { DeliveryMessage, FanoutTask } from '../../../shared/queues/queues';
import { JsonQueue } from '../../../shared/queues/sqs';
import { eventsTable, watchesTable, webhooksTable } from '../../../shared/storage/tables';
import { DynamoWatchStore } from '../../../shared/watches/dynamo-watch-store';
import { DynamoSubscriptionStore } from '../../../shared/webhooks/dynamo-subscription-store';
import { FanOut } from '../../../shared/webhooks/fan-out';
import type { SubscriptionFilters } from '../../../shared/webhooks/subscription-filters';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { subscriptionFixture } from '../../support/subscription-fixture';

const WATCHERS = 2345;
const PAGE = 1000;
let tables: TestTables;
let local: LocalSqs;
let sqs: SQSClient;
let fanOut: FanOut;
let events: DynamoClientEventStore;
let subscriptions: DynamoSubscriptionStore;
let taskQueueUrl: string;
let deliveryQueueUrl: string;
/** Every ACTIVE subscription, as `client/subscription`: exactly the deliveries one event must make. */
const expected = new Set<string>();

const event: WebhookEnvelope = {
  type: 'profile.changed',
  apiVersion: 'v1',
  // Now: an event older than its 30 days would leave the events table at once (TTL).
  occurredAt: new Date().toISOString(),
  idempotencyKey: 'profile.changed:GB:12345678:riskOfFailure:v9',
  block: 'riskOfFailure',
  data: { jurisdiction: 'GB', companyNumber: '12345678' },
};

async function subscribe(clientId: string, status: 'ACTIVE' | 'DISABLED' = 'ACTIVE'): Promise<void> {
  const created = await subscriptionFixture({ clientId, url: 'https://hooks.example.com/' });
  const { id } = created;
  const at = created.createdAt;
  await subscriptions.create(created);
  if (status === 'DISABLED') await subscriptions.update(clientId, id, { status }, at);
  else expected.add(`${clientId}/${id}`);
}

async function drain(queueUrl: string): Promise<Message[]> {
  const all: Message[] = [];
  for (let empty = 0; empty < 2; ) {
    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    const messages = received.Messages ?? [];
    if (messages.length === 0) {
      empty += 1;
      continue;
    }
    all.push(...messages);
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
      }),
    );
  }
  return all;
}

beforeAll(async () => {
  tables = await createTestTables([watchesTable, webhooksTable, eventsTable]);
  events = new DynamoClientEventStore(tables.doc, tables.names.events as string);
  local = await startLocalSqs();
  sqs = createSqsClient(local.endpoint);
  const suffix = randomUUID().slice(0, 8);
  taskQueueUrl = (await ensureQueue(sqs, { name: `fanout-${suffix}`, visibilityTimeoutSeconds: 30 })).queueUrl;
  deliveryQueueUrl = (await ensureQueue(sqs, { name: `deliveries-${suffix}`, visibilityTimeoutSeconds: 30 })).queueUrl;
  subscriptions = new DynamoSubscriptionStore(tables.doc, tables.names.webhooks as string);
  fanOut = new FanOut({
    watchers: new DynamoWatchStore(tables.doc, tables.names.watches as string),
    subscriptions,
    deliveries: new JsonQueue<DeliveryMessage>(sqs, deliveryQueueUrl),
    tasks: new JsonQueue<FanoutTask>(sqs, taskQueueUrl),
    events,
    pageSize: PAGE,
  });

  const clientIds = Array.from({ length: WATCHERS }, (_, index) => `client-${String(index).padStart(5, '0')}`);
  for (let start = 0; start < clientIds.length; start += 25) {
    await tables.doc.send(
      new BatchWriteCommand({
        RequestItems: {
          [tables.names.watches as string]: clientIds.slice(start, start + 25).map((clientId) => ({
            PutRequest: { Item: { pk: 'GB#12345678', sk: clientId, createdAt: event.occurredAt, lastFetchedAt: event.occurredAt } },
          })),
        },
      }),
    );
  }
  // Every seventh watcher has an endpoint, a few two, one only a disabled one; a client watching
  // something else entirely has one too and must get nothing.
  for (const [index, clientId] of clientIds.entries()) if (index % 7 === 0) await subscribe(clientId);
  await subscribe('client-00000');
  await subscribe('client-02344');
  await subscribe('client-00001', 'DISABLED');
  const bystander = 'client-bystander';
  await subscribe(bystander);
  expected.delete([...expected].find((key) => key.startsWith(`${bystander}/`)) as string);
}, 120_000);

afterAll(async () => {
  sqs?.destroy();
  await local?.stop();
});

describe('fanning out one change', () => {
  it('covers every ACTIVE subscription of every watcher once, a bounded page per step, continuing through the queue', async () => {
    const steps = [await fanOut.run({ event })];
    for (let tasks = await drain(taskQueueUrl); tasks.length > 0; tasks = await drain(taskQueueUrl)) {
      for (const task of tasks) steps.push(await fanOut.run(JSON.parse(task.Body as string) as FanoutTask));
    }
    const deliveries = (await drain(deliveryQueueUrl)).map((message) => JSON.parse(message.Body as string) as DeliveryMessage);

    expect(steps.map((step) => step.watchers)).toEqual([1000, 1000, 345]);
    expect(steps.map((step) => step.continued)).toEqual([true, true, false]);
    expect(deliveries).toHaveLength(expected.size);
    expect(new Set(deliveries.map((delivery) => `${delivery.clientId}/${delivery.subscriptionId}`))).toEqual(expected);
    expect(new Set(deliveries.map((delivery) => delivery.deliveryId)).size).toBe(expected.size);
    for (const delivery of deliveries) expect(delivery.envelope).toEqual(event);
    // Every watcher can read the event back, endpoint or not; the bystander cannot.
    const since = new Date(Date.parse(event.occurredAt) - 1000);
    for (const clientId of ['client-00003', 'client-00007', 'client-02344']) {
      expect((await events.list(clientId, { limit: 10, since })).items).toEqual([{ id: eventIdOf(event.idempotencyKey), ...event }]);
    }
    expect((await events.list('client-bystander', { limit: 10, since })).items).toEqual([]);
  }, 60_000);

  it('queues nothing for a subscription whose filters leave the event out, and follows a change of filters', async () => {
    const clientId = 'client-filtering';
    const other: WebhookEnvelope = {
      ...event,
      idempotencyKey: 'profile.changed:GB:87654321:overview:v3',
      block: 'overview',
      data: { jurisdiction: 'GB', companyNumber: '87654321' },
    };
    await tables.doc.send(
      new PutCommand({
        TableName: tables.names.watches as string,
        Item: { pk: 'GB#87654321', sk: clientId, createdAt: other.occurredAt, lastFetchedAt: other.occurredAt },
      }),
    );
    const make = async (filters?: SubscriptionFilters) => {
      const created = { ...(await subscriptionFixture({ clientId, url: 'https://hooks.example.com/' })), ...(filters ? { filters } : {}) };
      await subscriptions.create(created);
      return created;
    };
    const all = await make();
    const signalsOnly = await make({ eventTypes: ['profile.early_signal.detected'] });
    const thisCompany = await make({ companies: ['GB:87654321'], blocks: ['overview'] });
    const irishOnly = await make({ jurisdictions: ['IE'] });
    const received = async () => {
      await fanOut.run({ event: other });
      return new Set(
        (await drain(deliveryQueueUrl)).map((message) => (JSON.parse(message.Body as string) as DeliveryMessage).subscriptionId),
      );
    };

    expect(await received()).toEqual(new Set([all.id, thisCompany.id]));
    await subscriptions.update(clientId, signalsOnly.id, { filters: null }, other.occurredAt);
    await subscriptions.update(clientId, thisCompany.id, { filters: { blocks: ['riskOfFailure'] } }, other.occurredAt);
    expect(await received()).toEqual(new Set([all.id, signalsOnly.id]));
    expect((await subscriptions.get(clientId, thisCompany.id))?.filters).toEqual({ blocks: ['riskOfFailure'] });
    expect((await subscriptions.get(clientId, signalsOnly.id))?.filters).toBeUndefined();
    await subscriptions.delete(clientId, irishOnly.id);
    expect((await subscriptions.activeSubscriptions([clientId])).get(clientId)?.map((active) => active.id)).not.toContain(irishOnly.id);
  });

  it('queues the same delivery ids when a step runs twice, so the sender can tell a repeat', async () => {
    await fanOut.run({ event });
    await fanOut.run({ event });
    await drain(taskQueueUrl);
    const ids = (await drain(deliveryQueueUrl)).map((message) => (JSON.parse(message.Body as string) as DeliveryMessage).deliveryId);
    const once = new Set(ids);
    expect(ids.length).toBe(2 * once.size);
  }, 60_000);

  it('follows status changes: a disabled subscription leaves the active set, re-enabled it returns', async () => {
    const [key] = [...expected];
    const [clientId, id] = (key as string).split('/') as [string, string];
    await subscriptions.update(clientId, id, { status: 'DISABLED', disabledReason: 'test' }, new Date().toISOString());
    expect((await subscriptions.activeSubscriptions([clientId])).get(clientId)?.map((active) => active.id) ?? []).not.toContain(id);
    const enabled = await subscriptions.update(clientId, id, { status: 'ACTIVE' }, new Date().toISOString());
    expect((await subscriptions.activeSubscriptions([clientId])).get(clientId)?.map((active) => active.id)).toContain(id);
    expect(enabled.disabledReason).toBeUndefined();
    await subscriptions.delete(clientId, id);
    expect((await subscriptions.activeSubscriptions([clientId])).get(clientId)?.map((active) => active.id) ?? []).not.toContain(id);
  });

  it('brings subscriptions written before the active sets existed into them, once re-indexed', async () => {
    const legacy = await subscriptionFixture({ clientId: 'client-legacy', url: 'https://hooks.example.com/' });
    const paused = { ...(await subscriptionFixture({ clientId: 'client-legacy', url: 'https://hooks.example.com/' })), status: 'DISABLED' };
    for (const item of [legacy, paused]) {
      await tables.doc.send(
        new PutCommand({
          TableName: tables.names.webhooks as string,
          Item: { pk: `CLIENT#${item.clientId}`, sk: `WEBHOOK#${item.id}`, ...item },
        }),
      );
    }
    expect((await subscriptions.activeSubscriptions(['client-legacy'])).get('client-legacy')?.map((active) => active.id)).toBeUndefined();

    const result = await subscriptions.rebuildActiveSets();
    await subscriptions.rebuildActiveSets();

    // The disabled ones: client-00001's from the set-up and the legacy one paused.
    expect(result.seen - result.active).toBe(2);
    expect((await subscriptions.activeSubscriptions(['client-legacy'])).get('client-legacy')?.map((active) => active.id)).toEqual([
      legacy.id,
    ]);
  });
});
