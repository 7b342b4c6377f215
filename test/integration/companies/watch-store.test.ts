import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { watchesTable } from '../../../shared/storage/tables';
import { DynamoWatchStore } from '../../../shared/watches/dynamo-watch-store';
import { InvalidWatchCursorError } from '../../../shared/watches/watch-store';
import { createTestTables, type TestTables } from '../../support/dynamo';

let tables: TestTables;
let watches: DynamoWatchStore;

beforeAll(async () => {
  tables = await createTestTables([watchesTable]);
  watches = new DynamoWatchStore(tables.doc, tables.names.watches as string);
});

const rawWatch = async (clientId: string, pk: string) =>
  (await tables.doc.send(new GetCommand({ TableName: tables.names.watches, Key: { pk, sk: clientId } }))).Item;

describe('DynamoWatchStore', () => {
  it('records a watch once: the first fetch sets watchedSince, later fetches only move lastFetchedAt', async () => {
    const first = await watches.recordWatch('client-a', 'GB', '15380840', '2024-03-01T10:00:00.000Z');
    const second = await watches.recordWatch('client-a', 'GB', '15380840', '2024-03-05T09:00:00.000Z');

    const page = await watches.listWatches('client-a', { limit: 10 });

    expect(first).toEqual({ created: true });
    expect(second).toEqual({ created: false, previousFetchedAt: '2024-03-01T10:00:00.000Z' });
    expect(page).toEqual({
      items: [
        {
          jurisdiction: 'GB',
          companyNumber: '15380840',
          watchedSince: '2024-03-01T10:00:00.000Z',
          lastFetchedAt: '2024-03-05T09:00:00.000Z',
        },
      ],
    });
  });

  it("lists one client's watches page by page, without another client's", async () => {
    const numbers = Array.from({ length: 7 }, (_, i) => String(10_000_000 + i));
    for (const number of numbers) await watches.recordWatch('client-b', 'GB', number, '2024-03-01T10:00:00.000Z');
    await watches.recordWatch('client-b', 'IE', '123456', '2024-03-01T10:00:00.000Z');
    await watches.recordWatch('client-c', 'GB', '10000003', '2024-03-01T10:00:00.000Z');

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await watches.listWatches('client-b', { limit: 3, cursor });
      seen.push(...page.items.map((watch) => `${watch.jurisdiction}#${watch.companyNumber}`));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 10);

    expect(seen).toEqual([...numbers.map((number) => `GB#${number}`), 'IE#123456']);
    expect(pages).toBe(3);
  });

  it('forgets a watch that this fetch created', async () => {
    const at = '2024-03-01T10:00:00.000Z';
    await watches.recordWatch('client-d', 'GB', '00000001', at);

    await watches.forgetNewWatch('client-d', 'GB', '00000001', at);

    expect(await rawWatch('client-d', 'GB#00000001')).toBeUndefined();
  });

  it('keeps a watch that an earlier fetch created, or that a later fetch touched', async () => {
    await watches.recordWatch('client-e', 'GB', '00000002', '2024-03-01T10:00:00.000Z');
    await watches.recordWatch('client-e', 'GB', '00000002', '2024-03-02T10:00:00.000Z');
    await watches.recordWatch('client-e', 'GB', '00000003', '2024-03-02T10:00:00.000Z');
    await watches.recordWatch('client-e', 'GB', '00000003', '2024-03-02T10:00:00.001Z');

    await watches.forgetNewWatch('client-e', 'GB', '00000002', '2024-03-02T10:00:00.000Z');
    await watches.forgetNewWatch('client-e', 'GB', '00000003', '2024-03-02T10:00:00.000Z');

    expect(await rawWatch('client-e', 'GB#00000002')).toBeDefined();
    expect(await rawWatch('client-e', 'GB#00000003')).toBeDefined();
  });

  it('writes nothing for a fetch within the hour of the last recorded one, and moves lastFetchedAt for one after it', async () => {
    const created = '2024-03-01T10:00:00.000Z';
    await watches.recordWatch('client-f', 'GB', '00000004', created);
    const indexCopy = async () => (await watches.listWatches('client-f', { limit: 1 })).items[0]?.lastFetchedAt;

    const within = await watches.recordWatch('client-f', 'GB', '00000004', '2024-03-01T10:59:59.999Z');
    const afterWithin = await rawWatch('client-f', 'GB#00000004');
    const later = await watches.recordWatch('client-f', 'GB', '00000004', '2024-03-01T11:00:00.000Z');

    expect(within).toEqual({ created: false });
    expect(afterWithin).toEqual({ pk: 'GB#00000004', sk: 'client-f', createdAt: created, lastFetchedAt: created });
    expect(later).toEqual({ created: false, previousFetchedAt: created });
    expect(await rawWatch('client-f', 'GB#00000004')).toMatchObject({ createdAt: created, lastFetchedAt: '2024-03-01T11:00:00.000Z' });
    expect(await indexCopy()).toBe('2024-03-01T11:00:00.000Z');
  });

  it('stamps a watch under a minute old on every fetch, so the fetch that created it cannot undo it under a concurrent one', async () => {
    const created = '2024-03-01T10:00:00.000Z';
    await watches.recordWatch('client-g', 'GB', '00000005', created);
    const concurrent = await watches.recordWatch('client-g', 'GB', '00000005', '2024-03-01T10:00:59.000Z');

    await watches.forgetNewWatch('client-g', 'GB', '00000005', created);

    expect(concurrent).toEqual({ created: false, previousFetchedAt: created });
    expect(await rawWatch('client-g', 'GB#00000005')).toMatchObject({ lastFetchedAt: '2024-03-01T10:00:59.000Z' });
  });

  it('refuses a cursor it did not issue', async () => {
    const bad = [
      '%%%',
      Buffer.from('{"v":1}').toString('base64url'),
      Buffer.from('{"v":1,"pk":"XX#1"}').toString('base64url'),
      Buffer.from('nope').toString('base64url'),
    ];
    for (const cursor of bad)
      await expect(watches.listWatches('client-a', { limit: 5, cursor })).rejects.toBeInstanceOf(InvalidWatchCursorError);
  });
});
