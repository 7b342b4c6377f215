import { Readable } from 'node:stream';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { registerImportFunctions } from '../../../infra/catalogue';
import { localGrants } from '../../../local/function-environment';
import { LOCAL_GRANTS_VARIABLE, withLocalGrants } from '../../../local/grants';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { sweepGoneCompanies } from '../../../shared/register/import/gone-companies';
import { type BatchResult, importChunk } from '../../../shared/register/import/import-chunk';
import { type ImportSummary, writeImportSummary } from '../../../shared/register/import/import-summary';
import { MAP_RESULTS_PREFIX, uploadKeyOf } from '../../../shared/register/import/object-keys';
import { type ManifestItem, type SplitReport, splitUpload } from '../../../shared/register/import/split-upload';
import { createDocumentClient, createDynamoClient } from '../../../shared/storage/dynamo';
import { companiesTable } from '../../../shared/storage/tables';
import { bulkFile, bulkRow } from '../../../tools/register-files';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { type LocalBucket, startLocalBucket } from '../../support/s3';

let bucket: LocalBucket;
let tables: TestTables;

beforeAll(async () => {
  bucket = await startLocalBucket();
  tables = await createTestTables([companiesTable]);
});
afterAll(async () => {
  await bucket.stop();
  tables.client.destroy();
});

/** The companies table as a register import function reaches it: refusing, as IAM would, what its catalogue entry does not grant. */
function companiesAs(functionId: string) {
  const spec = registerImportFunctions.find((candidate) => candidate.id === functionId);
  if (!spec) throw new Error(`no ${functionId}`);
  const env = {
    ...tables.env,
    [LOCAL_GRANTS_VARIABLE]: JSON.stringify(localGrants(spec, { tables: tables.names, queues: {} })),
  };
  return createDocumentClient(withLocalGrants(createDynamoClient(env), 'dynamodb', env));
}

const upload = async (importId: string, fileName: string, body: string | Buffer) => {
  const key = uploadKeyOf(importId, fileName);
  await bucket.objects.s3.send(new PutObjectCommand({ Bucket: bucket.objects.bucket, Key: key, Body: body }));
  return key;
};

/** What the Distributed Map's ResultWriter leaves for a run: a manifest of result files, each a list of child executions. */
async function writeMapRun(runId: string, succeeded: readonly { input: unknown; output: unknown }[], failed: readonly unknown[] = []) {
  const file = (status: string) => `${MAP_RESULTS_PREFIX}/${runId}/${status}_0.json`;
  await bucket.objects.putJson(
    file('SUCCEEDED'),
    succeeded.map(({ input, output }) => ({ Status: 'SUCCEEDED', Input: JSON.stringify(input), Output: JSON.stringify(output) })),
  );
  await bucket.objects.putJson(
    file('FAILED'),
    failed.map((input) => ({ Status: 'FAILED', Input: JSON.stringify(input), Error: 'States.TaskFailed', Cause: 'DynamoDB throttled' })),
  );
  const manifestKey = `${MAP_RESULTS_PREFIX}/${runId}/manifest.json`;
  await bucket.objects.putJson(manifestKey, {
    DestinationBucket: bucket.objects.bucket,
    MapRunArn: `arn:aws:states:eu-west-2:000000000000:mapRun:x/Batches:${runId}`,
    ResultFiles: {
      SUCCEEDED: [{ Key: file('SUCCEEDED'), Size: 1 }],
      FAILED: failed.length ? [{ Key: file('FAILED'), Size: 1 }] : [],
      PENDING: [],
    },
  });
  return { ResultWriterDetails: { Bucket: bucket.objects.bucket, Key: manifestKey } };
}

const company = (index: number) => ({
  number: String(10_000_000 + index),
  name: `REGISTER TEST ${index} LTD`,
  category: 'Private Limited Company',
  status: 'Active',
  incorporatedOn: '2015-03-01',
});

describe('register import functions, against DynamoDB Local and fauxqs', () => {
  it('cuts a plain CSV into chunks of whole records, the header in each, lines as in the file', async () => {
    // Arrange: line 2 and 3 are one record (a quoted line break), line 5 is blank, line 7 runs two records together.
    const rows = [
      bulkRow({ ...company(1), addressLine1: 'UNIT 1\nTHE YARD' }),
      bulkRow(company(2)),
      '',
      bulkRow(company(3)),
      `${bulkRow(company(4))},"extra"`,
      bulkRow(company(5)),
    ];
    const key = await upload('split-plain', 'BasicCompanyData-2024-02-01-part1_7.csv', bulkFile(rows));

    // Act
    const outcome = await splitUpload(bucket.objects, key, { chunkRecords: 2 });

    // Assess
    expect(outcome).toMatchObject({ chunks: 3, records: 5, jurisdiction: 'GB', wholeSnapshot: false, sweepSegments: [] });
    const manifest = await bucket.objects.readJson<ManifestItem[]>(outcome.manifestKey);
    expect(manifest.map(({ firstLine, entry }) => ({ firstLine, entry }))).toEqual([
      { firstLine: 2, entry: 'BasicCompanyData-2024-02-01-part1_7.csv' },
      { firstLine: 6, entry: 'BasicCompanyData-2024-02-01-part1_7.csv' },
      { firstLine: 8, entry: 'BasicCompanyData-2024-02-01-part1_7.csv' },
    ]);
    const second: Buffer[] = await (await bucket.objects.stream(manifest[1]?.key as string)).toArray();
    const lines = Buffer.concat(second).toString('utf8').split('\n');
    expect(lines[0]).toMatch(/^CompanyName, CompanyNumber,/);
    expect(lines[1]).toContain('"10000003"');
    expect(lines[2]).toContain('"extra"');
  });

  it('reads every CSV of a zip in the archive order, naming each entry', async () => {
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from(bulkFile([bulkRow(company(11)), bulkRow(company(12)), bulkRow(company(13))])), 'part1.csv');
    zip.addBuffer(Buffer.from('read me'), 'README.txt');
    zip.addBuffer(Buffer.from(bulkFile([bulkRow(company(14))])), 'part2.csv');
    zip.end();
    const key = await upload(
      'split-zip',
      'BasicCompanyDataAsOneFile-2024-02-01.zip',
      Buffer.concat(await Readable.from(zip.outputStream).toArray()),
    );

    const outcome = await splitUpload(bucket.objects, key, { chunkRecords: 2 });

    expect(outcome).toMatchObject({ chunks: 3, records: 4, wholeSnapshot: true, totalSegments: 32 });
    expect(outcome.sweepSegments).toHaveLength(32);
    const manifest = await bucket.objects.readJson<ManifestItem[]>(outcome.manifestKey);
    expect(manifest.map(({ entry, firstLine }) => `${entry}:${firstLine}`)).toEqual(['part1.csv:2', 'part1.csv:4', 'part2.csv:2']);
    const report = await bucket.objects.readJson<SplitReport>(`work/split-zip/split.json`);
    expect(report.entries).toEqual([
      { entry: 'part1.csv', records: 3, chunks: 2 },
      { entry: 'part2.csv', records: 1, chunks: 1 },
    ]);
  });

  it('imports each chunk with the grants of its function, adds the batches up, and names a failed batch', async () => {
    const rows = [
      bulkRow(company(21)),
      `${bulkRow(company(22))},"extra"`,
      bulkRow(company(23)),
      bulkRow(company(24)),
      bulkRow(company(25)),
    ];
    const key = await upload('whole', 'BasicCompanyDataAsOneFile-2024-02-01.csv', bulkFile(rows));
    const split = await splitUpload(bucket.objects, key, { chunkRecords: 2 });
    const manifest = await bucket.objects.readJson<ManifestItem[]>(split.manifestKey);
    const store = new DynamoCompanyStore(companiesAs('registerBatch'), tables.names.companies as string);

    const [first, second, third] = manifest as [ManifestItem, ManifestItem, ManifestItem];
    const results: BatchResult[] = [];
    for (const chunk of [first, second]) results.push(await importChunk(bucket.objects, store, { chunk, asOf: '2024-02-01' }));
    const batches = await writeMapRun(
      'run-1',
      results.map((output) => ({ input: { chunk: output.chunk, asOf: '2024-02-01' }, output })),
      [{ chunk: third, asOf: '2024-02-01' }],
    );
    const { digest, summary } = await writeImportSummary(bucket.objects, { uploadKey: key, asOf: '2024-02-01', split, batches });

    expect(results.map((result) => [result.read, result.created, result.rejected])).toEqual([
      [2, 1, 1],
      [2, 2, 0],
    ]);
    expect(summary).toMatchObject({
      records: 5,
      batches: { total: 3, succeeded: 2, failed: 1 },
      read: 4,
      created: 3,
      rejected: 1,
      errors: [{ entry: 'BasicCompanyDataAsOneFile-2024-02-01.csv', line: 3, message: expect.stringMatching(/fields/) }],
      failedBatches: [{ key: third.key, firstLine: 6, error: 'States.TaskFailed', cause: 'DynamoDB throttled' }],
    });
    expect(digest).toEqual({ summaryKey: 'uploads/whole/summary.json', failedBatches: 1, rejected: 1 });
    expect(await bucket.objects.readJson<ImportSummary>('uploads/whole/summary.json')).toEqual(summary);

    // A batch run again (the Map's retry) writes nothing new.
    const again = await importChunk(bucket.objects, store, { chunk: second, asOf: '2024-02-01' });
    expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
  });

  it('after a later whole snapshot, the sweep marks the companies it left out gone', async () => {
    const doc = companiesAs('registerSweep');
    const store = new DynamoCompanyStore(companiesAs('registerBatch'), tables.names.companies as string);
    const key = await upload('later', 'BasicCompanyDataAsOneFile-2024-03-01.csv', bulkFile([21, 23, 25].map((n) => bulkRow(company(n)))));
    const split = await splitUpload(bucket.objects, key, { chunkRecords: 10 });
    const [chunk] = await bucket.objects.readJson<ManifestItem[]>(split.manifestKey);
    await importChunk(bucket.objects, store, { chunk: chunk as ManifestItem, asOf: '2024-03-01' });

    const segments = await Promise.all(
      [0, 1].map((segment) =>
        sweepGoneCompanies({
          doc,
          tableName: tables.names.companies as string,
          jurisdiction: 'GB',
          asOf: '2024-03-01',
          segment,
          totalSegments: 2,
        }),
      ),
    );

    expect(segments.reduce((sum, result) => sum + result.gone, 0)).toBe(1);
    const gone = await new DynamoCompanyStore(tables.doc, tables.names.companies as string).get('GB', company(24).number);
    expect(gone?.tradingStatus.status).not.toBe('active');
  });
});
