import type { Jurisdiction, PreviousName, Provenance, TradingStatus } from '../../../../shared/companies/profile';

/**
 * What one row of a register snapshot says about a company, read as published: the facts every
 * block of a register profile is derived from. Dates are ISO; a field the register left empty is null.
 */
export interface SnapshotFacts {
  readonly source: Provenance['source'];
  readonly jurisdiction: Jurisdiction;
  readonly companyNumber: string;
  readonly name: string;
  readonly companyType: string;
  readonly companySubtype: string | null;
  readonly status: TradingStatus;
  readonly incorporatedOn: string | null;
  readonly dissolvedOn: string | null;
  readonly sicCodes: readonly string[];
  readonly registeredOffice: string | null;
  readonly accounts: {
    /** The register's account category (GB), e.g. "MICRO ENTITY"; null where the register publishes none. */
    readonly category: string | null;
    readonly nextDueOn: string | null;
    readonly lastMadeUpTo: string | null;
    /** Accounting reference date as day/month, e.g. "31/3". */
    readonly referenceDate: string | null;
  };
  /** The yearly statement: confirmation statement (GB; annual return before 30 June 2016) or annual return (IE). */
  readonly statement: {
    readonly nextDueOn: string | null;
    readonly lastMadeUpTo: string | null;
  };
  /** Counts of the charges (mortgages) registered against the company; null where the register publishes none. */
  readonly charges: {
    readonly registered: number;
    readonly outstanding: number;
    readonly partSatisfied: number;
    readonly satisfied: number;
  } | null;
  readonly previousNames: readonly PreviousName[];
  /** When the current name took effect, where the register says (IE). */
  readonly nameSince: string | null;
  /** Every field of the row, by its column name as published (trimmed), for provenance. */
  readonly published: Readonly<Record<string, string | null>>;
  /** Register values no rule knows, by field: mapped to `other` (or left unknown) and counted by the import. */
  readonly unknownValues: readonly { readonly field: string; readonly value: string }[];
}

/** A row that cannot be read; the message says which field and why. */
export class RowError extends Error {}
