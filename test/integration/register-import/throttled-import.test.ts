import { PutObjectCommand } from '@aws-sdk/client-s3';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { PROFILE_SORT_KEY } from '../../../shared/companies/search-index';
import { importChunk } from '../../../shared/register/import/import-chunk';
import { createImportDocumentClient } from '../../../shared/register/import/import-client';
import { uploadKeyOf } from '../../../shared/register/import/object-keys';
import { type ManifestItem, splitUpload } from '../../../shared/register/import/split-upload';
import { createDocumentClient, createDynamoClient } from '../../../shared/storage/dynamo';
import { companiesTable } from '../../../shared/storage/tables';
import { bulkFile, syntheticBulkRows } from '../../../tools/register-files';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { type LocalBucket, startLocalBucket } from '../../support/s3';
import { injectWriteThrottling } from '../../support/throttling';

/** A few thousand rows: enough batches that a client which gives up on throttling loses some. */
const ROWS = 3_000;
/**
 * Write requests a second the table serves: well under what the import sends unchecked, so a share of
 * its writes is refused (ProvisionedThroughputExceededException) as a splitting table refuses them.
 */
const WRITES_PER_SECOND = 40;

let bucket: LocalBucket;
let chunks: ManifestItem[];

beforeAll(async () => {
  bucket = await startLocalBucket();
  const key = uploadKeyOf('throttled', 'BasicCompanyDataAsOneFile-2024-06-01.csv');
  await bucket.objects.s3.send(
    new PutObjectCommand({ Bucket: bucket.objects.bucket, Key: key, Body: bulkFile([...syntheticBulkRows(ROWS, 21)]) }),
  );
  const split = await splitUpload(bucket.objects, key, { chunkRecords: 1_000 });
  chunks = await bucket.objects.readJson<ManifestItem[]>(split.manifestKey);
}, 60_000);

afterAll(async () => {
  await bucket?.stop();
});

async function importAll(tables: TestTables, doc: ReturnType<typeof createDocumentClient>) {
  const store = new DynamoCompanyStore(doc, tables.names.companies as string);
  const outcomes = await Promise.allSettled(chunks.map((chunk) => importChunk(bucket.objects, store, { chunk, asOf: '2024-06-01' })));
  let stored = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await tables.doc.send(
      new ScanCommand({
        TableName: tables.names.companies,
        Select: 'COUNT',
        FilterExpression: 'sk = :profile',
        ExpressionAttributeValues: { ':profile': PROFILE_SORT_KEY },
        ExclusiveStartKey: startKey,
      }),
    );
    stored += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { outcomes, stored };
}

describe('a first load while DynamoDB throttles', () => {
  it('writes every row through the import client, which waits throttling out', async () => {
    const tables = await createTestTables([{ ...companiesTable, stream: undefined }]);
    // Refusals beyond the rate depend on how fast this machine writes; the first ones do not.
    const throttling = injectWriteThrottling(WRITES_PER_SECOND, { refuseFirst: 21 });
    const doc = createImportDocumentClient(tables.env);
    throttling.remove();

    const started = Date.now();
    const { outcomes, stored } = await importAll(tables, doc);
    console.log(
      `${ROWS} rows in ${((Date.now() - started) / 1000).toFixed(1)} s, ${throttling.throttled} of ${throttling.writes} write attempts throttled`,
    );

    expect(outcomes.map((outcome) => outcome.status)).toEqual(chunks.map(() => 'fulfilled'));
    const results = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    expect(results.reduce((sum, result) => sum + result.created + result.updated + result.unchanged, 0)).toBe(ROWS);
    expect(results.reduce((sum, result) => sum + result.rejected, 0)).toBe(0);
    expect(stored).toBe(ROWS);
    expect(throttling.throttled).toBeGreaterThan(20);
    tables.client.destroy();
  }, 240_000);

  it('loses rows through a client with the SDK defaults, which gives up after three attempts', async () => {
    const tables = await createTestTables([{ ...companiesTable, stream: undefined }]);
    const throttling = injectWriteThrottling(WRITES_PER_SECOND);
    const doc = createDocumentClient(createDynamoClient(tables.env));
    throttling.remove();

    const { outcomes, stored } = await importAll(tables, doc);

    const rejected = outcomes.reduce((sum, outcome) => sum + (outcome.status === 'fulfilled' ? outcome.value.rejected : 0), 0);
    const failedChunks = outcomes.filter((outcome) => outcome.status === 'rejected').length;
    expect(rejected + failedChunks).toBeGreaterThan(0);
    expect(stored).toBeLessThan(ROWS);
    tables.client.destroy();
  }, 240_000);
});
