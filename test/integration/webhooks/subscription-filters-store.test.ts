import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient, createDynamoClient } from '../../../shared/storage/dynamo';
import { webhooksTable } from '../../../shared/storage/tables';
import { DynamoSubscriptionStore } from '../../../shared/webhooks/dynamo-subscription-store';
import { generateSubscriptionId, SubscriptionNotFoundError } from '../../../shared/webhooks/subscription';
import type { SubscriptionFilters } from '../../../shared/webhooks/subscription-filters';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { subscriptionFixture } from '../../support/subscription-fixture';

let tables: TestTables;
let store: DynamoSubscriptionStore;

beforeAll(async () => {
  tables = await createTestTables([webhooksTable]);
  store = new DynamoSubscriptionStore(tables.doc, tables.names.webhooks as string);
});

/** The filters the fan-out would apply to the subscription. */
const fanOutFilters = async (clientId: string, id: string) =>
  (await store.activeSubscriptions([clientId])).get(clientId)?.find((active) => active.id === id)?.filters;

const summaryOf = async (clientId: string) =>
  (
    await tables.doc.send(
      new GetCommand({ TableName: tables.names.webhooks as string, Key: { pk: `CLIENT#${clientId}`, sk: 'COUNT' }, ConsistentRead: true }),
    )
  ).Item ?? {};

/**
 * A client whose next transactions are refused as DynamoDB refuses one that meets another on an item
 * (DynamoDB Local runs them one at a time, so never does).
 */
function collidingStore() {
  const client = createDynamoClient(tables.env);
  let collisions = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand' || collisions === 0) return next(args);
      collisions--;
      throw new TransactionCanceledException({
        message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]',
        $metadata: {},
        CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }],
      });
    },
    { step: 'initialize', name: 'collide' },
  );
  return {
    store: new DynamoSubscriptionStore(createDocumentClient(client), tables.names.webhooks as string),
    collideNext: (times: number) => {
      collisions = times;
    },
  };
}

describe("a subscription's filters and the fan-out's copy of them", () => {
  it('agree after changes made at the same moment, whichever wins', async () => {
    const clientId = 'client-racing';
    const subscription = await subscriptionFixture({ clientId, url: 'https://hooks.example.com/' });
    await store.create(subscription);
    const choices: SubscriptionFilters[] = [
      { blocks: ['overview'] },
      { blocks: ['riskOfFailure'] },
      { eventTypes: ['profile.changed'] },
      { jurisdictions: ['IE'] },
    ];
    for (let round = 0; round < 15; round++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, round)).toISOString();
      await Promise.all(choices.map((filters) => store.update(clientId, subscription.id, { filters }, at)));
      const shown = (await store.get(clientId, subscription.id))?.filters;
      expect(choices, `round ${round}`).toContainEqual(shown);
      expect(await fanOutFilters(clientId, subscription.id), `round ${round}`).toEqual(shown);
    }
  }, 60_000);

  it('change with the status in one write: re-enabled with new filters, the fan-out sees both', async () => {
    const clientId = 'client-reenabled';
    const subscription = await subscriptionFixture({ clientId, url: 'https://hooks.example.com/' });
    await store.create(subscription);
    await store.update(clientId, subscription.id, { status: 'DISABLED', disabledReason: 'gone' }, '2026-01-01T00:00:01.000Z');
    expect(await fanOutFilters(clientId, subscription.id)).toBeUndefined();

    const updated = await store.update(
      clientId,
      subscription.id,
      { status: 'ACTIVE', filters: { jurisdictions: ['GB'] } },
      '2026-01-01T00:00:02.000Z',
    );
    expect(updated).toMatchObject({ status: 'ACTIVE', filters: { jurisdictions: ['GB'] }, updatedAt: '2026-01-01T00:00:02.000Z' });
    expect(updated.disabledReason).toBeUndefined();
    expect(await store.activeSubscriptions([clientId])).toEqual(
      new Map([[clientId, [{ id: subscription.id, filters: { jurisdictions: ['GB'] } }]]]),
    );

    const disabled = await store.update(clientId, subscription.id, { status: 'DISABLED', filters: null }, '2026-01-01T00:00:03.000Z');
    expect(disabled.filters).toBeUndefined();
    expect(await store.activeSubscriptions([clientId])).toEqual(new Map());
    expect(Object.keys(await summaryOf(clientId)).filter((name) => name.startsWith('filters_'))).toEqual([]);
  });

  it('leave nothing behind for a subscription that does not exist', async () => {
    const clientId = 'client-missing';
    await store.create(await subscriptionFixture({ clientId, url: 'https://hooks.example.com/' }));
    const missing = generateSubscriptionId();
    for (const changes of [
      { filters: { blocks: ['overview' as const] } },
      { status: 'ACTIVE' as const, filters: { jurisdictions: ['IE' as const] } },
    ]) {
      await expect(store.update(clientId, missing, changes, '2026-01-01T00:00:00.000Z')).rejects.toThrow(SubscriptionNotFoundError);
      const summary = await summaryOf(clientId);
      expect(summary[`filters_${missing}`]).toBeUndefined();
      expect([...(summary.activeIds as Set<string>)]).not.toContain(missing);
    }
  });

  it('let subscriptions be created, changed and deleted at once on one client without an error', async () => {
    const clientId = 'client-busy';
    const kept = await subscriptionFixture({ clientId, url: 'https://hooks.example.com/' });
    await store.create(kept);
    const others = await Promise.all(Array.from({ length: 6 }, () => subscriptionFixture({ clientId, url: 'https://hooks.example.com/' })));
    await Promise.all([
      ...others.map((other) => store.create(other)),
      ...['overview', 'riskOfFailure', 'earlySignals'].map((block, n) =>
        store.update(clientId, kept.id, { filters: { blocks: [block as 'overview'] } }, `2026-01-01T00:00:0${n}.000Z`),
      ),
    ]);
    await Promise.all([
      ...others.map((other) => store.delete(clientId, other.id)),
      store.update(clientId, kept.id, { filters: null }, '2026-01-01T00:00:09.000Z'),
    ]);
    expect(await store.activeSubscriptions([clientId])).toEqual(new Map([[clientId, [{ id: kept.id }]]]));
    expect((await summaryOf(clientId)).subscriptions).toBe(1);
  }, 30_000);

  it('are written again after colliding with another change of the same client, and the collision is reported when it persists', async () => {
    const clientId = 'client-colliding';
    const { store: colliding, collideNext } = collidingStore();
    const subscription = await subscriptionFixture({ clientId, url: 'https://hooks.example.com/' });
    collideNext(2);
    await colliding.create(subscription);
    collideNext(2);
    const updated = await colliding.update(clientId, subscription.id, { filters: { blocks: ['overview'] } }, '2026-01-01T00:00:01.000Z');
    expect(updated.filters).toEqual({ blocks: ['overview'] });
    expect(await fanOutFilters(clientId, subscription.id)).toEqual({ blocks: ['overview'] });

    collideNext(100);
    await expect(colliding.update(clientId, subscription.id, { filters: null }, '2026-01-01T00:00:02.000Z')).rejects.toThrow(
      TransactionCanceledException,
    );
    collideNext(1);
    await colliding.delete(clientId, subscription.id);
    expect(await store.activeSubscriptions([clientId])).toEqual(new Map());
  });
});
