import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { Upload } from '@aws-sdk/lib-storage';
import pLimit from 'p-limit';
import { generateBritishCompanies } from '../../demo/company-generator';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import type { ProfileContent } from '../../shared/companies/profile';
import { PROFILE_SORT_KEY } from '../../shared/companies/search-index';
import { type ImportRecord, importProfiles } from '../../shared/register/import/import';
import { importChunk } from '../../shared/register/import/import-chunk';
import { createImportDocumentClient } from '../../shared/register/import/import-client';
import { uploadKeyOf } from '../../shared/register/import/object-keys';
import { type ManifestItem, splitUpload } from '../../shared/register/import/split-upload';
import { companiesTable } from '../../shared/storage/tables';
import { bulkFile, syntheticBulkRows } from '../../tools/register-files';
import { startLocalBucket } from '../support/s3';
import { injectWriteThrottling } from '../support/throttling';
import { batchWriteItems, storedItemsOf } from './support/companies';
import type { BenchContext, BenchTables } from './support/context';
import { throughputTable } from './support/table';
import { timeThroughput } from './support/timing';

export const name = 'Import of profiles (importProfiles) beside a bare BatchWriteItem, and a register load while DynamoDB throttles';

/** Requests in flight for the baseline: importProfiles' default keeps more than this in flight, so the baseline is not starved. */
const BASELINE_CONCURRENCY = 8;
/** A seed no other benchmark uses, so these companies are new to DynamoDB Local. */
const SEED = 7;

async function* recordsOf(profiles: readonly ProfileContent[]): AsyncGenerator<ImportRecord> {
  for (const [index, profile] of profiles.entries()) yield { line: index + 1, profile };
}

async function importInto(context: BenchContext, profiles: readonly ProfileContent[]): Promise<() => Promise<unknown>> {
  const { doc, names } = await context.createTables([companiesTable]);
  const store = new DynamoCompanyStore(doc, names[companiesTable.id] as string);
  return async () => {
    const result = await importProfiles(recordsOf(profiles), store);
    if (result.created !== profiles.length)
      throw new Error(`import created ${result.created} of ${profiles.length}: ${JSON.stringify(result.errors.slice(0, 3))}`);
  };
}

async function batchWriteInto(context: BenchContext, profiles: readonly ProfileContent[]): Promise<() => Promise<unknown>> {
  const { doc, names } = await context.createTables([companiesTable]);
  const updatedAt = new Date().toISOString();
  return () =>
    batchWriteItems(
      doc,
      names[companiesTable.id] as string,
      profiles.flatMap((profile) => storedItemsOf(profile, updatedAt)),
      BASELINE_CONCURRENCY,
    );
}

export async function run(context: BenchContext): Promise<void> {
  const count = context.scale === 'full' ? 20_000 : 3_000;
  const warmupCount = 300;
  const profiles = [...generateBritishCompanies(count + warmupCount, SEED)];
  const warmup = profiles.slice(0, warmupCount);
  const measured = profiles.slice(warmupCount);

  await (await batchWriteInto(context, warmup))();
  await (await importInto(context, warmup))();

  const baseline = await timeThroughput(measured.length, await batchWriteInto(context, measured));
  const imported = await timeThroughput(measured.length, await importInto(context, measured));
  const itemsPerProfile = measured.reduce((sum, profile) => sum + storedItemsOf(profile, '').length, 0) / measured.length;
  context.report(
    throughputTable(
      `Import of ${measured.length.toLocaleString('en-GB')} generated GB profiles (${itemsPerProfile.toFixed(1)} items each: profile + name index)`,
      'profiles',
      [
        { label: `baseline: BatchWriteItem, ${BASELINE_CONCURRENCY} in flight`, result: baseline },
        { label: 'importProfiles (default options)', result: imported },
      ],
    ),
  );
  await runThrottledLoad(context);
}

/**
 * Write requests a second the throttled table serves: under what DynamoDB Local takes from the import
 * unchecked on this machine, so a share of writes is refused as a splitting table refuses them.
 */
const THROTTLED_WRITES_PER_SECOND = 60;
/** Chunks imported at once: the Map's batches, a few on one machine. */
const CHUNKS_AT_ONCE = 4;

/**
 * A whole register file through the split and the batches' importChunk, with the import's own client
 * (adaptive retries, the batch kit's patience), while DynamoDB refuses writes beyond a rate: every row
 * must be written, none rejected, no chunk failed. 3,000 rows (small) took 24 s with 5 % of write
 * attempts refused; 100,000 rows (full) make about 35,000 write attempts, some ten minutes at the
 * throttle's pace.
 */
export async function runThrottledLoad(context: BenchContext): Promise<void> {
  const rows = context.scale === 'small' ? 3_000 : 100_000;
  const bucket = await startLocalBucket();
  try {
    const key = uploadKeyOf('bench-throttled', 'BasicCompanyDataAsOneFile-2024-06-01.csv');
    // Multipart, as the CLI uploads a register file: a whole file is far over one request's size.
    await new Upload({
      client: bucket.objects.s3,
      params: { Bucket: bucket.objects.bucket, Key: key, Body: bulkFile([...syntheticBulkRows(rows, 31)]) },
    }).done();
    const split = await splitUpload(bucket.objects, key, { chunkRecords: context.scale === 'small' ? 1_000 : 5_000 });
    const chunks = await bucket.objects.readJson<ManifestItem[]>(split.manifestKey);
    const tables = await context.createTables([companiesTable]);
    const throttling = injectWriteThrottling(THROTTLED_WRITES_PER_SECOND);
    const doc = createImportDocumentClient(tables.env);
    throttling.remove();
    const store = new DynamoCompanyStore(doc, tables.names[companiesTable.id] as string);
    const limit = pLimit(CHUNKS_AT_ONCE);
    let done = 0;
    const started = performance.now();
    const outcomes = await Promise.allSettled(
      chunks.map((chunk) =>
        limit(async () => {
          const result = await importChunk(bucket.objects, store, { chunk, asOf: '2024-06-01' });
          done += result.read;
          context.log(`  throttled load: ${done} of ${rows} rows, ${throttling.throttled} of ${throttling.writes} write attempts refused`);
          return result;
        }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const results = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const written = results.reduce((sum, result) => sum + result.created + result.updated + result.unchanged, 0);
    const rejected = results.reduce((sum, result) => sum + result.rejected, 0);
    const stored = await countProfiles(tables.doc, tables.names[companiesTable.id] as string);
    context.report(
      [
        `Register load of ${rows.toLocaleString('en-GB')} rows while DynamoDB refuses writes beyond ${THROTTLED_WRITES_PER_SECOND} a second`,
        `  chunks: ${chunks.length} (${outcomes.length - results.length} failed); rows written ${written}, rejected ${rejected}; profiles stored ${stored}`,
        `  write attempts: ${throttling.writes}, refused ${throttling.throttled} (${((100 * throttling.throttled) / Math.max(1, throttling.writes)).toFixed(1)} %)`,
        `  ${seconds.toFixed(1)} s, ${Math.round(rows / seconds)} rows/s`,
      ].join('\n'),
    );
    if (stored !== rows || rejected > 0 || results.length !== chunks.length)
      throw new Error(
        `the throttled load wrote ${stored} of ${rows} profiles (${rejected} rejected, ${chunks.length - results.length} chunks failed)`,
      );
  } finally {
    await bucket.stop();
  }
}

async function countProfiles(doc: BenchTables['doc'], tableName: string): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: tableName,
        Select: 'COUNT',
        FilterExpression: 'sk = :profile',
        ExpressionAttributeValues: { ':profile': PROFILE_SORT_KEY },
        ExclusiveStartKey: startKey,
      }),
    );
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}
