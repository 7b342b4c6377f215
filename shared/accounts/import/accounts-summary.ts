import { type MapRunResults, parsed, readMapRun } from '../../register/import/import-summary';
import type { ImportObjects } from '../../register/import/s3-objects';
import type { AccountsItemInput, AccountsItemResult } from './accounts-item';
import { accountsSummaryKeyOf } from './accounts-object-keys';
import type { AccountsManifestItem, AccountsSplitOutcome } from './accounts-split';
import { type AccountsImportReport, addAccountsReports, emptyAccountsReport } from './import-filings';

/** An item that never ended well: its entries were not read, and it says why. */
export interface FailedAccountsItem extends AccountsManifestItem {
  readonly error: string;
  readonly cause: string;
}

/** summary.json, beside the archive. */
export interface AccountsImportSummary extends Omit<AccountsImportReport, 'rejects'> {
  readonly archiveKey: string;
  readonly archive: string;
  /** Records in the archive's central directory. */
  readonly records: number;
  readonly items: { readonly total: number; readonly succeeded: number; readonly failed: number };
  /** Records of the failed items, none of which was read: counted here, so no entry goes missing from the sum. */
  readonly entriesNotRead: number;
  readonly rejects: AccountsImportReport['rejects'];
  readonly failedItems: readonly FailedAccountsItem[];
  /** Lambda time of the items, summed: what the import cost in compute. */
  readonly itemMilliseconds: number;
}

/** What the state machine carries on. */
export interface AccountsSummaryDigest {
  readonly summaryKey: string;
  readonly failedItems: number;
  readonly filingsRead: number;
  readonly rejected: number;
}

/** Adds the items up in manifest order, and counts what failed items left unread. */
export function summarizeAccounts(input: {
  readonly archiveKey: string;
  readonly split: AccountsSplitOutcome;
  readonly manifest: readonly AccountsManifestItem[];
  readonly succeeded: readonly AccountsItemResult[];
  readonly failed: readonly FailedAccountsItem[];
}): AccountsImportSummary {
  const byFirst = (a: { first: number }, b: { first: number }) => a.first - b.first;
  const succeeded = [...input.succeeded].sort((a, b) => byFirst(a.item, b.item));
  const report = succeeded.reduce((sum, result) => addAccountsReports(sum, result.report), emptyAccountsReport());
  const failedItems = [...input.failed].sort(byFirst);
  return {
    archiveKey: input.archiveKey,
    archive: input.split.archive,
    records: input.split.records,
    items: { total: input.manifest.length, succeeded: succeeded.length, failed: input.manifest.length - succeeded.length },
    ...report,
    entriesNotRead: failedItems.reduce((sum, item) => sum + item.count, 0),
    failedItems,
    itemMilliseconds: succeeded.reduce((sum, result) => sum + result.milliseconds, 0),
  };
}

/**
 * Reads what the map run left in S3, adds it up and writes summary.json beside the archive. An item
 * that never ended well (failed, or still pending when the run stopped) is a failed item, named by
 * its window.
 */
export async function writeAccountsSummary(
  objects: ImportObjects,
  input: { readonly key: string; readonly split: AccountsSplitOutcome; readonly items: MapRunResults },
): Promise<{ digest: AccountsSummaryDigest; summary: AccountsImportSummary }> {
  const { succeeded, unfinished } = await readMapRun<AccountsItemResult>(objects, input.items);
  const failed = unfinished.map((execution): FailedAccountsItem => {
    const { item } = parsed<AccountsItemInput>(execution.Input) ?? { item: { first: -1, count: 0, directoryOffset: -1 } };
    return { ...item, error: execution.Error ?? execution.Status ?? 'unknown', cause: execution.Cause ?? '' };
  });
  const summary = summarizeAccounts({
    archiveKey: input.key,
    split: input.split,
    manifest: await objects.readJson<AccountsManifestItem[]>(input.split.manifestKey),
    succeeded,
    failed,
  });
  const summaryKey = accountsSummaryKeyOf(input.key);
  await objects.putJson(summaryKey, summary);
  return {
    digest: { summaryKey, failedItems: summary.failedItems.length, filingsRead: summary.filingsRead, rejected: summary.rejected },
    summary,
  };
}
