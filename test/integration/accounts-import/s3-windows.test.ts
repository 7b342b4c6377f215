import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FilingOutcome } from '../../../shared/accounts/filing';
import { archiveKeyOf } from '../../../shared/accounts/import/accounts-object-keys';
import { type AccountsManifestItem, splitAccountsArchive } from '../../../shared/accounts/import/accounts-split';
import { S3RangeReader } from '../../../shared/accounts/import/s3-range-reader';
import { readAccountsEntries, readAccountsZip } from '../../../shared/accounts/read-archive';
import { zipEntriesIn } from '../../../shared/register/import/zip-entries';
import { dailyAccountsFile } from '../../support/filed-accounts';
import { type LocalBucket, startLocalBucket } from '../../support/s3';

/** Reading an archive in S3 by windows of its central directory, as the Distributed Map's items do. */
const workDir = mkdtempSync(join(tmpdir(), 'bureau-accounts-windows-'));
const ARCHIVE = 'Accounts_Bulk_Data-2023-03-02.zip';
let bucket: LocalBucket;
let path: string;
let key: string;

beforeAll(async () => {
  bucket = await startLocalBucket();
  path = await dailyAccountsFile(workDir, ARCHIVE);
  key = archiveKeyOf(ARCHIVE);
  await bucket.objects.s3.send(new PutObjectCommand({ Bucket: bucket.objects.bucket, Key: key, Body: readFileSync(path) }));
});

afterAll(async () => {
  await bucket?.stop();
});

const collect = async (outcomes: AsyncIterable<FilingOutcome>) => {
  const all: FilingOutcome[] = [];
  for await (const outcome of outcomes) all.push(outcome);
  return all;
};
const summary = (outcome: FilingOutcome) =>
  outcome.ok
    ? { entry: outcome.filing.entryName, periodEnd: outcome.filing.periodEnd }
    : { entry: outcome.entryName, reason: outcome.reason };

async function objectVersion() {
  const head = await bucket.objects.s3.send(new HeadObjectCommand({ Bucket: bucket.objects.bucket, Key: key }));
  return { s3: bucket.objects.s3, bucket: bucket.objects.bucket, key, size: head.ContentLength as number, etag: head.ETag as string };
}

describe('an accounts archive read from S3 by windows', () => {
  it('cuts the central directory into windows that, read one by one, give every filing the whole archive gives', async () => {
    // Act
    const split = await splitAccountsArchive(bucket.objects, key, 6);
    const manifest = await bucket.objects.readJson<AccountsManifestItem[]>(split.manifestKey);
    const object = await objectVersion();
    const windows = await Promise.all(
      manifest.map((item) =>
        collect(
          readAccountsEntries(zipEntriesIn(new S3RangeReader(object), object.size, { offset: item.directoryOffset, count: item.count })),
        ),
      ),
    );

    // Assess
    expect(split).toMatchObject({ importId: 'Accounts_Bulk_Data-2023-03-02', archive: ARCHIVE, records: 20, items: 4 });
    expect(manifest.map((item) => [item.first, item.count])).toEqual([
      [0, 6],
      [6, 6],
      [12, 6],
      [18, 2],
    ]);
    expect(windows.flat().map(summary)).toEqual((await collect(readAccountsZip(path))).map(summary));
  });

  it('reads through blocks far smaller than an entry as it does through one', async () => {
    const object = await objectVersion();
    const reader = new S3RangeReader(object, 4096);

    const outcomes = await collect(readAccountsEntries(zipEntriesIn(reader, object.size)));

    expect(outcomes.map(summary)).toEqual((await collect(readAccountsZip(path))).map(summary));
    expect(reader.requests).toBeGreaterThanOrEqual(Math.ceil(object.size / 4096));
  });

  it('reads a small archive, directory and entries, in one ranged GET', async () => {
    const object = await objectVersion();
    const reader = new S3RangeReader(object);

    await collect(readAccountsEntries(zipEntriesIn(reader, object.size)));

    expect(object.size).toBeLessThan(4 * 1024 * 1024);
    expect(reader.requests).toBe(1);
  });

  it('refuses to read a window of an archive replaced since the split', async () => {
    const object = await objectVersion();
    const stale = { ...object, etag: '"0123456789abcdef0123456789abcdef"' };

    await expect(collect(readAccountsEntries(zipEntriesIn(new S3RangeReader(stale), object.size)))).rejects.toMatchObject({
      name: 'PreconditionFailed',
    });
  });
});
