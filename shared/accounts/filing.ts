import type { MoneyFigure } from './concepts';
import type { TaxonomyGeneration } from './namespaces';

/** Where a figure was read: the entry, the concept as the document names it, and the context. */
export interface FactProvenance {
  readonly entryName: string;
  /** prefix:localName as written in the document. */
  readonly concept: string;
  readonly namespace: string;
  readonly contextId: string;
}

export interface Money {
  /** Hundredths of the currency unit (pence for GBP). */
  readonly amountMinor: number;
  /** ISO 4217 code from the fact's unit. */
  readonly currency: string;
}

export interface MoneyValue extends Money {
  /** One fact, or the parts of a sum (fixed assets from their classes). */
  readonly provenance: readonly FactProvenance[];
}

export interface EmployeesValue {
  /** Average number of employees in the period, as filed. */
  readonly count: number;
  readonly provenance: readonly FactProvenance[];
}

/** The figures of one period; a figure the filing does not give is absent. */
export type PeriodFigures = {
  /** ISO dates. */
  readonly periodStart?: string;
  readonly periodEnd: string;
  readonly employees?: EmployeesValue;
} & { readonly [figure in MoneyFigure]?: MoneyValue };

export type AccountsType = 'dormant' | 'micro-entity' | 'small' | 'full';

/** The company's current figures, its comparatives, or (group accounts) the group's for the current period. */
export type FigureSet = 'current' | 'prior' | 'group';

/** Facts for one figure that disagree: reported, and the figure left out. */
export interface Conflict {
  readonly figure: MoneyFigure | 'employees';
  readonly period: FigureSet;
  readonly values: readonly { readonly value: string; readonly unit?: string; readonly provenance: FactProvenance }[];
}

export interface AccountsFiling {
  readonly entryName: string;
  readonly companyNumber: string;
  /** ISO date: the end of the current period, as the entry name states and the document confirms. */
  readonly balanceSheetDate: string;
  /** The current period, ISO dates: its start where the document has one, its end the balance-sheet date. */
  readonly periodStart?: string;
  readonly periodEnd: string;
  readonly format: 'ixbrl' | 'xbrl';
  /** The taxonomy generation most of the document's facts are in. */
  readonly taxonomy?: { readonly generation: TaxonomyGeneration; readonly year: number };
  readonly accountsType?: { readonly type: AccountsType; readonly basis: string };
  readonly current: PeriodFigures;
  readonly prior?: PeriodFigures;
  /**
   * Group accounts: the group's consolidated figures for the current period (facts whose context
   * names the Consolidated member of GroupCompanyDataDimension). `current` and `prior` stay the
   * parent company's own.
   */
  readonly group?: PeriodFigures;
  readonly conflicts: readonly Conflict[];
}

export type FilingOutcome =
  | { readonly ok: true; readonly filing: AccountsFiling }
  | { readonly ok: false; readonly entryName: string; readonly reason: string };
