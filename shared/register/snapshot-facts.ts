import { InvalidCompanyNumberError, parseCompanyNumber } from '../companies/numbers';
import type { Jurisdiction, LiveFeed, PreviousName, RegisterFile, TradingStatus } from '../companies/profile';
import { cleanField } from './register-text';

/**
 * What one row of a register snapshot says about a company, read as published: the facts every
 * block of a register profile is derived from. Dates are ISO; a field the register left empty is null.
 */
export interface SnapshotFacts {
  /** The register file whose columns the facts are spelt in. */
  readonly source: RegisterFile;
  /** The live feed whose event the facts were last changed by, when they were: provenance names it instead of the file. */
  readonly via?: LiveFeed;
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
  /** Every field of the row, by its column name as published, for provenance and for comparing snapshots. */
  readonly published: PublishedRow;
  /** Register values no rule knows, by field: mapped to `other` (or left unknown) and counted by the import. */
  readonly unknownValues: readonly { readonly field: string; readonly value: string }[];
}

/** Listed in provenance only when filled: most companies have no former names, and the stream's columns are absent until it speaks. */
export const isOptionalColumn = (column: string) => column.startsWith('PreviousName_') || column.startsWith('stream.');

/** A row's fields by column name as published (trimmed, cleaned and bounded: register-text.ts); null where the register left one empty. */
export interface PublishedRow {
  get(column: string): string | null;
  /** The named columns this row has, by name; empty fields as null, former-name slots left out when empty. */
  pick(columns: readonly string[]): Record<string, string | null>;
}

/** A header's columns by position, and the positions of the column lists provenance reads, worked out once. */
export class Header {
  private readonly picks = new WeakMap<readonly string[], readonly (readonly [string, number])[]>();

  constructor(readonly columns: ReadonlyMap<string, number>) {}

  /** The columns of the list this header has, with their positions. */
  positions(columns: readonly string[]): readonly (readonly [string, number])[] {
    let found = this.picks.get(columns);
    if (!found) {
      found = columns.flatMap((column) => {
        const at = this.columns.get(column);
        return at === undefined ? [] : [[column, at] as const];
      });
      this.picks.set(columns, found);
    }
    return found;
  }
}

/**
 * The fields of one CSV row, found through the header's column positions: reading by position
 * spares building an object of 55 named fields for each of millions of rows.
 */
export class FieldRow implements PublishedRow {
  constructor(
    private readonly header: Header,
    /** Trimmed. */
    private readonly fields: readonly string[],
  ) {}

  get(column: string): string | null {
    const at = this.header.columns.get(column);
    const value = at === undefined ? undefined : this.fields[at];
    return value ? cleanField(column, value) || null : null;
  }

  /** The named columns this row has, by name; empty fields as null, former-name slots left out when empty. */
  pick(columns: readonly string[]): Record<string, string | null> {
    const picked: Record<string, string | null> = {};
    for (const [column, at] of this.header.positions(columns)) {
      const field = this.fields[at];
      const value = field ? cleanField(column, field) : '';
      if (value) picked[column] = value;
      else if (!isOptionalColumn(column)) picked[column] = null;
    }
    return picked;
  }
}

/** A row that cannot be read; the message says which field and why. */
export class RowError extends Error {}

const MAX_NAME_LENGTH = 160;

/** Whitespace runs inside a value, collapsed to one space; most values have none, and the test is cheaper than the replace. */
export const collapsed = (text: string) => (/\s\s|[\t\n\r]/.test(text) ? text.replace(/\s+/g, ' ') : text);

/** A field every row must fill; the error names its column. */
export function requiredField(row: PublishedRow, column: string): string {
  const value = row.get(column);
  if (value === null) throw new RowError(`${column} is empty`);
  return value;
}

/** The company's name, whitespace runs collapsed, as long as a register allows. */
export function companyNameOf(row: PublishedRow, column: string): string {
  const name = collapsed(requiredField(row, column));
  if (name.length > MAX_NAME_LENGTH) throw new RowError(`${column} is longer than ${MAX_NAME_LENGTH} characters`);
  return name;
}

/** The company number in canonical form; the error names the column and what is wrong with it. */
export function companyNumberOf(row: PublishedRow, column: string, jurisdiction: Jurisdiction): string {
  try {
    return parseCompanyNumber(row.get(column) ?? '', jurisdiction).companyNumber;
  } catch (error) {
    if (error instanceof InvalidCompanyNumberError) throw new RowError(`${column}: ${error.message}`);
    throw error;
  }
}
