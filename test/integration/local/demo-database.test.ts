import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { generateIrishCompanies } from '../../../demo/company-generator';
import {
  buildDemoDatabase,
  type DemoDatabaseFiles,
  demoDatabaseFiles,
  demoDatasetFingerprint,
  ENGINE_FILE,
  readDemoDatabaseManifest,
  restoreDemoDatabase,
} from '../../../local/demo-database';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../../local/dynamodb-local';
import { localTableName } from '../../../local/paths';
import { type DemoDataset, demoDataset, INDEX_LAYOUT, seedDemoCompanies } from '../../../local/seed';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { createDocumentClient, createDynamoClient } from '../../../shared/storage/dynamo';
import { companiesTable } from '../../../shared/storage/tables';

/** The first rows of the real sample and a few generated IE companies: the same path, in seconds. */
function smallDataset(dir: string, gbRows = 30, ieCount = 10): DemoDataset {
  const gbFile = join(dir, 'gb.csv');
  const lines = readFileSync(demoDataset.gbFile, 'utf8').split('\n');
  writeFileSync(gbFile, `${lines.slice(0, gbRows + 1).join('\n')}\n`);
  return { id: `small-prebuilt-${gbRows}-${ieCount}+${INDEX_LAYOUT}`, gbFile, gbRows, ieCount };
}

const folder = () => mkdtempSync(join(tmpdir(), 'bureau-demo-database-'));
const filesIn = (dir: string): DemoDatabaseFiles => ({ compressed: join(dir, `${ENGINE_FILE}.br`), manifest: join(dir, 'manifest.json') });

const engines: DynamoDbLocal[] = [];
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.stop();
});

async function engineOn(engineDir: string) {
  const engine = await startDynamoDbLocal({ workDir: join(engineDir, '..', 'work'), dataDir: engineDir });
  engines.push(engine);
  const env = { DYNAMODB_ENDPOINT: engine.endpoint, AWS_REGION: 'eu-west-2' };
  return { engine, client: createDynamoClient(env), doc: createDocumentClient(createDynamoClient(env)) };
}

describe('the prebuilt demo database', () => {
  it('holds what a load of the demo dataset writes today (else: npx tsx tools/build-demo-database.ts)', async () => {
    const manifest = readDemoDatabaseManifest();

    expect(manifest?.datasetId).toBe(demoDataset.id);
    expect(manifest?.fingerprint).toBe(await demoDatasetFingerprint());
  }, 120_000);

  it('opens in this DynamoDB Local with the demo companies of both registers and their marker', async () => {
    const engineDir = join(folder(), 'dynamodb');

    expect((await restoreDemoDatabase(engineDir)).restored).toBe(true);

    const { doc } = await engineOn(engineDir);
    const tableName = localTableName(companiesTable);
    const store = new DynamoCompanyStore(doc, tableName);
    expect((await store.get('GB', '15380840'))?.name).toBe('CPA GATES LTD');
    const irish = generateIrishCompanies(demoDataset.ieCount);
    const lastIrish = [...irish].at(-1);
    expect((await store.get('IE', lastIrish?.companyNumber as string))?.name).toBe(lastIrish?.name);
    expect(await seedDemoCompanies({ doc, tableName, log: () => {}, signal: new AbortController().signal })).toBe('present');
  }, 60_000);

  it('is restored in one step: every company there, the vocabulary in, and a stream that holds no change of a profile', async () => {
    const dir = folder();
    const dataset = smallDataset(dir);
    const files = filesIn(join(dir, 'prebuilt'));
    await buildDemoDatabase(join(dir, 'build'), () => {}, files, dataset);
    const engineDir = join(dir, 'data', 'dynamodb');

    const outcome = await restoreDemoDatabase(engineDir, dataset, files);

    expect(outcome.restored).toBe(true);
    const { engine, client, doc } = await engineOn(engineDir);
    const tableName = localTableName(companiesTable);
    const lines: string[] = [];
    expect(
      await seedDemoCompanies({ doc, tableName, log: (line) => lines.push(line), signal: new AbortController().signal, dataset }),
    ).toBe('present');
    expect(lines).toEqual([]);
    const store = new DynamoCompanyStore(doc, tableName);
    expect((await store.get('GB', '15380840'))?.name).toBe('CPA GATES LTD');
    expect([...(await store.variantWords('GB', ['gats'])).values()].flat()).toContain('gates');
    // The stream was switched on after the load: it holds the marker alone, which is no profile.
    const streamArn = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.LatestStreamArn;
    expect(streamArn).toBeDefined();
    const streams = new DynamoDBStreamsClient({
      endpoint: engine.endpoint,
      region: 'eu-west-2',
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    });
    const shards = (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription?.Shards ?? [];
    const keys: Array<string | undefined> = [];
    for (const shard of shards) {
      const { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
      );
      const page = await streams.send(new GetRecordsCommand({ ShardIterator }));
      keys.push(...(page.Records ?? []).map((record) => record.dynamodb?.Keys?.pk?.S));
    }
    expect(keys).toEqual(['META#SEED']);
    // A reader that starts on the empty stream, as the change detector's does, reads what is written next.
    const shard = shards[0]?.ShardId;
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard, ShardIteratorType: 'TRIM_HORIZON' }),
    );
    const empty = await streams.send(new GetRecordsCommand({ ShardIterator }));
    await doc.send(new PutCommand({ TableName: tableName, Item: { pk: 'WRITTEN#after-restore', sk: 'ITEM' } }));
    const next = await streams.send(new GetRecordsCommand({ ShardIterator: empty.NextShardIterator }));
    expect(next.Records?.map((record) => record.dynamodb?.Keys?.pk?.S)).toContain('WRITTEN#after-restore');
    streams.destroy();
  }, 120_000);

  it('never replaces a database that is there', async () => {
    const dir = folder();
    const engineDir = join(dir, 'dynamodb');
    const { client } = await engineOn(engineDir);
    await client.send(
      new CreateTableCommand({
        TableName: 'mine',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
    const before = readFileSync(join(engineDir, ENGINE_FILE));

    const outcome = await restoreDemoDatabase(engineDir);

    expect(outcome).toEqual({ restored: false, reason: 'database present' });
    expect(readFileSync(join(engineDir, ENGINE_FILE)).equals(before)).toBe(true);
  }, 60_000);

  it('restores nothing when it was built from another dataset', async () => {
    const dir = folder();
    const outcome = await restoreDemoDatabase(join(dir, 'dynamodb'), { ...demoDataset, id: 'another+dataset' }, demoDatabaseFiles);

    expect(outcome).toEqual({ restored: false, reason: 'prebuilt database is of another dataset' });
  });
});
