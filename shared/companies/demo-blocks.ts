import type {
  CreditCapacity,
  EarlySignal,
  EarlySignals,
  FilingBehaviour,
  Jurisdiction,
  Overview,
  ProfileContent,
  RiskOfFailure,
  TradingStatus,
} from './profile';

/**
 * Demo values for the blocks the public registers do not publish (size, filing behaviour, risk of
 * failure, credit capacity, early signals). They are derived, deterministically, from the register
 * facts and the company number: the same facts, seed and assessment date always give the same
 * blocks, so re-importing the same file changes nothing and raises no events. Profiles carrying
 * them are labelled dataSource 'demo'.
 */

/** The register facts a profile is built from. */
export type RegisterFacts = Pick<ProfileContent, 'jurisdiction' | 'companyNumber' | 'name' | 'tradingStatus'> &
  Pick<Overview, 'companyType' | 'companySubtype' | 'incorporatedOn' | 'dissolvedOn' | 'sicCodes' | 'registeredOffice'>;

export type DemoOverview = Pick<Overview, 'sizeBand' | 'complexity' | 'maturity' | 'employeesBand'>;

export interface DemoBlocks {
  readonly overview: DemoOverview;
  readonly filingBehaviour: FilingBehaviour;
  readonly riskOfFailure: RiskOfFailure;
  readonly creditCapacity: CreditCapacity;
  readonly earlySignals: EarlySignals;
}

/**
 * The date demo assessments are made as of. Fixed rather than "today" so that derived values do not
 * drift from one import to the next.
 */
export const DEMO_AS_OF = '2025-06-30';

// ---------------------------------------------------------------------------------------------
// Seeded randomness

/** 32-bit FNV-1a: spreads similar keys ("…0001", "…0002") over unrelated seeds. */
function hash32(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) {
    hash ^= key.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  weighted<T>(choices: readonly (readonly [T, number])[]): T;
}

/** mulberry32 seeded with a hash of the key: small, fast, and good enough for demo data. */
export function seededRandom(key: string): Random {
  let state = hash32(key);
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const random: Random = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (probability) => next() < probability,
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
    weighted: (choices) => {
      const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
      let point = next() * total;
      for (const [choice, weight] of choices) {
        point -= weight;
        if (point < 0) return choice;
      }
      return (choices[choices.length - 1] as (typeof choices)[number])[0];
    },
  };
  return random;
}

// ---------------------------------------------------------------------------------------------
// Calendar arithmetic on ISO dates (UTC, no time zones involved)

const twoDigits = (value: number) => (value < 10 ? `0${value}` : String(value));

// Dates are handled as day numbers (days since 1970-01-01) with the civil-calendar algorithms of
// H. Hinnant: parsing and formatting through Date was most of the cost of generating a profile.

function dayNumber(isoDate: string): number {
  const month = Number(isoDate.slice(5, 7));
  const year = Number(isoDate.slice(0, 4)) - (month <= 2 ? 1 : 0);
  const era = Math.floor(year / 400);
  const yearOfEra = year - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + Number(isoDate.slice(8, 10)) - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function isoDateOf(days: number): string {
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex + (monthIndex < 10 ? 3 : -9);
  return `${yearOfEra + era * 400 + (month <= 2 ? 1 : 0)}-${twoDigits(month)}-${twoDigits(day)}`;
}

export function addDays(isoDate: string, days: number): string {
  return isoDateOf(dayNumber(isoDate) + days);
}

const daysInMonth = (year: number, month: number) =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/** Adds calendar months, clamping to the month's last day (31 January + 1 month = 28/29 February). */
export function addMonths(isoDate: string, months: number): string {
  const monthIndex = Number(isoDate.slice(0, 4)) * 12 + Number(isoDate.slice(5, 7)) - 1 + months;
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex - year * 12 + 1;
  const day = Math.min(Number(isoDate.slice(8, 10)), daysInMonth(year, month));
  return `${year}-${twoDigits(month)}-${twoDigits(day)}`;
}

export const daysBetween = (from: string, to: string) => dayNumber(to) - dayNumber(from);
const minDate = (a: string, b: string) => (a < b ? a : b);

/** A moment inside the given day, as an ISO 8601 UTC instant without milliseconds. */
function instantOn(isoDate: string, random: Random): string {
  const seconds = random.int(7 * 3600, 19 * 3600);
  return `${isoDate}T${twoDigits(Math.floor(seconds / 3600))}:${twoDigits(Math.floor(seconds / 60) % 60)}:${twoDigits(seconds % 60)}Z`;
}

// ---------------------------------------------------------------------------------------------
// Overview

const ENDED_STATUSES = new Set<TradingStatus['status']>(['dissolved', 'closed', 'converted', 'removed', 'ceased']);
const INSOLVENT_STATUSES = new Set<TradingStatus['status']>(['liquidation', 'administration', 'receivership', 'insolvency_proceedings']);
const LARGE_ENTITY_TYPES = new Set([
  'plc',
  'uk-establishment',
  'oversea-company',
  'registered-overseas-entity',
  'european-public-limited-liability-company-se',
]);
const PARTNERSHIP_TYPES = new Set(['llp', 'limited-partnership', 'scottish-partnership']);

const EMPLOYEES_BY_SIZE: Readonly<Record<Overview['sizeBand'], string>> = {
  micro: '0-9',
  small: '10-49',
  medium: '50-249',
  large: '250+',
};

function maturityAt(incorporatedOn: string | null, asOf: string): Overview['maturity'] {
  if (!incorporatedOn) return 'established';
  const years = daysBetween(incorporatedOn, asOf) / 365.25;
  if (years < 1) return 'new';
  if (years < 3) return 'young';
  if (years < 10) return 'established';
  return 'mature';
}

function sizeBandOf(facts: RegisterFacts, maturity: Overview['maturity'], random: Random): Overview['sizeBand'] {
  if (LARGE_ENTITY_TYPES.has(facts.companyType)) {
    return random.weighted([
      ['small', 0.25],
      ['medium', 0.4],
      ['large', 0.35],
    ]);
  }
  if (maturity === 'new')
    return random.weighted([
      ['micro', 0.9],
      ['small', 0.1],
    ]);
  if (PARTNERSHIP_TYPES.has(facts.companyType)) {
    return random.weighted([
      ['micro', 0.5],
      ['small', 0.35],
      ['medium', 0.12],
      ['large', 0.03],
    ]);
  }
  const mature = maturity === 'mature';
  return random.weighted([
    ['micro', mature ? 0.6 : 0.78],
    ['small', mature ? 0.28 : 0.18],
    ['medium', mature ? 0.09 : 0.035],
    ['large', mature ? 0.03 : 0.005],
  ]);
}

const COMPLEXITY_LEVELS: readonly Overview['complexity'][] = ['simple', 'moderate', 'complex'];

function complexityOf(facts: RegisterFacts, sizeBand: Overview['sizeBand']): Overview['complexity'] {
  const base = { micro: 0, small: 0, medium: 1, large: 2 }[sizeBand];
  const structural = LARGE_ENTITY_TYPES.has(facts.companyType) || PARTNERSHIP_TYPES.has(facts.companyType) || facts.sicCodes.length >= 3;
  return COMPLEXITY_LEVELS[Math.min(2, base + (structural ? 1 : 0))] as Overview['complexity'];
}

// ---------------------------------------------------------------------------------------------
// Filing behaviour

/** When accounts and the yearly statement fall due, simplified from each register's rules. */
interface FilingCycle {
  /** Months from incorporation to the first accounts deadline. */
  readonly firstAccountsDueMonths: number;
  /** Months from incorporation to the first confirmation statement (GB) or annual return (IE). */
  readonly firstStatementMonths: number;
  /** Days allowed after the statement date to deliver it. */
  readonly statementGraceDays: number;
}

const FILING_CYCLES: Readonly<Record<Jurisdiction, FilingCycle>> = {
  // Companies Act 2006: first accounts 21 months after incorporation, then 9 months after each
  // year end; confirmation statement yearly, 14 days to deliver.
  GB: { firstAccountsDueMonths: 21, firstStatementMonths: 12, statementGraceDays: 14 },
  // Companies Act 2014: first annual return 6 months after incorporation, accounts annexed from the
  // second return on; 28 days to deliver.
  IE: { firstAccountsDueMonths: 18, firstStatementMonths: 6, statementGraceDays: 28 },
};

/**
 * The recent yearly deadlines that have passed by the given date, each as [period date, due date]:
 * at least the last six years' worth, or all of them for a younger company.
 */
function recentDeadlines(first: string, graceDays: number, until: string): (readonly [string, string])[] {
  const yearsElapsed = Number(until.slice(0, 4)) - Number(first.slice(0, 4));
  // Start a little before the recent past rather than walking every year since incorporation.
  const start = Math.max(0, yearsElapsed - 7);
  const recent: (readonly [string, string])[] = [];
  for (let index = start; ; index++) {
    const period = addMonths(first, index * 12);
    const due = addDays(period, graceDays);
    if (due > until) return recent;
    recent.push([period, due]);
  }
}

function filingBehaviourOf(facts: RegisterFacts, asOf: string, random: Random): FilingBehaviour {
  const ended = ENDED_STATUSES.has(facts.tradingStatus.status);
  const until = ended && facts.dissolvedOn ? minDate(facts.dissolvedOn, asOf) : asOf;
  const incorporatedOn = facts.incorporatedOn ?? addMonths(asOf, -60);
  const cycle = FILING_CYCLES[facts.jurisdiction];

  const accountsDeadlines = recentDeadlines(addMonths(incorporatedOn, cycle.firstAccountsDueMonths), 0, until).map(([, due]) => due);
  const statementDeadlines = recentDeadlines(addMonths(incorporatedOn, cycle.firstStatementMonths), cycle.statementGraceDays, until);
  const lastAccountsDue = accountsDeadlines.at(-1);
  const lastStatement = statementDeadlines.at(-1);

  const consistency: FilingBehaviour['consistency'] = lastAccountsDue
    ? random.weighted([
        ['consistent', 0.6],
        ['mostly_consistent', 0.25],
        ['inconsistent', 0.15],
      ])
    : 'no_history';
  const overdueChance = { consistent: 0, mostly_consistent: 0.1, inconsistent: 0.5, no_history: 0.04 }[consistency];
  const accountsOverdue = !ended && lastAccountsDue !== undefined && random.chance(overdueChance);
  const confirmationStatementOverdue = !ended && lastStatement !== undefined && random.chance(overdueChance);

  const fiveYearsAgo = addMonths(until, -60);
  const deadlinesInFiveYears =
    accountsDeadlines.filter((due) => due >= fiveYearsAgo).length + statementDeadlines.filter(([, due]) => due >= fiveYearsAgo).length;
  const lateFilings = { consistent: 0, mostly_consistent: 1, inconsistent: random.int(2, 4), no_history: 0 }[consistency];

  // A filing made on time lands between the end of the period and the deadline.
  const filedBefore = (due: string) => addDays(due, -random.int(0, 60));
  const accountsFiled = accountsOverdue ? accountsDeadlines.slice(0, -1) : accountsDeadlines;
  const statementsFiled = confirmationStatementOverdue ? statementDeadlines.slice(0, -1) : statementDeadlines;
  const lastFiledAccountsDue = accountsFiled.at(-1);
  const lastFiledStatement = statementsFiled.at(-1);

  let nextAccountsDueOn: string | null = null;
  if (!ended) {
    if (accountsOverdue) nextAccountsDueOn = lastAccountsDue ?? null;
    else nextAccountsDueOn = lastAccountsDue ? addMonths(lastAccountsDue, 12) : addMonths(incorporatedOn, cycle.firstAccountsDueMonths);
  }

  return {
    consistency,
    lastAccountsFiledOn: lastFiledAccountsDue ? filedBefore(lastFiledAccountsDue) : null,
    lastConfirmationStatementOn: lastFiledStatement ? lastFiledStatement[0] : null,
    nextAccountsDueOn,
    accountsOverdue,
    confirmationStatementOverdue,
    lateFilingsLast5Years: Math.min(lateFilings, deadlinesInFiveYears),
  };
}

// ---------------------------------------------------------------------------------------------
// Risk of failure

function riskLevelOf(score: number): RiskOfFailure['level'] {
  if (score >= 85) return 'Severe';
  if (score >= 55) return 'High';
  if (score >= 30) return 'Moderate';
  return 'Low';
}

const isStrikeOffProposed = (status: TradingStatus) => /strike[\s-]*off/i.test(status.registerStatus);

function riskOf(
  facts: RegisterFacts,
  maturity: Overview['maturity'],
  filing: FilingBehaviour,
  asOf: string,
  random: Random,
): RiskOfFailure {
  const { status } = facts.tradingStatus;
  const assessed = (score: number, drivers: string[]): RiskOfFailure => ({ level: riskLevelOf(score), score, assessedOn: asOf, drivers });

  if (ENDED_STATUSES.has(status)) return assessed(100, [`The company is ${status} on the register`]);
  if (INSOLVENT_STATUSES.has(status)) return assessed(random.int(90, 99), [`Insolvency: ${facts.tradingStatus.registerStatus}`]);
  if (status === 'voluntary_arrangement') return assessed(random.int(70, 84), ['A voluntary arrangement with creditors is in place']);

  const drivers: string[] = [];
  // Most companies score low: the square skews the draw towards the bottom of the range.
  let score = 5 + Math.round(random.next() ** 2 * 35);
  const add = (points: number, driver: string) => {
    score += points;
    drivers.push(driver);
  };
  if (isStrikeOffProposed(facts.tradingStatus)) add(45, 'A proposal to strike the company off the register has been published');
  if (maturity === 'new') add(15, 'Incorporated less than a year ago');
  else if (maturity === 'young') add(8, 'Less than three years of trading history');
  else if (maturity === 'mature') score -= 5;
  if (status === 'dormant') add(10, 'The company is dormant');
  if (filing.accountsOverdue) add(20, 'Accounts are overdue');
  if (filing.confirmationStatementOverdue) add(10, 'The yearly statement to the register is overdue');
  if (filing.lateFilingsLast5Years > 0)
    add(6 * filing.lateFilingsLast5Years, `${filing.lateFilingsLast5Years} late filing(s) in the last five years`);
  if (drivers.length === 0) drivers.push('No adverse indicators');
  // Only an insolvency or the end of the company makes the risk Severe.
  return assessed(Math.max(1, Math.min(84, score)), drivers);
}

// ---------------------------------------------------------------------------------------------
// Credit capacity

/** Ranges of the credit limit, in major units, before adjusting for risk. */
const CREDIT_RANGES: Readonly<Record<Overview['sizeBand'], readonly [number, number]>> = {
  micro: [500, 15_000],
  small: [15_000, 150_000],
  medium: [150_000, 1_500_000],
  large: [1_500_000, 20_000_000],
};

/** Rounds to two significant figures, as credit limits are quoted. */
const roundLimit = (amount: number) => {
  if (amount < 100) return 0;
  const magnitude = 10 ** (Math.floor(Math.log10(amount)) - 1);
  return Math.round(amount / magnitude) * magnitude;
};

function creditCapacityOf(
  facts: RegisterFacts,
  sizeBand: Overview['sizeBand'],
  risk: RiskOfFailure,
  asOf: string,
  random: Random,
): CreditCapacity {
  const currency = facts.jurisdiction === 'GB' ? 'GBP' : 'EUR';
  const money = (major: number) => ({ amountMinor: major * 100, currency }) as const;
  if (risk.level === 'Severe') return { creditLimit: money(0), tradeLimit: money(0), assessedOn: asOf };

  const [low, high] = CREDIT_RANGES[sizeBand];
  // Log-uniform: as many companies near the bottom of a band's range as near its top.
  const base = low * (high / low) ** random.next();
  const riskFactor = (1 - risk.score / 100) ** 1.5;
  const dormancyFactor = facts.tradingStatus.status === 'dormant' ? 0.2 : 1;
  const creditLimit = roundLimit(base * riskFactor * dormancyFactor);
  const tradeLimit = roundLimit(creditLimit * (0.25 + random.next() * 0.25));
  return { creditLimit: money(creditLimit), tradeLimit: money(tradeLimit), assessedOn: asOf };
}

// ---------------------------------------------------------------------------------------------
// Early signals

interface SignalKind {
  readonly kind: string;
  readonly severity: EarlySignal['severity'];
  readonly summary: string;
}

const EVENT_SIGNALS: Readonly<Record<Jurisdiction, readonly (readonly [SignalKind, number])[]>> = {
  GB: [
    [{ kind: 'director_appointed', severity: 'info', summary: 'A director was appointed' }, 4],
    [{ kind: 'director_resigned', severity: 'info', summary: 'A director resigned' }, 3],
    [{ kind: 'registered_office_changed', severity: 'info', summary: 'The registered office address changed' }, 3],
    [{ kind: 'psc_changed', severity: 'info', summary: 'A person with significant control changed' }, 2],
    [{ kind: 'sic_codes_changed', severity: 'info', summary: 'The nature of business changed' }, 1],
    [{ kind: 'charge_registered', severity: 'warning', summary: 'A charge over company assets was registered' }, 2],
    [{ kind: 'charge_satisfied', severity: 'info', summary: 'A charge was satisfied' }, 1],
    [{ kind: 'judgment_registered', severity: 'warning', summary: 'A county court judgment was registered against the company' }, 1],
  ],
  IE: [
    [{ kind: 'director_appointed', severity: 'info', summary: 'A director was appointed' }, 4],
    [{ kind: 'director_resigned', severity: 'info', summary: 'A director resigned' }, 3],
    [{ kind: 'registered_office_changed', severity: 'info', summary: 'The registered office address changed' }, 3],
    [{ kind: 'beneficial_owner_changed', severity: 'info', summary: 'A beneficial owner changed' }, 2],
    [{ kind: 'charge_registered', severity: 'warning', summary: 'A charge over company assets was registered' }, 2],
    [{ kind: 'charge_satisfied', severity: 'info', summary: 'A charge was satisfied' }, 1],
    [{ kind: 'judgment_registered', severity: 'warning', summary: 'A court judgment was registered against the company' }, 1],
  ],
};

/**
 * Register events, numbered sig-<number>-1, -2, … What signal n is depends on the company alone;
 * the seed only decides how many there are and their states, so a new seed replays the same
 * company with signals appearing or changing state, as a live feed would.
 */
function eventSignals(facts: RegisterFacts, asOf: string, random: Random): EarlySignal[] {
  const ended = ENDED_STATUSES.has(facts.tradingStatus.status);
  const from = facts.incorporatedOn ?? addMonths(asOf, -60);
  const until = ended && facts.dissolvedOn ? minDate(facts.dissolvedOn, asOf) : asOf;
  const span = Math.max(0, daysBetween(from, until));
  const count = random.weighted([
    [0, 0.45],
    [1, 0.3],
    [2, 0.17],
    [3, 0.08],
  ]);

  const signals: EarlySignal[] = [];
  for (let n = 1; n <= count; n++) {
    const content = seededRandom(`${facts.jurisdiction}#${facts.companyNumber}#signal#${n}`);
    const { kind, severity, summary } = content.weighted(EVENT_SIGNALS[facts.jurisdiction]);
    const detectedOn = addDays(from, content.int(0, span));
    const detectedAt = instantOn(detectedOn, content);
    const state: EarlySignal['state'] = ended
      ? 'expired'
      : random.weighted([
          ['active', 0.7],
          ['superseded', 0.15],
          ['expired', 0.15],
        ]);
    const changedOn = state === 'active' ? detectedOn : addDays(detectedOn, random.int(0, Math.max(0, daysBetween(detectedOn, until))));
    const updatedAt = state === 'active' ? detectedAt : instantOn(changedOn, random);
    signals.push({
      id: `sig-${facts.companyNumber}-${n}`,
      kind,
      state,
      severity,
      summary,
      detectedAt,
      // biome-ignore lint/complexity/useMathMinMax: ISO instants compare as strings; Math.max would turn them into NaN.
      updatedAt: updatedAt < detectedAt ? detectedAt : updatedAt,
    });
  }
  return signals;
}

/** Signals that follow from the register status and the filing record; one id per kind. */
function conditionSignals(facts: RegisterFacts, filing: FilingBehaviour, asOf: string, random: Random): EarlySignal[] {
  const { status, registerStatus } = facts.tradingStatus;
  const signal = (kind: string, severity: EarlySignal['severity'], summary: string, detectedOn: string): EarlySignal => {
    const detectedAt = instantOn(minDate(detectedOn, asOf), random);
    return { id: `sig-${facts.companyNumber}-${kind}`, kind, state: 'active', severity, summary, detectedAt, updatedAt: detectedAt };
  };
  const recently = () => addDays(asOf, -random.int(1, 90));

  const signals: EarlySignal[] = [];
  if (ENDED_STATUSES.has(status))
    signals.push(signal(status, 'critical', `The company is ${status} on the register`, facts.dissolvedOn ?? recently()));
  if (INSOLVENT_STATUSES.has(status) || status === 'voluntary_arrangement') {
    signals.push(signal('insolvency', 'critical', `Insolvency: ${registerStatus}`, recently()));
  }
  if (isStrikeOffProposed(facts.tradingStatus))
    signals.push(
      signal('strike_off_proposed', 'critical', 'A proposal to strike the company off the register has been published', recently()),
    );
  if (filing.accountsOverdue && filing.nextAccountsDueOn) {
    signals.push(
      signal(
        'accounts_overdue',
        'warning',
        `Accounts due on ${filing.nextAccountsDueOn} have not been filed`,
        addDays(filing.nextAccountsDueOn, 1),
      ),
    );
  }
  if (filing.confirmationStatementOverdue) {
    const statement = facts.jurisdiction === 'GB' ? 'confirmation statement' : 'annual return';
    signals.push(signal('confirmation_statement_overdue', 'warning', `The ${statement} is overdue`, recently()));
  }
  return signals;
}

// ---------------------------------------------------------------------------------------------

/**
 * Derives the demo blocks of one company. Deterministic in (jurisdiction, company number, seed,
 * asOf, facts); a different seed gives the same company another plausible state.
 */
export function deriveDemoBlocks(facts: RegisterFacts, seed = 0, asOf: string = DEMO_AS_OF): DemoBlocks {
  const random = seededRandom(`${facts.jurisdiction}#${facts.companyNumber}#${seed}`);
  const maturity = maturityAt(facts.incorporatedOn, asOf);
  const sizeBand = sizeBandOf(facts, maturity, random);
  const filingBehaviour = filingBehaviourOf(facts, asOf, random);
  const riskOfFailure = riskOf(facts, maturity, filingBehaviour, asOf, random);
  const creditCapacity = creditCapacityOf(facts, sizeBand, riskOfFailure, asOf, random);
  const signals = [...conditionSignals(facts, filingBehaviour, asOf, random), ...eventSignals(facts, asOf, random)].sort((a, b) =>
    a.detectedAt < b.detectedAt ? -1 : a.detectedAt > b.detectedAt ? 1 : 0,
  );
  return {
    overview: { sizeBand, complexity: complexityOf(facts, sizeBand), maturity, employeesBand: EMPLOYEES_BY_SIZE[sizeBand] },
    filingBehaviour,
    riskOfFailure,
    creditCapacity,
    earlySignals: { signals },
  };
}

/** A complete profile: the register facts plus derived demo blocks. */
export function demoProfile(facts: RegisterFacts, seed = 0, asOf: string = DEMO_AS_OF): ProfileContent {
  const demo = deriveDemoBlocks(facts, seed, asOf);
  return {
    jurisdiction: facts.jurisdiction,
    companyNumber: facts.companyNumber,
    name: facts.name,
    dataSource: 'demo',
    overview: {
      companyType: facts.companyType,
      companySubtype: facts.companySubtype,
      incorporatedOn: facts.incorporatedOn,
      dissolvedOn: facts.dissolvedOn,
      sicCodes: facts.sicCodes,
      registeredOffice: facts.registeredOffice,
      ...demo.overview,
    },
    tradingStatus: facts.tradingStatus,
    filingBehaviour: demo.filingBehaviour,
    riskOfFailure: demo.riskOfFailure,
    creditCapacity: demo.creditCapacity,
    earlySignals: demo.earlySignals,
  };
}
