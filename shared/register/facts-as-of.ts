import type { FactsAsOf } from '../companies/company-store';
import type { CompanyProfile, Provenance } from '../companies/profile';
import { BLOCK_NAMES } from '../companies/profile';
import { addressKey } from './addresses';
import { isOptionalColumn, type PublishedRow } from './snapshot-facts';

/**
 * The facts of a GB register profile as one set of the bulk file's columns, each group of them
 * dated by when it was true: the snapshot's date for what the monthly file said, the event's
 * published_at for what the Streaming API said. Both doors write through `mergeFacts`, which never
 * lets an older value replace a newer one, so a stream event survives the import of an older file,
 * and a late event does not undo a later file or a later event.
 */

/** Columns that only the Streaming API fills: the bulk file has nothing for them. */
export const STREAM_COLUMNS = {
  /** The date of the latest board appointment the stream newly told of (docs/profile.md, "Live changes"). */
  officerAppointed: 'stream.officers.lastAppointedOn',
  /** The date of the latest resignation from the board the stream newly told of. */
  officerResigned: 'stream.officers.lastResignedOn',
  /** The latest person with significant control (or beneficial owner) newly notified or ceased: "<date> notified|ceased". */
  psc: 'stream.psc.lastChangedOn',
  /** The latest strike-off notice of the filing history: "<type> <date>" (register/gazette-notices.ts). */
  gazette: 'stream.gazette.notice',
  /** The latest insolvency case the stream newly told of as opened: "<case type> <start date>". */
  insolvency: 'stream.insolvency.latestCase',
  /** The cases the company's insolvency resource states open, "<type>:<start date>" space-separated, or "none". */
  insolvencyOpen: 'stream.insolvency.openCases',
  /** Late filings the filing history showed: "accounts:YYYY-MM-DD" (the missed deadline), space-separated. */
  lateFilings: 'stream.filings.late',
  accountsFiledOn: 'stream.filings.accountsFiledOn',
  accountsFiledMadeUpTo: 'stream.filings.accountsMadeUpTo',
  /** Each charge the stream told of and its status ("3:o 4:s"), the newest that fit in a fact. */
  charges: 'stream.charges',
  /** The latest charge whose registration or satisfaction moved a count: "<number> <status> <date> <kind> <lender>". */
  chargeNews: 'stream.charges.latest',
} as const;

/** Groups of columns that one source states together; a group is as new as its latest statement. */
const GROUP_OF_PREFIX: readonly (readonly [string, string])[] = [
  ['RegAddress.', 'address'],
  ['SICCode.', 'sic'],
  ['PreviousName_', 'name'],
  ['Accounts.', 'accounts'],
  ['ConfStmt', 'statement'],
  ['Returns.', 'statement'],
  ['Mortgages.', 'charges'],
  ['stream.officers.lastAppointedOn', 'officersAppointed'],
  ['stream.officers.lastResignedOn', 'officersResigned'],
  ['stream.psc.', 'psc'],
  ['stream.gazette.', 'gazette'],
  ['stream.insolvency.', 'insolvency'],
  ['stream.filings.', 'filings'],
  ['stream.charges.latest', 'chargeNews'],
  ['stream.charges', 'chargeStatuses'],
];
const GROUP_OF_COLUMN: Readonly<Record<string, string>> = {
  CompanyName: 'name',
  CompanyStatus: 'status',
  DissolutionDate: 'status',
  CompanyCategory: 'type',
  IncorporationDate: 'incorporation',
};

export function groupOf(column: string): string {
  const named = GROUP_OF_COLUMN[column];
  if (named) return named;
  for (const [prefix, group] of GROUP_OF_PREFIX) if (column.startsWith(prefix)) return group;
  return column;
}

/** Groups the bulk file states whole: its date dates them all, unless a newer statement of one is stored. */
const isStreamOnly = (group: string) =>
  ['officersAppointed', 'officersResigned', 'psc', 'gazette', 'insolvency', 'filings', 'chargeStatuses', 'chargeNews'].includes(group);

/** The start of a snapshot's date, as an instant comparable with `published_at`. */
export const snapshotInstant = (date: string) => `${date}T00:00:00`;

/**
 * What the stored profile item keeps beside its content: the snapshot it was last listed in, and
 * when each group of facts was stated; `factsAsOf` also carries, under `known.*` keys, what the
 * stream told of each resource by its id (stream/known-resources.ts), so every writer that keeps
 * the dates keeps that memory too.
 */
export interface StoredFactsState {
  readonly registerSnapshot?: string;
  readonly factsAsOf?: FactsAsOf;
}

/** When a group of the stored facts was true as of: its own date if the stream moved it, else the snapshot's. */
export function groupAsOf(stored: StoredFactsState, group: string): string {
  const own = stored.factsAsOf?.[group] ?? '';
  const snapshot = stored.registerSnapshot && !isStreamOnly(group) ? snapshotInstant(stored.registerSnapshot) : '';
  // Instants as text: compared as text, not as numbers.
  if (own > snapshot) return own;
  return snapshot;
}

/** Sources that spell a GB profile's facts in the bulk file's columns: the file itself and the feeds laid over it. */
export const isCompaniesHouseSource = (source: Provenance['source']) => source !== 'cro-companies';

/** Provenance names that are no register column: what the rules keep or take from other blocks. */
const isColumn = (name: string) => !name.startsWith('snapshots.') && !name.startsWith('derived.');

/**
 * The register columns a stored profile's blocks recorded, all blocks together: the GB rules read
 * every column the bulk file's facts are built from, so this is the whole row as last derived.
 * Undefined for a profile that is no GB register profile.
 */
export function storedColumns(profile: CompanyProfile | undefined): Record<string, string | null> | undefined {
  if (profile?.dataSource !== 'register') return undefined;
  const columns: Record<string, string | null> = {};
  for (const block of BLOCK_NAMES) {
    const provenance = profile[block].provenance;
    if (!provenance || !isCompaniesHouseSource(provenance.source)) return undefined;
    for (const name in provenance.facts) if (isColumn(name)) columns[name] = provenance.facts[name] ?? null;
  }
  return columns;
}

/** The latest date any block of the profile was derived as of. */
export function derivedAsOf(profile: CompanyProfile | undefined): string | undefined {
  let latest: string | undefined;
  for (const block of BLOCK_NAMES) {
    const asOf = profile?.[block].provenance?.asOf;
    if (asOf && (!latest || asOf > latest)) latest = asOf;
  }
  return latest;
}

const folded = (value: string) => value.toUpperCase().replace(/\s+/g, ' ').trim();

/**
 * Two statements of one fact that say the same: the two sources spell some alike only up to case
 * and spacing ("ENGLAND", "England"), and the bulk file describes each SIC code where the API sends
 * the code alone. The stored spelling is kept, so the other source's spelling changes nothing.
 */
export function sameFact(column: string, stored: string | null, incoming: string | null): boolean {
  if (stored === incoming) return true;
  if (stored === null || incoming === null) return false;
  if (column.startsWith('SICCode.')) return stored.slice(0, 5) === incoming.slice(0, 5);
  return folded(stored) === folded(incoming);
}

/** The same address cut or spelt otherwise: the API's premises apart from the first line, a comma more or less. */
function sameAddress(
  names: readonly string[],
  stored: Readonly<Record<string, string | null>>,
  incoming: Readonly<Record<string, string | null>>,
): boolean {
  return addressKey(names.map((name) => stored[name])) === addressKey(names.map((name) => incoming[name]));
}

export interface MergedFacts {
  readonly columns: Record<string, string | null>;
  readonly factsAsOf: Record<string, string>;
  /** Groups whose values the incoming statement changed. */
  readonly changed: ReadonlySet<string>;
  /** Groups the incoming statement carried but a newer stored one kept. */
  readonly refused: ReadonlySet<string>;
}

/**
 * Columns stated at `asOf` laid over the stored ones, group by group: a group stated at or after the
 * stored group's date replaces it; an older one is refused. Values equal to the stored ones change
 * nothing and move no date, so a repeated statement writes nothing.
 */
export function mergeFacts(
  stored: { readonly columns: Readonly<Record<string, string | null>>; readonly state: StoredFactsState },
  incoming: Readonly<Record<string, string | null>>,
  asOf: string,
): MergedFacts {
  const byGroup = new Map<string, string[]>();
  for (const column in incoming) {
    const group = groupOf(column);
    const columns = byGroup.get(group);
    if (columns) columns.push(column);
    else byGroup.set(group, [column]);
  }
  const columns = { ...stored.columns };
  const factsAsOf: Record<string, string> = { ...(stored.state.factsAsOf ?? {}) };
  const changed = new Set<string>();
  const refused = new Set<string>();
  for (const [group, names] of byGroup) {
    if (asOf < groupAsOf(stored.state, group)) {
      refused.add(group);
      continue;
    }
    if (names.every((name) => sameFact(name, columns[name] ?? null, incoming[name] ?? null))) continue;
    if (group === 'address' && sameAddress(names, columns, incoming)) continue;
    for (const name of names) if (!sameFact(name, columns[name] ?? null, incoming[name] ?? null)) columns[name] = incoming[name] ?? null;
    factsAsOf[group] = asOf;
    changed.add(group);
  }
  return { columns, factsAsOf, changed, refused };
}

/** Columns by name as a row the bulk file's reader takes; empty values as null. */
export class ColumnRow implements PublishedRow {
  constructor(private readonly columns: Readonly<Record<string, string | null>>) {}

  get(column: string): string | null {
    const value = this.columns[column];
    return value ? value : null;
  }

  pick(columns: readonly string[]): Record<string, string | null> {
    const picked: Record<string, string | null> = {};
    for (const column of columns) {
      const value = this.columns[column];
      if (value) picked[column] = value;
      else if (!isOptionalColumn(column)) picked[column] = null;
    }
    return picked;
  }
}
