import type { TradingStatus } from '../shared/companies/profile';
import { addDays, addMonths } from '../shared/register/calendar';

/**
 * Which accounts a company's register facts say it filed, and the periods they cover. A demo
 * filing is only made for accounts the register lists: the balance-sheet date is the register's
 * "last accounts made up to", never one Bureau guesses.
 */

/** What the demo accounts of one GB company are drawn from: its register facts. */
export interface DemoAccountsCompany {
  readonly companyNumber: string;
  readonly name: string;
  /** The register's type code, as profiles carry it: ltd, plc, llp, private-limited-guarant-nsc, … */
  readonly companyType: string;
  readonly incorporatedOn: string | null;
  readonly status: TradingStatus['status'];
  /**
   * The latest accounts the register lists: the day they were made up to, and their category as
   * the streaming API (micro-entity) or the bulk file (MICRO ENTITY) writes it. Null when none.
   */
  readonly lastAccounts: { readonly madeUpTo: string; readonly category: string | null } | null;
}

export interface AccountsPeriod {
  /** ISO dates, both inclusive. */
  readonly start: string;
  readonly end: string;
}

/** The period the accounts cover and, from the second accounts on, the period they compare with. */
export interface DemoAccountsPeriods {
  readonly current: AccountsPeriod;
  readonly prior?: AccountsPeriod;
  /** Every period from the first accounts to these: figures carry forward from one to the next. */
  readonly history: readonly AccountsPeriod[];
}

export type PeriodsReading = { readonly ok: true; readonly periods: DemoAccountsPeriods } | { readonly ok: false; readonly reason: string };

/** Register categories that are not a year's accounts of a company, or say that there are none. */
const NOT_ANNUAL_ACCOUNTS = new Set(['NO ACCOUNTS FILED', 'INITIAL', 'INTERIM']);

/** The register's category the way the bulk file writes it: the API's `micro-entity` is `MICRO ENTITY`. */
export const categoryLabel = (category: string | null): string | null =>
  category === null || category.trim() === '' ? null : category.trim().replace(/-/g, ' ').toUpperCase();

const isMonthEnd = (date: string) => addDays(date, 1).slice(8, 10) === '01';
const monthEnd = (date: string) => addDays(addMonths(`${date.slice(0, 7)}-01`, 1), -1);

/** Twelve months before a period's end: a month's last day stays a month's last day. */
const yearBefore = (end: string) => (isMonthEnd(end) ? monthEnd(addMonths(end, -12)) : addMonths(end, -12));

/**
 * Whether a period ending on `end` can be a company's first: a first accounting reference period
 * runs from incorporation to an accounting reference date six to eighteen months on (Companies Act
 * 2006, s.391). Stepping back a year at a time from the made-up date, the first period is the
 * earliest that still lasts six months, which leaves it under eighteen.
 */
const couldBeFirst = (end: string, incorporatedOn: string) => end >= addMonths(incorporatedOn, 6);

/**
 * The periods of the accounts a company's register facts say it filed, as of `today`: the first
 * accounts run from incorporation to their made-up date (its accounting reference date, the end of
 * the month a year on unless the company moved it); later ones cover the twelve months to it and
 * compare with the period before. Nothing is filed for a company the register lists no accounts
 * for, nor for a made-up date after today or before incorporation.
 */
export function accountsPeriodsOf(company: DemoAccountsCompany, today: string): PeriodsReading {
  const last = company.lastAccounts;
  if (!last) return { ok: false, reason: 'the register lists no accounts for the company' };
  const category = categoryLabel(last.category);
  if (category && NOT_ANNUAL_ACCOUNTS.has(category)) return { ok: false, reason: `the register's accounts category is ${category}` };
  if (!company.incorporatedOn) return { ok: false, reason: 'the register gives no incorporation date' };
  if (!/^\d{4}-\d{2}-\d{2}$/.test(last.madeUpTo)) return { ok: false, reason: `"${last.madeUpTo}" is not a date` };
  if (last.madeUpTo > today) return { ok: false, reason: `the accounts are made up to ${last.madeUpTo}, after ${today}` };
  if (last.madeUpTo <= company.incorporatedOn) {
    return { ok: false, reason: `the accounts are made up to ${last.madeUpTo}, not after incorporation on ${company.incorporatedOn}` };
  }
  const ends = [last.madeUpTo];
  for (let earlier = yearBefore(last.madeUpTo); couldBeFirst(earlier, company.incorporatedOn); earlier = yearBefore(earlier)) {
    ends.unshift(earlier);
  }
  const history = ends.map((end, index) => ({
    start: index === 0 ? (company.incorporatedOn as string) : addDays(ends[index - 1] as string, 1),
    end,
  }));
  const current = history[history.length - 1] as AccountsPeriod;
  const prior = history[history.length - 2];
  return { ok: true, periods: { current, ...(prior ? { prior } : {}), history } };
}
