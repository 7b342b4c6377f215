import { daysBetween } from '../shared/register/calendar';
import { type AccountsPeriod, categoryLabel, type DemoAccountsCompany, type DemoAccountsPeriods } from './accounts-filings-periods';
import { type Random, seededRandom } from './random';

/**
 * Demo figures for a company's accounts: invented, deterministic in the company number and the
 * periods, and as internally consistent as real accounts (the balance sheet balances, and each
 * year's retained earnings are the last year's plus its profit).
 */

/**
 * What kind of accounts are filed: micro-entity (FRS 105, balance sheet only), small with a filleted
 * balance sheet (FRS 102 section 1A, no profit and loss account), small with the profit and loss
 * account, full (FRS 102, for the register's full, medium and group categories) and dormant.
 */
export type DemoAccountsKind = 'micro-entity' | 'small-filleted' | 'small-profit-and-loss' | 'full' | 'dormant';

/** Whole pounds, as the balance sheet shows them. */
export interface BalanceSheet {
  /** Tangible fixed assets, the only class demo companies hold. */
  readonly fixedAssets: number;
  readonly debtors: number;
  readonly cash: number;
  readonly currentAssets: number;
  readonly creditorsWithinOneYear: number;
  readonly netCurrentAssets: number;
  readonly totalAssetsLessCurrentLiabilities: number;
  readonly creditorsAfterOneYear: number;
  readonly netAssets: number;
  readonly shareCapital: number;
  readonly retainedEarnings: number;
  /** Capital and reserves: equal to the net assets. */
  readonly equity: number;
}

export interface ProfitAndLoss {
  readonly turnover: number;
  readonly costOfSales: number;
  readonly grossProfit: number;
  readonly administrativeExpenses: number;
  readonly operatingProfit: number;
  readonly profitBeforeTax: number;
  readonly tax: number;
  readonly profitOrLoss: number;
}

export interface PeriodAccounts {
  readonly period: AccountsPeriod;
  readonly balanceSheet: BalanceSheet;
  /** Worked out for every kind (it is what moves the reserves); shown only where the kind files it. */
  readonly profitAndLoss: ProfitAndLoss;
  readonly employees: number;
}

export interface DemoAccounts {
  readonly kind: DemoAccountsKind;
  readonly current: PeriodAccounts;
  readonly prior?: PeriodAccounts;
}

/** Types whose members hold no shares: guarantee companies and partnerships have no share capital. */
const NO_SHARE_CAPITAL = new Set([
  'llp',
  'limited-partnership',
  'scottish-partnership',
  'private-limited-guarant-nsc',
  'private-limited-guarant-nsc-limited-exemption',
]);
/** Whether the company's members hold shares: the share capital line of its balance sheet. */
export const holdsShares = (companyType: string) => !NO_SHARE_CAPITAL.has(companyType);

const SMALL_CATEGORIES = new Set([
  'SMALL',
  'TOTAL EXEMPTION SMALL',
  'TOTAL EXEMPTION FULL',
  'UNAUDITED ABRIDGED',
  'AUDITED ABRIDGED',
  'AUDIT EXEMPTION SUBSIDIARY',
  'FILING EXEMPTION SUBSIDIARY',
]);
const FULL_CATEGORIES = new Set(['FULL', 'MEDIUM', 'GROUP', 'PARTIAL EXEMPTION']);

/**
 * The kind the register's facts allow, drawn from the company number where they leave a choice: a
 * dormant category or status gets dormant accounts, a micro-entity category micro-entity accounts,
 * a small category small accounts (filleted or with the profit and loss account), a full, medium or
 * group category full accounts; a category the register does not give, mostly micro-entity.
 */
export function demoAccountsKind(company: DemoAccountsCompany): DemoAccountsKind {
  const category = categoryLabel(company.lastAccounts?.category ?? null);
  if (category === 'DORMANT' || company.status === 'dormant') return 'dormant';
  if (category === 'MICRO ENTITY') return 'micro-entity';
  if (category && FULL_CATEGORIES.has(category)) return 'full';
  const random = seededRandom(`demo-accounts-kind:${company.companyNumber}`);
  if (category && SMALL_CATEGORIES.has(category)) return random.chance(0.5) ? 'small-filleted' : 'small-profit-and-loss';
  if (company.companyType === 'plc') return 'full';
  return random.weighted<DemoAccountsKind>([
    ['micro-entity', 0.65],
    ['small-filleted', 0.2],
    ['small-profit-and-loss', 0.15],
  ]);
}

/** What stays the same from one year to the next: the size of the business and how it is doing. */
interface Character {
  readonly shareCapital: number;
  /** A year's turnover, in pounds. */
  readonly turnover: number;
  readonly employees: number;
  /** Loss-making: the profit margin is negative, and the reserves go below nothing. */
  readonly struggling: boolean;
  readonly holdsFixedAssets: boolean;
  /** A loan repayable after more than a year (a start-up loan, a director's loan). */
  readonly longTermLoan: number;
}

function characterOf(company: DemoAccountsCompany, kind: DemoAccountsKind): Character {
  const random = seededRandom(`demo-accounts-character:${company.companyNumber}`);
  const shareCapital = !holdsShares(company.companyType) ? 0 : random.pick([1, 1, 2, 10, 100, 100, 100, 1000]);
  const turnover =
    kind === 'micro-entity' ? random.int(18, 320) * 1000 : kind === 'full' ? random.int(900, 9000) * 1000 : random.int(120, 2400) * 1000;
  const employees = kind === 'micro-entity' ? random.int(0, 6) : kind === 'full' ? random.int(15, 90) : random.int(2, 30);
  return {
    shareCapital,
    turnover,
    employees,
    struggling: random.chance(0.22),
    holdsFixedAssets: random.chance(0.65),
    longTermLoan: random.chance(0.3) ? random.int(5, 50) * 1000 : 0,
  };
}

const share = (amount: number, low: number, high: number, random: Random) => Math.round(amount * (low + (high - low) * random.next()));

function profitAndLossOf(character: Character, period: AccountsPeriod, random: Random): ProfitAndLoss {
  // A first period of 7 or 17 months trades for 7 or 17 months; growth from year to year is modest.
  const months = Math.max(1, Math.round((daysBetween(period.start, period.end) + 1) / 30.44));
  const turnover = share((character.turnover * months) / 12, 0.85, 1.2, random);
  const costOfSales = share(turnover, 0.3, 0.6, random);
  const grossProfit = turnover - costOfSales;
  const margin = character.struggling ? -(0.02 + 0.13 * random.next()) : 0.02 + 0.18 * random.next();
  const operatingProfit = Math.round(turnover * margin);
  const administrativeExpenses = grossProfit - operatingProfit;
  const tax = operatingProfit > 0 ? share(operatingProfit, 0.19, 0.25, random) : 0;
  return {
    turnover,
    costOfSales,
    grossProfit,
    administrativeExpenses,
    operatingProfit,
    profitBeforeTax: operatingProfit,
    tax,
    profitOrLoss: operatingProfit - tax,
  };
}

function tradingBalanceSheet(character: Character, retainedEarnings: number, profitAndLoss: ProfitAndLoss, random: Random): BalanceSheet {
  const netAssets = character.shareCapital + retainedEarnings;
  const creditorsAfterOneYear = character.longTermLoan > 0 ? share(character.longTermLoan, 0.6, 1, random) : 0;
  const totalAssetsLessCurrentLiabilities = netAssets + creditorsAfterOneYear;
  const fixedAssets = character.holdsFixedAssets ? share(profitAndLoss.turnover, 0.02, 0.2, random) : 0;
  const netCurrentAssets = totalAssetsLessCurrentLiabilities - fixedAssets;
  // Creditors of a few weeks' to a few months' costs, and never so few that current assets go below nothing.
  const creditorsWithinOneYear = Math.max(share(profitAndLoss.turnover, 0.05, 0.25, random), -netCurrentAssets + random.int(200, 6000));
  const currentAssets = netCurrentAssets + creditorsWithinOneYear;
  const cash = share(currentAssets, 0.3, 0.85, random);
  return {
    fixedAssets,
    debtors: currentAssets - cash,
    cash,
    currentAssets,
    creditorsWithinOneYear,
    netCurrentAssets,
    totalAssetsLessCurrentLiabilities,
    creditorsAfterOneYear,
    netAssets,
    shareCapital: character.shareCapital,
    retainedEarnings,
    equity: netAssets,
  };
}

/** A dormant company holds the cash its members paid for their shares, and owes nothing. */
function dormantBalanceSheet(shareCapital: number): BalanceSheet {
  return {
    fixedAssets: 0,
    debtors: 0,
    cash: shareCapital,
    currentAssets: shareCapital,
    creditorsWithinOneYear: 0,
    netCurrentAssets: shareCapital,
    totalAssetsLessCurrentLiabilities: shareCapital,
    creditorsAfterOneYear: 0,
    netAssets: shareCapital,
    shareCapital,
    retainedEarnings: 0,
    equity: shareCapital,
  };
}

const NOTHING: ProfitAndLoss = {
  turnover: 0,
  costOfSales: 0,
  grossProfit: 0,
  administrativeExpenses: 0,
  operatingProfit: 0,
  profitBeforeTax: 0,
  tax: 0,
  profitOrLoss: 0,
};

/**
 * The accounts of the periods given, worked out from the first period on so that the second
 * accounts' comparatives are exactly the first accounts' figures.
 */
export function demoAccountsFigures(company: DemoAccountsCompany, periods: DemoAccountsPeriods): DemoAccounts {
  const kind = demoAccountsKind(company);
  const character = characterOf(company, kind);
  let retainedEarnings = 0;
  const years: PeriodAccounts[] = periods.history.map((period) => {
    if (kind === 'dormant') {
      return { period, balanceSheet: dormantBalanceSheet(character.shareCapital), profitAndLoss: NOTHING, employees: 0 };
    }
    const random = seededRandom(`demo-accounts:${company.companyNumber}:${period.end}`);
    const profitAndLoss = profitAndLossOf(character, period, random);
    retainedEarnings += profitAndLoss.profitOrLoss;
    return {
      period,
      balanceSheet: tradingBalanceSheet(character, retainedEarnings, profitAndLoss, random),
      profitAndLoss,
      employees: Math.max(0, character.employees + random.int(-1, 2)),
    };
  });
  const current = years[years.length - 1] as PeriodAccounts;
  const prior = years[years.length - 2];
  return { kind, current, ...(prior ? { prior } : {}) };
}
