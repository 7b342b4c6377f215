import type { CompanyStore } from '../../companies/company-store';
import type { ImportObjects } from '../../register/import/s3-objects';
import { zipEntriesIn } from '../../register/import/zip-entries';
import { readAccountsEntries } from '../read-archive';
import type { AccountsManifestItem } from './accounts-split';
import { type AccountsImportReport, importAccountFilings } from './import-filings';
import { S3RangeReader } from './s3-range-reader';

/** What the Distributed Map hands one item: its window, and the archive it is a window of. */
export interface AccountsItemInput {
  readonly key: string;
  readonly archive: string;
  readonly size: number;
  readonly etag: string;
  readonly item: AccountsManifestItem;
}

/** What one item did: the summary adds these up. */
export interface AccountsItemResult {
  readonly item: AccountsManifestItem;
  readonly report: AccountsImportReport;
  readonly milliseconds: number;
  /** Ranged GETs the item sent to read its window. */
  readonly requests: number;
}

/**
 * One item of an accounts import: its window of the archive's central directory, and the entries it
 * names, read from S3 by ranged GETs and stored as figures by the same use case as an import of the
 * archive from disk (importAccountFilings over readAccountsZip). Running an item twice stores nothing new the second time (a filing already held changes
 * nothing), so the Map may retry it.
 */
export async function importAccountsItem(
  objects: ImportObjects,
  store: CompanyStore,
  input: AccountsItemInput,
): Promise<AccountsItemResult> {
  const started = Date.now();
  const reader = new S3RangeReader({ s3: objects.s3, bucket: objects.bucket, key: input.key, size: input.size, etag: input.etag });
  const entries = zipEntriesIn(reader, input.size, { offset: input.item.directoryOffset, count: input.item.count });
  const report = await importAccountFilings(readAccountsEntries(entries), store, {
    archive: input.archive,
    feed: 'companies-house-accounts-data',
  });
  return { item: input.item, report, milliseconds: Date.now() - started, requests: reader.requests };
}
