/** Figures from filed accounts: the Accounts Data Product read entry by entry. */
export { EMPLOYEES, MONEY_FIGURES, type MoneyFigure } from './concepts';
export type { AccountsFiling, AccountsType, Conflict, FactProvenance, FilingOutcome, Money, PeriodFigures } from './filing';
export { DEFAULT_BOUNDS, type EntryBounds, readAccountsFolder, readAccountsZip } from './read-archive';
export { type FilingReader, filingReader, readFiling } from './read-filing';
