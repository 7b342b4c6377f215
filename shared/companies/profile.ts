/**
 * The company profile as the API serves it (schema: shared/companies/schema/profile.v1.schema.json).
 * The six blocks are top-level sections named exactly as the webhook `block` values.
 */
export type Jurisdiction = 'GB' | 'IE';
export const JURISDICTIONS: readonly Jurisdiction[] = ['GB', 'IE'];

export const BLOCK_NAMES = ['overview', 'tradingStatus', 'filingBehaviour', 'riskOfFailure', 'creditCapacity', 'earlySignals'] as const;
export type BlockName = (typeof BLOCK_NAMES)[number];

export interface Money {
  /** Minor units avoid floating-point money: 1250000 GBP = £12,500.00. */
  readonly amountMinor: number;
  readonly currency: 'GBP' | 'EUR';
}

/**
 * Where a block's values come from, on register profiles: the file, the snapshot, the rule and the
 * facts it read. A block whose derived values do not change keeps its provenance, asOf included.
 */
export type RegisterFile = 'companies-house-basic-company-data' | 'cro-companies';
export type LiveFeed = 'companies-house-streaming-api' | 'bureau-local-stream';

export interface Provenance {
  /**
   * The register file the block's facts come from, or the live feed whose event last changed them:
   * the Companies House Streaming API, or on a local runtime its own register streams (demo activity
   * and replayed recordings), never to be taken for the register.
   */
  readonly source: RegisterFile | LiveFeed;
  /** ISO date of the snapshot the block's current values were derived from. */
  readonly asOf: string;
  readonly rule: string;
  /** By the register's column name as published; names starting `snapshots.` are kept from earlier snapshots. */
  readonly facts: Readonly<Record<string, string | null>>;
}

/** Present on the blocks of profiles whose dataSource is 'register'. */
export interface Traced {
  readonly provenance?: Provenance;
}

export interface PreviousName {
  readonly name: string;
  /** The register's date of change of name: the last day the company went by this one. */
  readonly changedOn: string | null;
}

export type SizeBand = 'micro' | 'small' | 'medium' | 'large';

/** An amount as filed: in the currency of the filing's unit, which is not always pounds or euros. */
export interface FiledAmount {
  /** Hundredths of the currency unit (pence for GBP). */
  readonly amountMinor: number;
  /** ISO 4217 code, from the fact's unit. */
  readonly currency: string;
}

export const FILED_MONEY_FIGURES = [
  'turnover',
  'profitOrLoss',
  'netAssets',
  'totalAssetsLessCurrentLiabilities',
  'currentAssets',
  'creditorsDueWithinOneYear',
  'cash',
  'fixedAssets',
] as const;
export type FiledMoneyFigure = (typeof FILED_MONEY_FIGURES)[number];

/** One period's figures as filed; a figure the filing does not give is absent, never estimated. */
export type PeriodFinancials = {
  /** ISO dates; the start is null where the filing gives no duration for the period. */
  readonly periodStart: string | null;
  readonly periodEnd: string;
  /** The average number of employees in the period, as filed. */
  readonly employees?: number;
} & { readonly [figure in FiledMoneyFigure]?: FiledAmount };

/** Where one figure was read: the filing's entry, the concept as the document names it, the context. */
export interface FigureSource {
  readonly concept: string;
  readonly contextId: string;
}

/** The feeds of filed accounts: Companies House's Accounts Data Product, or a local runtime's demo accounts. */
export type AccountsFeed = 'companies-house-accounts-data' | 'bureau-local-accounts';

export interface FinancialsProvenance {
  readonly source: AccountsFeed;
  /** The archive the filing was read from (e.g. Accounts_Bulk_Data-2026-11-27.zip) and its entry. */
  readonly archive: string;
  readonly entry: string;
  readonly format: 'ixbrl' | 'xbrl';
  /** `<period>.<figure>` (e.g. `current.netAssets`, `prior.employees`, `group.turnover`) → the facts it was read from. */
  readonly figures: Readonly<Record<string, readonly FigureSource[]>>;
}

/** The latest filed accounts Bureau has read for the company. */
export interface Financials extends PeriodFinancials {
  /** The kind of accounts, as the filing declares it; null when it does not. */
  readonly accountsType: 'dormant' | 'micro-entity' | 'small' | 'full' | null;
  /** The comparative figures, where the filing gives them. */
  readonly prior?: PeriodFinancials;
  /**
   * Group accounts: the group's consolidated figures for the same period, where the filing gives
   * them. The figures above are always the company's own.
   */
  readonly group?: PeriodFinancials;
  readonly provenance: FinancialsProvenance;
}

export interface Overview extends Traced {
  /** Register type code, e.g. 'ltd', 'llp', 'dac' (the schema lists every code). */
  readonly companyType: string;
  /** e.g. 'community-interest-company'; null when the register gives none. */
  readonly companySubtype: string | null;
  /** ISO date of incorporation; for entities registered rather than incorporated here, of registration. */
  readonly incorporatedOn: string | null;
  readonly dissolvedOn: string | null;
  /** GB: 5-digit UK SIC 2007 codes; IE: 4-digit NACE Rev. 2 codes. */
  readonly sicCodes: readonly string[];
  readonly registeredOffice: string | null;
  /** Null when the register does not tell (register profiles only). */
  readonly sizeBand: SizeBand | null;
  readonly complexity: 'simple' | 'moderate' | 'complex';
  readonly maturity: 'new' | 'young' | 'established' | 'mature';
  readonly employeesBand: string | null;
  /** Former names, most recent first, when the register lists them. */
  readonly previousNames?: readonly PreviousName[];
  /** The latest filed accounts' figures (register profiles of companies whose accounts Bureau has read). */
  readonly financials?: Financials;
}

export const TRADING_STATUSES = [
  'active',
  'dormant',
  'liquidation',
  'administration',
  'receivership',
  'voluntary_arrangement',
  'insolvency_proceedings',
  'dissolved',
  'ceased',
  'closed',
  'converted',
  'removed',
  'other',
] as const;

export interface TradingStatus extends Traced {
  readonly status: (typeof TRADING_STATUSES)[number];
  /** The register's own label, e.g. "Active - Proposal to Strike off". */
  readonly registerStatus: string;
  readonly since: string | null;
}

export interface FilingBehaviour extends Traced {
  readonly consistency: 'consistent' | 'mostly_consistent' | 'inconsistent' | 'no_history';
  readonly lastAccountsFiledOn: string | null;
  readonly lastConfirmationStatementOn: string | null;
  readonly nextAccountsDueOn: string | null;
  readonly accountsOverdue: boolean;
  readonly confirmationStatementOverdue: boolean;
  readonly lateFilingsLast5Years: number;
  /** End of the financial year the latest accounts cover (register profiles). */
  readonly lastAccountsMadeUpTo?: string | null;
}

export interface RiskOfFailure extends Traced {
  readonly level: 'Low' | 'Moderate' | 'High' | 'Severe';
  /** 0 (no risk seen) to 100 (failure imminent). */
  readonly score: number;
  readonly assessedOn: string;
  readonly drivers: readonly string[];
  /**
   * The score this one replaced, kept by the store (shared/companies/risk-history.ts): absent from a
   * stored item until the score first changes, null in what the API shows.
   */
  readonly previous?: PreviousRisk | null;
}

/** A risk score that a changed one replaced, and when: what a trend is read from. */
export interface PreviousRisk {
  readonly level: RiskOfFailure['level'];
  readonly score: number;
  /** When the store wrote the score that replaced it: the profile's updatedAt of that write. */
  readonly replacedAt: string;
}

/** Why a company has no credit limit: there is no filed figure to judge by, or nothing to extend credit to. */
export const NO_LIMIT_REASONS = ['no_filed_accounts', 'dormant', 'ended', 'figures_in_other_currency'] as const;
export type NoLimitReason = (typeof NO_LIMIT_REASONS)[number];

export interface CreditCapacity extends Traced {
  /** Null when there are no filed figures to judge by; `reason` says why. */
  readonly creditLimit: Money | null;
  readonly tradeLimit: Money | null;
  /** Present when the limits are null. */
  readonly reason?: { readonly code: NoLimitReason; readonly message: string };
  /** How the limit was reached, in words (register profiles). */
  readonly drivers?: readonly string[];
  readonly assessedOn: string;
}

export interface EarlySignal {
  /** Stable across updates: the key that change events use. */
  readonly id: string;
  readonly kind: string;
  readonly state: 'active' | 'superseded' | 'expired';
  readonly severity: 'info' | 'warning' | 'critical';
  readonly summary: string;
  readonly detectedAt: string;
  readonly updatedAt: string;
}

export interface EarlySignals extends Traced {
  readonly signals: readonly EarlySignal[];
}

export interface CompanyProfile {
  readonly jurisdiction: Jurisdiction;
  readonly companyNumber: string;
  readonly name: string;
  /** Monotonic; incremented by every write that changes the content. */
  readonly version: number;
  readonly updatedAt: string;
  /** Where the non-register blocks come from: 'demo' marks derived demo values. */
  readonly dataSource: 'register' | 'demo';
  readonly overview: Overview;
  readonly tradingStatus: TradingStatus;
  readonly filingBehaviour: FilingBehaviour;
  readonly riskOfFailure: RiskOfFailure;
  readonly creditCapacity: CreditCapacity;
  readonly earlySignals: EarlySignals;
}

/** A profile before the store assigns version and updatedAt: what imports produce. */
export type ProfileContent = Omit<CompanyProfile, 'version' | 'updatedAt'>;
