import type { Financials, PeriodFinancials, SizeBand } from '../../companies/profile';
import { daysBetween } from '../calendar';

/**
 * Companies Act 2006 ss. 382–384 and 465–467 with the thresholds as amended for financial years from
 * 6 April 2025 (SI 2024/1303): a company is in a band when at least two of its turnover, balance-sheet
 * total and average employees are within the band's limits. The amended limits are applied to every
 * period, so bands compare across companies whatever year their latest accounts cover.
 */
export const SIZE_THRESHOLDS: ReadonlyArray<{
  readonly band: Exclude<SizeBand, 'large'>;
  /** Pence. */
  readonly turnover: number;
  /** Pence. */
  readonly balanceSheetTotal: number;
  readonly employees: number;
}> = [
  { band: 'micro', turnover: 1_000_000_00, balanceSheetTotal: 500_000_00, employees: 10 },
  { band: 'small', turnover: 15_000_000_00, balanceSheetTotal: 7_500_000_00, employees: 50 },
  { band: 'medium', turnover: 54_000_000_00, balanceSheetTotal: 27_000_000_00, employees: 250 },
];

/** The label of the company's latest accounts in the register, by the size it states; a label missing here says nothing. */
const SIZE_BY_ACCOUNT_CATEGORY: Readonly<Record<string, SizeBand>> = {
  'MICRO ENTITY': 'micro',
  DORMANT: 'micro',
  SMALL: 'small',
  'TOTAL EXEMPTION SMALL': 'small',
  'TOTAL EXEMPTION FULL': 'small',
  'UNAUDITED ABRIDGED': 'small',
  'AUDITED ABRIDGED': 'small',
  'PARTIAL EXEMPTION': 'small',
  MEDIUM: 'medium',
};

/** The regime the filing declares: the directors state the company qualifies for it. Full accounts say nothing of size. */
const SIZE_BY_FILED_TYPE: Readonly<Record<string, SizeBand>> = { 'micro-entity': 'micro', small: 'small', dormant: 'micro' };

export type SizeBasis = 'statutory-test' | 'filed-accounts-type' | 'register-accounts-category';

export interface SizeJudgement {
  readonly band: SizeBand | null;
  readonly basis: SizeBasis | null;
  /** The test's inputs and outcome in words, for the provenance. */
  readonly detail: string | null;
}

interface Criteria {
  readonly turnover?: number;
  readonly balanceSheetTotal?: number;
  readonly employees?: number;
  /** The part of a year the period covers: a short or long period's turnover limit scales with it (s. 382(4)). */
  readonly yearShare: number;
}

/** The part of a year a period covers; 52- and 53-week years and leap years are years. */
export function yearShareOf(period: { readonly periodStart: string | null; readonly periodEnd: string }): number {
  const days = period.periodStart ? daysBetween(period.periodStart, period.periodEnd) + 1 : 365;
  return Math.abs(days - 365) <= 7 ? 1 : days / 365;
}

function criteriaOf(financials: PeriodFinancials): Criteria {
  const gbp = (amount?: { amountMinor: number; currency: string }) => (amount?.currency === 'GBP' ? amount.amountMinor : undefined);
  const fixed = gbp(financials.fixedAssets);
  const current = gbp(financials.currentAssets);
  const yearShare = yearShareOf(financials);
  return {
    turnover: gbp(financials.turnover),
    balanceSheetTotal: fixed !== undefined && current !== undefined ? fixed + current : undefined,
    employees: financials.employees,
    yearShare,
  };
}

type Limits = (typeof SIZE_THRESHOLDS)[number];

/** Whether two of the three figures are within a band's limits, two are beyond them, or the figures cannot tell. */
function withinLimits(criteria: Criteria, limits: Limits): 'within' | 'beyond' | 'unknown' {
  const tests = [
    criteria.turnover === undefined ? undefined : criteria.turnover <= limits.turnover * criteria.yearShare,
    criteria.balanceSheetTotal === undefined ? undefined : criteria.balanceSheetTotal <= limits.balanceSheetTotal,
    criteria.employees === undefined ? undefined : criteria.employees <= limits.employees,
  ];
  if (tests.filter((test) => test === true).length >= 2) return 'within';
  return tests.filter((test) => test === false).length >= 2 ? 'beyond' : 'unknown';
}

/**
 * The smallest band whose limits every one of the criteria is within, or undefined when the figures
 * cannot tell. One set of criteria for a company; the company's and its group's for a parent that
 * prepares group accounts, which qualifies for a band only if its group does too (ss. 383, 466) and
 * is never a micro-entity (s. 384B).
 */
function statutoryBand(...all: Criteria[]): SizeBand | undefined {
  for (const limits of SIZE_THRESHOLDS) {
    if (all.length > 1 && limits.band === 'micro') continue;
    const results = all.map((criteria) => withinLimits(criteria, limits));
    if (results.every((result) => result === 'within')) return limits.band;
    if (!results.includes('beyond')) return undefined;
  }
  return 'large';
}

function criteriaWords(criteria: Criteria): string {
  const pounds = (pence: number) => `£${Math.trunc(pence / 100).toLocaleString('en-GB')}`;
  const parts = [
    criteria.turnover === undefined ? 'turnover not filed' : `turnover ${pounds(criteria.turnover)}`,
    criteria.balanceSheetTotal === undefined
      ? 'balance-sheet total not filed'
      : `balance-sheet total ${pounds(criteria.balanceSheetTotal)}`,
    criteria.employees === undefined ? 'average employees not filed' : `average employees ${criteria.employees}`,
  ];
  return criteria.yearShare === 1 ? parts.join(', ') : `${parts.join(', ')} (a period of ${Math.round(criteria.yearShare * 12)} months)`;
}

/**
 * The size band from the latest filed figures by the statutory test (with its group's for a parent
 * that files group accounts); where they cannot tell, from the kind of accounts the filing declares;
 * only with no figures at all, from the register's label of the latest accounts. Full and group
 * accounts say nothing of size: any company may file them.
 */
export function judgeSize(financials: Financials | undefined, accountsCategory: string | null): SizeJudgement {
  if (financials) {
    const own = criteriaOf(financials);
    const group = financials.group ? criteriaOf(financials.group) : undefined;
    const band = group ? statutoryBand(own, group) : statutoryBand(own);
    const figures = group ? `the group: ${criteriaWords(group)}; the company: ${criteriaWords(own)}` : criteriaWords(own);
    const test = group ? `${figures}; a parent company is judged with its group (ss. 383, 384B, 466)` : figures;
    if (band) return { band, basis: 'statutory-test', detail: test };
    const declared = financials.accountsType ? SIZE_BY_FILED_TYPE[financials.accountsType] : undefined;
    if (declared) {
      return {
        band: declared,
        basis: 'filed-accounts-type',
        detail: `${test}: too few figures for the test; the filing declares ${financials.accountsType} accounts`,
      };
    }
    return { band: null, basis: null, detail: `${test}: too few figures for the test` };
  }
  const band = accountsCategory ? SIZE_BY_ACCOUNT_CATEGORY[accountsCategory] : undefined;
  return band
    ? { band, basis: 'register-accounts-category', detail: `no filed figures; the register's accounts category is ${accountsCategory}` }
    : { band: null, basis: null, detail: null };
}

/** From the average number of employees the accounts report; null when they report none. */
export function employeesBandOf(financials: Financials | undefined): string | null {
  const count = financials?.employees;
  if (count === undefined) return null;
  return count < 10 ? '0-9' : count < 50 ? '10-49' : count < 250 ? '50-249' : '250+';
}
