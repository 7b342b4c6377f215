import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { NAME_END, namePartition } from '../../../shared/companies/search-index';
import { companiesTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { profileContent } from '../../support/profile-fixture';

let tables: TestTables;
let store: DynamoCompanyStore;
let now = new Date('2024-03-01T10:00:00.000Z');

beforeAll(async () => {
  tables = await createTestTables([companiesTable]);
  store = new DynamoCompanyStore(tables.doc, tables.names.companies as string, () => now);
});

/** Every stream record the table has produced so far, oldest first. */
async function streamRecords(): Promise<_Record[]> {
  const endpoint = tables.env.DYNAMODB_ENDPOINT as string;
  const streams = new DynamoDBStreamsClient({
    endpoint,
    region: 'eu-west-2',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const table = await tables.client.send(new DescribeTableCommand({ TableName: tables.names.companies }));
  const stream = await streams.send(new DescribeStreamCommand({ StreamArn: table.Table?.LatestStreamArn }));
  const records: _Record[] = [];
  for (const shard of stream.StreamDescription?.Shards ?? []) {
    let iterator = (
      await streams.send(
        new GetShardIteratorCommand({
          StreamArn: stream.StreamDescription?.StreamArn,
          ShardId: shard.ShardId,
          ShardIteratorType: 'TRIM_HORIZON',
        }),
      )
    ).ShardIterator;
    while (iterator) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      records.push(...(page.Records ?? []));
      if ((page.Records ?? []).length === 0) break;
      iterator = page.NextShardIterator;
    }
  }
  return records;
}

const sortKeysOf = (records: readonly _Record[]) => records.map((record) => record.dynamodb?.Keys?.sk?.S);

describe('DynamoCompanyStore', () => {
  it('creates a profile at version 1 and serves it without storage bookkeeping', async () => {
    const content = profileContent({ companyNumber: '10000001', name: 'Alpha Widgets Ltd' });

    const outcome = await store.save(content);
    const stored = await store.get('GB', '10000001');

    expect(outcome).toBe('created');
    expect(stored).toEqual({
      ...content,
      // No score has been replaced yet: the API says so with null.
      riskOfFailure: { ...content.riskOfFailure, previous: null },
      version: 1,
      updatedAt: '2024-03-01T10:00:00.000Z',
    });
  });

  it('answers undefined for a company it does not hold', async () => {
    expect(await store.get('GB', '99999999')).toBeUndefined();
    expect(await store.get('IE', '10000001')).toBeUndefined();
  });

  it('writes nothing when the same content is saved again: no version bump, no stream record', async () => {
    const content = profileContent({ companyNumber: '10000002', name: 'Beta Holdings Limited' });
    await store.save(content);
    const before = await streamRecords();

    now = new Date('2024-03-02T10:00:00.000Z');
    const outcome = await store.save(structuredClone(content));

    expect(outcome).toBe('unchanged');
    expect((await store.get('GB', '10000002'))?.version).toBe(1);
    // The stream does show the first save, so an unchanged count is a write that did not happen.
    expect(before.map((record) => record.dynamodb?.Keys?.pk?.S)).toContain('GB#10000002');
    expect((await streamRecords()).length).toBe(before.length);
  });

  it('bumps the version on a change and rewrites only the profile when the search projection is unchanged', async () => {
    const content = profileContent({ companyNumber: '10000003', name: 'Gamma Foods Ltd' });
    await store.save(content);
    const before = await streamRecords();

    now = new Date('2024-03-03T10:00:00.000Z');
    const outcome = await store.save({ ...content, riskOfFailure: { ...content.riskOfFailure, level: 'High', score: 71 } });

    const stored = await store.get('GB', '10000003');
    expect(outcome).toBe('updated');
    expect(stored?.version).toBe(2);
    expect(stored?.updatedAt).toBe('2024-03-03T10:00:00.000Z');
    expect(stored?.riskOfFailure.level).toBe('High');
    expect(sortKeysOf((await streamRecords()).slice(before.length))).toEqual(['PROFILE']);
  });

  it("keeps the score a change replaced, and when, whatever an import states of the company's past", async () => {
    const content = profileContent({ companyNumber: '10000013', name: 'Risk History Ltd' });
    now = new Date('2024-03-01T10:00:00.000Z');
    // An import cannot tell the store a company's past: a stated previous score is not kept.
    const stated = { level: 'Severe', score: 99, replacedAt: '2020-01-01T00:00:00.000Z' } as const;
    await store.save({ ...content, riskOfFailure: { ...content.riskOfFailure, previous: stated } });
    expect((await store.get('GB', '10000013'))?.riskOfFailure.previous).toBeNull();

    now = new Date('2024-03-05T09:30:00.000Z');
    await store.save({ ...content, riskOfFailure: { ...content.riskOfFailure, level: 'High', score: 60 } });
    const rose = await store.get('GB', '10000013');
    expect(rose?.riskOfFailure).toMatchObject({ score: 60, previous: { level: 'Low', score: 12, replacedAt: rose?.updatedAt } });
    expect(rose?.updatedAt).toBe('2024-03-05T09:30:00.000Z');

    // Drivers reworded, the score the same: the change is kept, and so is the score's history.
    now = new Date('2024-03-06T09:30:00.000Z');
    const reworded = { ...content.riskOfFailure, level: 'High', score: 60, drivers: ['reworded'] } as const;
    expect(await store.save({ ...content, riskOfFailure: reworded })).toBe('updated');
    expect((await store.get('GB', '10000013'))?.riskOfFailure.previous).toEqual(rose?.riskOfFailure.previous);

    // The same content again is no change, its history included: no version, no event.
    const version = (await store.get('GB', '10000013'))?.version;
    expect(await store.save({ ...content, riskOfFailure: reworded })).toBe('unchanged');
    expect((await store.get('GB', '10000013'))?.version).toBe(version);

    now = new Date('2024-03-07T09:30:00.000Z');
    await store.save({ ...content, riskOfFailure: { ...reworded, level: 'Low', score: 20 } });
    expect((await store.get('GB', '10000013'))?.riskOfFailure.previous).toEqual({
      level: 'High',
      score: 60,
      replacedAt: '2024-03-07T09:30:00.000Z',
    });
  });

  it('moves the index items on a rename: the old name key is gone, the new one holds the company', async () => {
    await store.save(profileContent({ companyNumber: '10000004', name: 'Old Name Trading Ltd' }));

    await store.save(profileContent({ companyNumber: '10000004', name: 'New Name Ventures Ltd' }));

    const exact = async (name: string) =>
      (
        await tables.doc.send(
          new QueryCommand({
            TableName: tables.names.companies,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :name)',
            ExpressionAttributeValues: { ':pk': namePartition('GB', name), ':name': `${name}${NAME_END}` },
          }),
        )
      ).Items ?? [];
    expect(await exact('old name trading')).toEqual([]);
    expect((await exact('new name ventures')).map((item) => item.companyNumber)).toEqual(['10000004']);
    expect((await store.get('GB', '10000004'))?.version).toBe(2);
  });

  it('settles two concurrent saves of one company as one create and one update', async () => {
    const first = profileContent({ companyNumber: '10000005', name: 'Delta Ltd', riskLevel: 'Low' });
    const second = profileContent({ companyNumber: '10000005', name: 'Delta Ltd', riskLevel: 'Severe' });

    const outcomes = await Promise.all([store.save(first), store.save(second)]);

    expect([...outcomes].sort()).toEqual(['created', 'updated']);
    expect((await store.get('GB', '10000005'))?.version).toBe(2);
  });

  it('saves a batch with one result per input, in order, including a company given twice', async () => {
    await store.save(profileContent({ companyNumber: '10000006', name: 'Epsilon Ltd' }));
    await store.save(profileContent({ companyNumber: '10000007', name: 'Zeta Ltd' }));

    const results = await store.saveMany(
      [
        profileContent({ companyNumber: '10000006', name: 'Epsilon Ltd' }),
        profileContent({ companyNumber: '10000007', name: 'Zeta Ltd', status: 'dissolved' }),
        profileContent({ companyNumber: '10000008', name: 'Eta Ltd' }),
        profileContent({ companyNumber: '10000008', name: 'Eta Ltd', riskLevel: 'High' }),
        profileContent({ jurisdiction: 'IE', companyNumber: '10000006', name: 'Epsilon Teoranta' }),
      ],
      { concurrency: 3 },
    );

    expect(results.map((result) => (result.status === 'fulfilled' ? result.value : result.reason))).toEqual([
      'unchanged',
      'updated',
      'created',
      'updated',
      'created',
    ]);
    expect((await store.get('GB', '10000008'))?.riskOfFailure.level).toBe('High');
    expect((await store.get('IE', '10000006'))?.name).toBe('Epsilon Teoranta');
  });

  it('writes a batch of new companies with the very items a single save writes, a long name through its own transaction', async () => {
    const longName = `${Array.from({ length: 30 }, (_, n) => `Word${n}`).join(' ')} Ltd`;
    const batch = [
      ...Array.from({ length: 30 }, (_, n) =>
        profileContent({ companyNumber: `1100${String(n).padStart(4, '0')}`, name: 'Batched Twin Holdings Ltd' }),
      ),
      profileContent({ companyNumber: '11009999', name: longName }),
    ];
    await store.save(profileContent({ companyNumber: '11010000', name: 'Batched Twin Holdings Ltd' }));

    const results = await store.saveMany(batch);

    expect(results.every((result) => result.status === 'fulfilled' && result.value === 'created')).toBe(true);
    const itemsOf = async (companyNumber: string) => {
      const items: Record<string, unknown>[] = [];
      for (const pk of [namePartition('GB', 'batched twin holdings'), 'W#GB#ba', 'W#GB#tw', 'W#GB#ho']) {
        const page = await tables.doc.send(
          new QueryCommand({
            TableName: tables.names.companies,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': pk },
          }),
        );
        items.push(...(page.Items ?? []).filter((item) => item.companyNumber === companyNumber));
      }
      return items.map(({ sk: _sk, companyNumber: _number, ...rest }) => rest);
    };
    expect(await itemsOf('11000007')).toEqual(await itemsOf('11010000'));
    const seventh = batch[7] as (typeof batch)[number];
    expect(await store.get('GB', '11000007')).toEqual({
      ...seventh,
      riskOfFailure: { ...seventh.riskOfFailure, previous: null },
      version: 1,
      updatedAt: now.toISOString(),
    });
    expect((await store.get('GB', '11009999'))?.version).toBe(1);
    expect(await store.entryByNumber('GB', '11009999')).toMatchObject({ companyNumber: '11009999' });

    const again = await store.saveMany(batch);
    expect(again.every((result) => result.status === 'fulfilled' && result.value === 'unchanged')).toBe(true);
  });
});
