import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BatchResult } from '../../../shared/register/import/import-chunk';
import type { SummaryDigest } from '../../../shared/register/import/import-summary';
import { MAP_RESULTS_PREFIX, uploadKeyOf } from '../../../shared/register/import/object-keys';
import { type ManifestItem, type SplitOutcome, splitUpload } from '../../../shared/register/import/split-upload';
import { bulkFile, syntheticBulkRows } from '../../../tools/register-files';
import { type LocalBucket, startLocalBucket } from '../../support/s3';

/** The summary function as the state machine calls it after the coverage count: where SweepRefused is counted. */
let bucket: LocalBucket;
const saved = { ...process.env };
let uploadKey: string;
let split: SplitOutcome;
let batches: { ResultWriterDetails: { Bucket: string; Key: string } };

const context = { awsRequestId: 'summary', functionName: 'registerSummary', getRemainingTimeInMillis: () => 60_000 } as Context;

beforeAll(async () => {
  bucket = await startLocalBucket();
  Object.assign(process.env, bucket.env, { POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'ERROR' });
  uploadKey = uploadKeyOf('summary-guard', 'BasicCompanyDataAsOneFile-2024-08-01.csv');
  await bucket.objects.s3.send(
    new PutObjectCommand({ Bucket: bucket.objects.bucket, Key: uploadKey, Body: bulkFile([...syntheticBulkRows(3, 14)]) }),
  );
  split = await splitUpload(bucket.objects, uploadKey);
  const [chunk] = await bucket.objects.readJson<ManifestItem[]>(split.manifestKey);
  const output: BatchResult = {
    chunk: chunk as ManifestItem,
    read: 3,
    created: 3,
    updated: 0,
    unchanged: 0,
    rejected: 0,
    errors: [],
    changes: {},
    unknownValues: {},
    milliseconds: 5,
  };
  const succeeded = `${MAP_RESULTS_PREFIX}/run/SUCCEEDED_0.json`;
  await bucket.objects.putJson(succeeded, [{ Status: 'SUCCEEDED', Input: '{}', Output: JSON.stringify(output) }]);
  const manifest = `${MAP_RESULTS_PREFIX}/run/manifest.json`;
  await bucket.objects.putJson(manifest, { ResultFiles: { SUCCEEDED: [{ Key: succeeded }] } });
  batches = { ResultWriterDetails: { Bucket: bucket.objects.bucket, Key: manifest } };
});

afterAll(async () => {
  process.env = saved;
  await bucket?.stop();
});

async function coldStart() {
  vi.resetModules();
  const { metrics } = await import('../../../shared/observability/metrics');
  const addMetric = vi.spyOn(metrics, 'addMetric');
  const { handler } = await import('../../../functions/register-import/summary');
  const invoke = (event: Record<string, unknown>) =>
    (handler as unknown as (event: unknown, context: Context) => Promise<SummaryDigest>)(
      { key: uploadKey, asOf: '2024-08-01', split, batches, ...event },
      context,
    );
  return { invoke, refusals: () => addMetric.mock.calls.filter(([name]) => name === 'SweepRefused').length };
}

describe("the summary function, judging a snapshot's coverage", () => {
  it('refuses the sweep of a snapshot listing a tenth of the register, counts SweepRefused once, and lets an operator force it', async () => {
    const { invoke, refusals } = await coldStart();
    const coverage = [
      { listed: 2, unlisted: 40 },
      { listed: 1, unlisted: 7 },
    ];

    const refused = await invoke({ coverage });
    const forced = await invoke({ coverage, forceSweep: 'GB' });
    const afterSweep = await invoke({ coverage, forceSweep: 'GB', sweep: [{ scanned: 50, gone: 47, failed: 0 }] });

    expect(refused).toMatchObject({ sweepAllowed: false, failedBatches: 0, rejected: 0 });
    expect(forced).toMatchObject({ sweepAllowed: true });
    expect(afterSweep).toMatchObject({ sweepAllowed: true });
    expect(refusals()).toBe(1);
  });
});
