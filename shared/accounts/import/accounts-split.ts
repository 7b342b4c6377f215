import { HeadObjectCommand } from '@aws-sdk/client-s3';
import type { ImportObjects } from '../../register/import/s3-objects';
import { zipDirectory } from '../../register/import/zip-entries';
import { accountsManifestKeyOf, parseArchiveKey } from './accounts-object-keys';
import { S3RangeReader } from './s3-range-reader';

/**
 * Entries one item of the Distributed Map reads and imports: at the reader's 140 to 200 filings a
 * second, a few seconds of work, well inside a Lambda's minutes, and a monthly file's some 600 items.
 */
export const ENTRIES_PER_ITEM = 500;

/** One item of the Distributed Map: a window of the archive's central directory, read on its own. */
export interface AccountsManifestItem {
  /** The window's first record, counted from the directory's start (for naming it). */
  readonly first: number;
  readonly count: number;
  /** Where its first record lies in the archive. */
  readonly directoryOffset: number;
}

/** What the split hands the state machine: small, since a state's payload is at most 256 KiB. */
export interface AccountsSplitOutcome {
  readonly importId: string;
  readonly archive: string;
  /** The archive's size and version: every item reads this version and no other. */
  readonly size: number;
  readonly etag: string;
  /** Records in the central directory (folders included, which no item yields). */
  readonly records: number;
  readonly items: number;
  readonly manifestKey: string;
}

/**
 * The first step of an accounts import: the archive's central directory read from S3 by ranged GETs
 * (never the whole archive), cut into windows of ENTRIES_PER_ITEM records, and the manifest of
 * windows written for the Distributed Map.
 */
export async function splitAccountsArchive(
  objects: ImportObjects,
  key: string,
  entriesPerItem = ENTRIES_PER_ITEM,
): Promise<AccountsSplitOutcome> {
  const { importId, archive } = parseArchiveKey(key);
  const head = await objects.s3.send(new HeadObjectCommand({ Bucket: objects.bucket, Key: key }));
  const size = head.ContentLength ?? 0;
  const etag = head.ETag ?? '';
  const reader = new S3RangeReader({ s3: objects.s3, bucket: objects.bucket, key, size, etag });
  const items: AccountsManifestItem[] = [];
  let records = 0;
  for await (const record of zipDirectory(reader, size)) {
    if (records % entriesPerItem === 0) items.push({ first: records, count: 0, directoryOffset: record.offset });
    const last = items[items.length - 1] as AccountsManifestItem;
    items[items.length - 1] = { ...last, count: last.count + 1 };
    records++;
  }
  const manifestKey = accountsManifestKeyOf(importId);
  await objects.putJson(manifestKey, items);
  return { importId, archive, size, etag, records, items: items.length, manifestKey };
}
