import { beforeAll, describe, expect, it } from 'vitest';
import type { Target, TargetFactory } from '../../../cli/context';
import { run } from '../../../cli/main';
import { DynamoClientRegistry } from '../../../shared/auth/dynamo-client-registry';
import { clientsTable, watchesTable, webhooksTable } from '../../../shared/storage/tables';
import { DynamoWatchStore } from '../../../shared/watches/dynamo-watch-store';
import { DynamoSubscriptionStore } from '../../../shared/webhooks/dynamo-subscription-store';
import { Subscriptions } from '../../../shared/webhooks/subscriptions';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { testSealer } from '../../support/sealer';

const sealer = testSealer();

let tables: TestTables;
let registry: DynamoClientRegistry;
let store: DynamoSubscriptionStore;
let watches: DynamoWatchStore;
beforeAll(async () => {
  tables = await createTestTables([clientsTable, webhooksTable, watchesTable]);
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
      deliveries: 'unused',
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
    expect(JSON.parse(removed.stdout)).toEqual({ clientId, subscriptionsRemoved: 3, watchesRemoved: 130 });
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
});
