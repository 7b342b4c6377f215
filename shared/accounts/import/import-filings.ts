import type { CompanyStore, StoredDraft, StoredFacts } from '../../companies/company-store';
import type { AccountsFeed, Financials, LiveFeed, ProfileContent } from '../../companies/profile';
import { profileOf } from '../../companies/stored-profile';
import { companiesHouseFacts } from '../../register/companies-house-bulk';
import { ColumnRow, derivedAsOf, storedColumns } from '../../register/facts-as-of';
import { registerProfile } from '../../register/register-profile';
import type { FilingOutcome } from '../filing';
import { figuresOnly, financialsOf } from './financials-of-filing';

export type { AccountsFeed } from '../../companies/profile';

/** What an import of filed accounts did, entry by entry. */
export interface AccountsImportReport {
  /** Entries read, whether or not they gave a filing. */
  readonly filingsRead: number;
  /** Profiles whose figures changed. */
  readonly companiesUpdated: number;
  /** Held companies whose figures were already these, or newer. */
  readonly unchanged: number;
  /** Filings for companies Bureau does not hold as register profiles: counted and skipped. */
  readonly notHeld: number;
  /** Entries the reader refused, or whose figures could not be stored. */
  readonly rejected: number;
  /** The first REJECTS_KEPT of them, by entry name. */
  readonly rejects: readonly { readonly entryName: string; readonly reason: string }[];
}

export interface AccountsImportOptions {
  /** The archive's file name (Accounts_Bulk_Data-2026-11-27.zip): recorded in every figure's provenance. */
  readonly archive: string;
  readonly feed: AccountsFeed;
  /** Profile writes in flight at once. */
  readonly concurrency?: number;
  /** Called after each batch of filings with the counts so far. */
  readonly onProgress?: (report: AccountsImportReport) => void;
  /**
   * Stops the import between batches: the batch in flight is finished, no later filing is read, and
   * the report counts what was done. Reading the file again files the rest and finds the rest unchanged.
   */
  readonly signal?: AbortSignal;
}

/** Files a local runtime generates for its demo companies: their figures are demo values, never the register's. */
export const DEMO_ACCOUNTS_PREFIX = 'Bureau_Demo_Accounts-';

/** The feed an archive's figures are labelled with, by its name. */
export const accountsFeedOf = (archive: string): AccountsFeed =>
  archive.startsWith(DEMO_ACCOUNTS_PREFIX) ? 'bureau-local-accounts' : 'companies-house-accounts-data';

export const REJECTS_KEPT = 100;
const BATCH = 100;

export const emptyAccountsReport = (): AccountsImportReport => ({
  filingsRead: 0,
  companiesUpdated: 0,
  unchanged: 0,
  notHeld: 0,
  rejected: 0,
  rejects: [],
});

export function addAccountsReports(a: AccountsImportReport, b: AccountsImportReport): AccountsImportReport {
  return {
    filingsRead: a.filingsRead + b.filingsRead,
    companiesUpdated: a.companiesUpdated + b.companiesUpdated,
    unchanged: a.unchanged + b.unchanged,
    notHeld: a.notHeld + b.notHeld,
    rejected: a.rejected + b.rejected,
    rejects: [...a.rejects, ...b.rejects].slice(0, REJECTS_KEPT),
  };
}

/** The company is not held as a register profile of Great Britain: nothing to put figures on. */
class NotHeldError extends Error {}

/** The day an archive was published, from its name: a daily file's date, or the last day of a monthly file's month. */
export function archiveDate(archive: string): string | undefined {
  const daily = /(\d{4}-\d{2}-\d{2})/.exec(archive);
  if (daily) return daily[1];
  const monthly = /(January|February|March|April|May|June|July|August|September|October|November|December)(\d{4})/i.exec(archive);
  if (!monthly) return undefined;
  const month = new Date(`${monthly[1]} 1, 2000`).getMonth();
  return new Date(Date.UTC(Number(monthly[2]), month + 1, 0)).toISOString().slice(0, 10);
}

/**
 * Whether a filing's figures replace the held ones: accounts for a later period do; for the same
 * period only different figures from a later file do (amended accounts), so the same filing read
 * again, in the daily file or the month's, changes nothing; an earlier period never does.
 */
export function replacesHeld(incoming: Financials, held: Financials | undefined): boolean {
  if (!held || incoming.periodEnd > held.periodEnd) return true;
  if (incoming.periodEnd < held.periodEnd || figuresOnly(incoming) === figuresOnly(held)) return false;
  const incomingDate = archiveDate(incoming.provenance.archive);
  const heldDate = archiveDate(held.provenance.archive);
  return incomingDate !== undefined && (heldDate === undefined || incomingDate > heldDate);
}

const isLiveFeed = (source: string | undefined): source is LiveFeed =>
  source === 'companies-house-streaming-api' || source === 'bureau-local-stream';

/** The held profile derived again with the figures, by the same rules as a snapshot, as of when it was last derived. */
function withFigures(current: StoredFacts, financials: Financials): ProfileContent {
  const columns = storedColumns(current);
  const asOf = derivedAsOf(current);
  if (!columns || !asOf) throw new NotHeldError();
  if (!replacesHeld(financials, current.overview.financials)) return contentOf(current);
  const via = current.overview.provenance?.source;
  const facts = {
    ...companiesHouseFacts(new ColumnRow({ ...columns, CompanyNumber: current.companyNumber })),
    ...(isLiveFeed(via) ? { via } : {}),
  };
  return registerProfile(facts, asOf, profileOf(current), financials);
}

function contentOf(current: StoredFacts): ProfileContent {
  const { version: _version, updatedAt: _updatedAt, ...content } = profileOf(current);
  return content;
}

function draftOf(companyNumber: string, financials: Financials): StoredDraft {
  const derive = (current: StoredFacts | undefined) => {
    if (current?.dataSource !== 'register') throw new NotHeldError();
    return withFigures(current, financials);
  };
  return {
    jurisdiction: 'GB',
    companyNumber,
    derive,
    // The item's bookkeeping is the register's and the stream's, not the accounts': it is kept as it is.
    deriveStored: (current) => ({
      content: derive(current),
      ...(current?.factsAsOf ? { factsAsOf: current.factsAsOf } : {}),
      ...(current?.registerSnapshot ? { registerSnapshot: current.registerSnapshot } : {}),
    }),
  };
}

/**
 * Stores the figures of each filing in the profile of the company it is for, when Bureau holds the
 * company and the figures are newer than those it holds: the overview, credit capacity and risk
 * are derived again from them, and their changes go out as any other change does.
 */
export async function importAccountFilings(
  filings: AsyncIterable<FilingOutcome>,
  store: CompanyStore,
  options: AccountsImportOptions,
): Promise<AccountsImportReport> {
  let report = emptyAccountsReport();
  const count = (change: Partial<Omit<AccountsImportReport, 'rejects'>>, reject?: { entryName: string; reason: string }) => {
    report = addAccountsReports(report, { ...emptyAccountsReport(), ...change, rejects: reject ? [reject] : [] });
  };
  let batch: { entryName: string; companyNumber: string; financials: Financials }[] = [];

  const flush = async () => {
    if (batch.length === 0) return;
    const pending = batch;
    batch = [];
    const held = await store.getMany(pending.map(({ companyNumber }) => ({ jurisdiction: 'GB', companyNumber })));
    const toSave = pending.filter(({ companyNumber }) => held.get(`GB#${companyNumber}`)?.dataSource === 'register');
    count({ filingsRead: pending.length, notHeld: pending.length - toSave.length });
    const results = await store.saveMany(
      toSave.map(({ companyNumber, financials }) => draftOf(companyNumber, financials)),
      { concurrency: options.concurrency ?? 8 },
    );
    results.forEach((result, index) => {
      const filing = toSave[index] as (typeof toSave)[number];
      if (result.status === 'fulfilled') count(result.value === 'unchanged' ? { unchanged: 1 } : { companiesUpdated: 1 });
      else if (result.reason instanceof NotHeldError) count({ notHeld: 1 });
      else
        count(
          { rejected: 1 },
          { entryName: filing.entryName, reason: `the figures could not be stored (${(result.reason as Error).message})` },
        );
    });
    options.onProgress?.(report);
  };

  for await (const outcome of filings) {
    if (options.signal?.aborted) return report;
    if (!outcome.ok) {
      count({ filingsRead: 1, rejected: 1 }, { entryName: outcome.entryName, reason: outcome.reason });
      continue;
    }
    const { filing } = outcome;
    batch.push({
      entryName: filing.entryName,
      companyNumber: filing.companyNumber,
      financials: financialsOf(filing, options.archive, options.feed),
    });
    if (batch.length >= BATCH) await flush();
  }
  if (!options.signal?.aborted) await flush();
  return report;
}
