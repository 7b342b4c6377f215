import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import yazl from 'yazl';
import { DEMO_ACCOUNTS_PREFIX } from '../shared/accounts/import/import-filings';
import type { ProfileContent } from '../shared/companies/profile';
import { daysBetween } from '../shared/register/calendar';
import { renderDemoAccounts } from './accounts-filings-document';
import { type DemoAccounts, type DemoAccountsKind, demoAccountsFigures } from './accounts-filings-figures';
import { accountsPeriodsOf, type DemoAccountsCompany, type DemoAccountsPeriods } from './accounts-filings-periods';

/**
 * A demo day of the Companies House Accounts Data Product for the local runtime: one zip named as
 * the register names its daily files, holding a set of invented accounts, in the register's own
 * inline XBRL format, for each GB company whose register facts say it filed accounts. Real
 * accounts cannot be downloaded here; these read through the same reader as real ones.
 */

export { DEMO_NOTICE } from './accounts-filings-document';
export { type DemoAccounts, type DemoAccountsKind, demoAccountsKind } from './accounts-filings-figures';
export type { AccountsPeriod, DemoAccountsCompany, DemoAccountsPeriods } from './accounts-filings-periods';
export { accountsPeriodsOf } from './accounts-filings-periods';

/** The figures and document of one company's demo accounts. */
export interface DemoAccountsFiling {
  /** Prod223_<run>_<companyNumber>_<YYYYMMDD>.html, the date being the balance-sheet date. */
  readonly entryName: string;
  readonly companyNumber: string;
  readonly balanceSheetDate: string;
  readonly accounts: DemoAccounts;
  readonly document: string;
}

/** What writeDemoAccountsZip wrote. */
export interface DemoAccountsZip {
  /** The zip's path: `<folder>/Bureau_Demo_Accounts-<today>.zip`. */
  readonly path: string;
  readonly entries: readonly {
    readonly entryName: string;
    readonly companyNumber: string;
    readonly balanceSheetDate: string;
    readonly kind: DemoAccountsKind;
  }[];
  /** Companies given. */
  readonly companies: number;
  /** Companies given for which nothing was filed, and why. */
  readonly skipped: readonly { readonly companyNumber: string; readonly reason: string }[];
}

/**
 * The register's facts about a GB profile's accounts, as a demo filing needs them: the made-up
 * date the profile's filing behaviour shows, and the category its overview's provenance names.
 * Undefined for an Irish profile: the Accounts Data Product is Companies House's alone.
 */
export function demoAccountsCompanyOf(profile: ProfileContent): DemoAccountsCompany | undefined {
  if (profile.jurisdiction !== 'GB') return undefined;
  const madeUpTo = profile.filingBehaviour.lastAccountsMadeUpTo ?? null;
  const category = profile.overview.provenance?.facts['Accounts.AccountCategory'] ?? null;
  return {
    companyNumber: profile.companyNumber,
    name: profile.name,
    companyType: profile.overview.companyType,
    incorporatedOn: profile.overview.incorporatedOn,
    status: profile.tradingStatus.status,
    lastAccounts: madeUpTo ? { madeUpTo, category } : null,
  };
}

/** The run number in the entry names of one day's file: the register numbers its runs, one a day. */
const runOf = (today: string) => 1000 + daysBetween('2016-01-01', today);

export const demoAccountsArchiveName = (today: string) => `${DEMO_ACCOUNTS_PREFIX}${today}.zip`;

export const demoAccountsEntryName = (companyNumber: string, balanceSheetDate: string, today: string) =>
  `Prod223_${runOf(today)}_${companyNumber}_${balanceSheetDate.replace(/-/g, '')}.html`;

/** The figures of a company's demo accounts for these periods. */
export function demoAccounts(company: DemoAccountsCompany, periods: DemoAccountsPeriods): DemoAccounts {
  return demoAccountsFigures(company, periods);
}

/** The XHTML of a company's demo accounts for these periods, approved no later than `today`. */
export function demoAccountsDocument(company: DemoAccountsCompany, periods: DemoAccountsPeriods, today: string): string {
  return renderDemoAccounts(company, demoAccountsFigures(company, periods), today);
}

/**
 * The demo accounts a company's register facts say it filed, as of `today`: its last accounts,
 * made up to the date the register gives. A reason instead where the register lists none, or lists
 * a date that cannot be filed yet.
 */
export function demoAccountsFiling(
  company: DemoAccountsCompany,
  today: string,
): { readonly ok: true; readonly filing: DemoAccountsFiling } | { readonly ok: false; readonly reason: string } {
  const reading = accountsPeriodsOf(company, today);
  if (!reading.ok) return reading;
  const accounts = demoAccountsFigures(company, reading.periods);
  const balanceSheetDate = reading.periods.current.end;
  return {
    ok: true,
    filing: {
      entryName: demoAccountsEntryName(company.companyNumber, balanceSheetDate, today),
      companyNumber: company.companyNumber,
      balanceSheetDate,
      accounts,
      document: renderDemoAccounts(company, accounts, today),
    },
  };
}

/**
 * Writes `<folder>/Bureau_Demo_Accounts-<today>.zip`: the demo accounts of every company given whose
 * register facts say it filed accounts, in company-number order. The same companies and day give
 * the same bytes (entries are dated at midnight of `today`).
 */
export async function writeDemoAccountsZip(
  folder: string,
  companies: Iterable<DemoAccountsCompany>,
  today: string,
): Promise<DemoAccountsZip> {
  const given = [...companies].sort((a, b) => (a.companyNumber < b.companyNumber ? -1 : a.companyNumber > b.companyNumber ? 1 : 0));
  const path = join(folder, demoAccountsArchiveName(today));
  const zip = new yazl.ZipFile();
  // Midnight of today by the local clock, as DOS timestamps are read, and no Unix timestamp beside it:
  // the bytes do not depend on the machine's time zone.
  const [year, month, day] = today.split('-').map(Number) as [number, number, number];
  const mtime = new Date(year, month - 1, day);
  const entries: DemoAccountsZip['entries'][number][] = [];
  const skipped: DemoAccountsZip['skipped'][number][] = [];
  const seen = new Set<string>();
  for (const company of given) {
    if (seen.has(company.companyNumber)) {
      skipped.push({ companyNumber: company.companyNumber, reason: 'the company was given more than once' });
      continue;
    }
    seen.add(company.companyNumber);
    const outcome = demoAccountsFiling(company, today);
    if (!outcome.ok) {
      skipped.push({ companyNumber: company.companyNumber, reason: outcome.reason });
      continue;
    }
    const { filing } = outcome;
    zip.addBuffer(Buffer.from(filing.document, 'utf8'), filing.entryName, { mtime, mode: 0o100644, forceDosTimestamp: true });
    entries.push({
      entryName: filing.entryName,
      companyNumber: filing.companyNumber,
      balanceSheetDate: filing.balanceSheetDate,
      kind: filing.accounts.kind,
    });
  }
  await mkdir(folder, { recursive: true });
  await new Promise<void>((resolve, reject) => {
    const out = createWriteStream(path);
    out.on('close', resolve).on('error', reject);
    zip.outputStream.on('error', reject).pipe(out);
    zip.end();
  });
  return { path, entries, companies: given.length, skipped };
}
