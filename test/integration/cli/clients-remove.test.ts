import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Target, TargetFactory } from '../../../cli/context';
import { run } from '../../../cli/main';
import { DynamoClientRegistry } from '../../../shared/auth/dynamo-client-registry';
import { DynamoClientEventStore } from '../../../shared/events/dynamo-client-events';
import { clientsTable, deliveriesTable, eventsTable, watchesTable, webhooksTable } from '../../../shared/storage/tables';
import { DynamoWatchStore } from '../../../shared/watches/dynamo-watch-store';
import { DynamoDeliveryLog } from '../../../shared/webhooks/dynamo-delivery-log';
import { DynamoSubscriptionStore } from '../../../shared/webhooks/dynamo-subscription-store';
import { Subscriptions } from '../../../shared/webhooks/subscriptions';
import { fixtureEnvelope, pendingAfter } from '../../support/delivery-fixture';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { testSealer } from '../../support/sealer';

const sealer = testSealer();

let tables: TestTables;
let registry: DynamoClientRegistry;
let store: DynamoSubscriptionStore;
let watches: DynamoWatchStore;
beforeAll(async () => {
  tables = await createTestTables([clientsTable, webhooksTable, watchesTable, deliveriesTable, eventsTable]);
  registry = new DynamoClientRegistry(tables.doc, tables.names.clients as string);
  store = new DynamoSubscriptionStore(tables.doc, tables.names.webhooks as string);
  watches = new DynamoWatchStore(tables.doc, tables.names.watches as string);
});

const target: TargetFactory = async () =>
  ({
    doc: tables.doc,
    tables: {
      clients: tables.names.clients as string,
      companies: 'unused',
      watches: tables.names.watches as string,
      webhooks: tables.names.webhooks as string,
      deliveries: tables.names.deliveries as string,
      events: tables.names.events as string,
      workspace: 'unused',
    },
    sealer,
    loopbackReceivers: false,
    description: 'the test deployment',
    close: async () => {},
  }) satisfies Target;

async function bureau(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, { io: { out: (line) => out.push(line), err: (line) => err.push(line) }, resolveTarget: target, env: {} });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

let nextCompany = 20_000_000;
async function clientWithData(subscriptionCount: number, watchCount: number): Promise<string> {
  const { clientId } = (await registry.create({ name: 'Leaving Ltd' })).client;
  const subscriptions = new Subscriptions({ store, resolve: async () => ['93.184.215.14'], clock: () => new Date(), sealer });
  for (let i = 0; i < subscriptionCount; i++)
    await subscriptions.register(clientId, { name: `Hook ${i}`, url: `https://hooks.example.com/${i}` });
  for (let i = 0; i < watchCount; i++) await watches.recordWatch(clientId, 'GB', String(nextCompany++), new Date().toISOString());
  return clientId;
}

describe('bureau clients remove', () => {
  it('asks for --yes before deleting anything', async () => {
    const clientId = await clientWithData(1, 1);

    const refused = await bureau('clients', 'remove', clientId);

    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/--yes/);
    expect(await registry.get(clientId)).toBeDefined();
  });

  it('deletes the client with its subscriptions and watches, so fan-out no longer finds it', async () => {
    const first = nextCompany;
    const clientId = await clientWithData(3, 130);
    const stays = await clientWithData(1, 1);
    await watches.recordWatch(stays, 'GB', String(first), new Date().toISOString());

    const removed = await bureau('clients', 'remove', clientId, '--yes', '--json');

    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toEqual({
      clientId,
      subscriptionsRemoved: 3,
      watchesRemoved: 130,
      deliveryLogItemsRemoved: 0,
      eventsRemoved: 0,
    });
    expect(await registry.get(clientId)).toBeUndefined();
    expect((await store.list(clientId, { limit: 10 })).items).toEqual([]);
    expect((await store.activeSubscriptions([clientId])).get(clientId)?.map((active) => active.id) ?? []).toEqual([]);
    expect((await watches.watchers('GB', String(first), { limit: 10 })).clientIds).toEqual([stays]);
    expect(await registry.get(stays)).toBeDefined();
  });

  it('finishes a removal that stopped half way when run again', async () => {
    const clientId = await clientWithData(0, 2);
    await registry.remove(clientId);

    const again = await bureau('clients', 'remove', clientId, '--yes');

    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/finishing any removal left half done/);
    expect((await watches.listWatches(clientId, { limit: 10 })).items).toEqual([]);
  });

  it("deletes the client's events and the delivery log of its subscriptions, and says how many", async () => {
    const clientId = await clientWithData(2, 1);
    const stays = await clientWithData(1, 1);
    const leaving = (await store.list(clientId, { limit: 10 })).items.map((subscription) => subscription.id);
    const staying = (await store.list(stays, { limit: 10 })).items.map((subscription) => subscription.id);
    const deliveryCount = 30;
    for (const [owner, subscriptionIds] of [
      [clientId, leaving],
      [stays, staying],
    ] as const) {
      for (const subscriptionId of subscriptionIds) await logDeliveries(owner, subscriptionId, deliveryCount);
    }
    const events = new DynamoClientEventStore(tables.doc, tables.names.events as string);
    for (let i = 0; i < 120; i++) await events.recordFor([clientId, stays], eventNumber(i));

    const removed = await bureau('clients', 'remove', clientId, '--yes', '--json');

    expect(removed.code).toBe(0);
    // Each delivery is its record and one attempt; one in three died and has its entry among the dead.
    const logItemsPerSubscription = 2 * deliveryCount + deliveryCount / 3;
    expect(JSON.parse(removed.stdout)).toMatchObject({ eventsRemoved: 120, deliveryLogItemsRemoved: 2 * logItemsPerSubscription });
    expect(await itemsIn('events', `CLIENT#${clientId}`)).toBe(0);
    for (const subscriptionId of leaving) expect(await itemsIn('deliveries', `WEBHOOK#${subscriptionId}`)).toBe(0);
    expect(await itemsIn('events', `CLIENT#${stays}`)).toBe(120);
    expect(await itemsIn('deliveries', `WEBHOOK#${staying[0]}`)).toBe(logItemsPerSubscription);
  });

  it('says what it removed', async () => {
    const clientId = await clientWithData(1, 2);
    const [subscription] = (await store.list(clientId, { limit: 10 })).items;
    await logDeliveries(clientId, subscription?.id ?? '', 3);
    await new DynamoClientEventStore(tables.doc, tables.names.events as string).recordFor([clientId], eventNumber(0));

    const removed = await bureau('clients', 'remove', clientId, '--yes');

    expect(removed.stdout).toBe(`Removed client ${clientId}: 1 webhook subscription, 2 watches, 1 event and 7 delivery log items deleted.`);
  });
});

let nextDelivery = 0;
/** Deliveries as the sender logs them, one in three dead (failed), so kept for recovery too. */
async function logDeliveries(clientId: string, subscriptionId: string, count: number): Promise<void> {
  const log = new DynamoDeliveryLog(tables.doc, tables.names.deliveries as string);
  const now = new Date();
  for (let i = 0; i < count; i++) {
    const deliveryId = `msg_${String(nextDelivery++).padStart(27, '0')}`;
    const dead = i % 3 === 0;
    const delivery = pendingAfter(1, {
      deliveryId,
      clientId,
      subscriptionId,
      lastAttemptAt: now.toISOString(),
      ...(dead ? { status: 'failed' as const, nextAttemptAt: undefined } : {}),
    });
    await log.recordMany([
      {
        delivery,
        attempt: {
          deliveryId,
          eventType: fixtureEnvelope.type,
          idempotencyKey: fixtureEnvelope.idempotencyKey,
          attempt: 1,
          attemptedAt: now.toISOString(),
          outcome: dead ? 'failed' : 'delivered',
          httpStatus: dead ? 500 : 200,
          durationMs: 12,
        },
      },
    ]);
  }
}

const eventNumber = (i: number) => ({
  ...fixtureEnvelope,
  occurredAt: new Date(Date.now() - i * 1000).toISOString(),
  idempotencyKey: `profile.changed:GB:00000001:overview:v${i}`,
});

async function itemsIn(table: 'events' | 'deliveries', pk: string): Promise<number> {
  const result = await tables.doc.send(
    new QueryCommand({
      TableName: tables.names[table] as string,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      Select: 'COUNT',
      ConsistentRead: true,
    }),
  );
  return result.Count ?? 0;
}
