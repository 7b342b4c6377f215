import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient, createDynamoClient } from '../../../shared/storage/dynamo';
import { deliveriesTable, webhooksTable } from '../../../shared/storage/tables';
import { applyHealthChanges } from '../../../shared/webhooks/delivery-settlement';
import { DynamoDeliveryLog } from '../../../shared/webhooks/dynamo-delivery-log';
import { DynamoSubscriptionStore } from '../../../shared/webhooks/dynamo-subscription-store';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { subscriptionFixture } from '../../support/subscription-fixture';

let tables: TestTables;
let store: DynamoSubscriptionStore;

beforeAll(async () => {
  tables = await createTestTables([webhooksTable, deliveriesTable]);
  store = new DynamoSubscriptionStore(tables.doc, tables.names.webhooks as string);
});

const inFanOut = async (clientId: string, id: string) =>
  ((await store.activeSubscriptions([clientId])).get(clientId) ?? []).some((active) => active.id === id);

/**
 * A store whose first write that takes an id out of a client's active set waits, once it is due to
 * go out, until `release` is called: another change can be made in the gap a separate write leaves.
 */
function storePausedBeforeLeavingTheActiveSet() {
  const client = createDynamoClient(tables.env);
  let reached: () => void = () => {};
  const paused = new Promise<void>((resolve) => {
    reached = resolve;
  });
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let done = false;
  client.middlewareStack.add(
    (next) => async (args) => {
      const expression = (args.input as { UpdateExpression?: string }).UpdateExpression ?? '';
      if (!done && expression.includes('DELETE activeIds')) {
        done = true;
        reached();
        await released;
      }
      return next(args);
    },
    { step: 'initialize', name: 'pauseBeforeLeavingTheActiveSet' },
  );
  return { store: new DynamoSubscriptionStore(createDocumentClient(client), tables.names.webhooks as string), paused, release };
}

describe("a subscription's status and the fan-out's active set", () => {
  it('agree when the client enables it while disabling it is under way', async () => {
    const subscription = await subscriptionFixture({ clientId: 'client-toggle', url: 'https://hooks.example.com/in' });
    await store.create(subscription);
    const slow = storePausedBeforeLeavingTheActiveSet();

    const disabling = slow.store.update(subscription.clientId, subscription.id, { status: 'DISABLED' }, new Date().toISOString());
    // Either the disable stops between its writes, or it is one write and is over before the enable begins.
    await Promise.race([slow.paused, disabling]);
    await store.update(subscription.clientId, subscription.id, { status: 'ACTIVE' }, new Date().toISOString());
    slow.release();
    await disabling;

    expect((await store.get(subscription.clientId, subscription.id))?.status).toBe('ACTIVE');
    expect(await inFanOut(subscription.clientId, subscription.id)).toBe(true);
  });

  it("is never disabled by the sender on what it read before the client's change", async () => {
    const failingSince = new Date(Date.now() - 6 * 24 * 3600_000).toISOString();
    const subscription = await subscriptionFixture({ clientId: 'client-reenabled', url: 'https://hooks.example.com/in' });
    await store.create(subscription);
    await store.markFailing(subscription.clientId, subscription.id, failingSince);
    // What the sender read for its batch, before its POSTs.
    const seen = await store.get(subscription.clientId, subscription.id);
    if (!seen) throw new Error('the subscription was not stored');
    // The client sets it ACTIVE again (the endpoint is mended): failingSince is cleared.
    await store.update(subscription.clientId, subscription.id, { status: 'ACTIVE' }, new Date(Date.now() + 1).toISOString());

    await applyHealthChanges(
      { subscriptions: store, log: new DynamoDeliveryLog(tables.doc, tables.names.deliveries as string) },
      [],
      [{ kind: 'disable', subscription: seen, reason: `No delivery succeeded since ${failingSince} (6 days).`, cutShort: [] }],
      new Date(),
    );

    const now = await store.get(subscription.clientId, subscription.id);
    expect(now?.status).toBe('ACTIVE');
    expect(now?.failingSince).toBeUndefined();
    expect(await inFanOut(subscription.clientId, subscription.id)).toBe(true);
  });

  it("disables it for the sender, in the fan-out's set too, when nothing changed since the sender read it", async () => {
    const subscription = await subscriptionFixture({ clientId: 'client-gone', url: 'https://hooks.example.com/in' });
    await store.create(subscription);
    const seen = await store.get(subscription.clientId, subscription.id);
    if (!seen) throw new Error('the subscription was not stored');

    await applyHealthChanges(
      { subscriptions: store, log: new DynamoDeliveryLog(tables.doc, tables.names.deliveries as string) },
      [],
      [{ kind: 'disable', subscription: seen, reason: 'The endpoint answered 410 Gone.', cutShort: [] }],
      new Date(),
    );

    expect(await store.get(subscription.clientId, subscription.id)).toMatchObject({
      status: 'DISABLED',
      disabledReason: 'The endpoint answered 410 Gone.',
    });
    expect(await inFanOut(subscription.clientId, subscription.id)).toBe(false);
  });
});
