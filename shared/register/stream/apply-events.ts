import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { contentHashOf, indexedNamesOf } from '../../companies/company-store';
import type { ProfileContent } from '../../companies/profile';
import { indexedEntryOf, replaceProfile } from '../../companies/profile-transaction';
import { everyIndexedWord } from '../../companies/search-index';
import { keyOf, profileOf, readStoredProfile, type StoredProfile } from '../../companies/stored-profile';
import { VocabularyUpkeep, wordChange } from '../../companies/vocabulary-upkeep';
import { batchGet } from '../../storage/batch';
import { companiesHouseFacts } from '../companies-house-bulk';
import { ColumnRow, derivedAsOf, type FactsAsOf, mergeFacts, STREAM_COLUMNS, type StoredFactsState, storedColumns } from '../facts-as-of';
import { registerProfile, type StoredFacts } from '../register-profile';
import { RowError } from '../snapshot-facts';
import { type ChargeChange, type ChargeStatus, type EventFacts, eventFacts, type FilingDelivered } from './event-facts';
import type { ApplyEvents, StreamEvent, StreamName } from './stream-events';

export interface EventApplierOptions {
  readonly doc: DynamoDBDocumentClient;
  readonly companiesTable: string;
  readonly clock?: () => Date;
  /** Companies written at once. */
  readonly concurrency?: number;
  /** Tries of one company's write when other writers keep getting there first. */
  readonly maxAttempts?: number;
  /** Told of each event skipped for being malformed, so it can be logged with its place. */
  readonly onSkipped?: (event: StreamEvent, reason: string, detail?: string) => void;
}

/** Stored profile items as the applier reads them: the content and the dates of its facts. */
type StoredItem = StoredProfile & StoredFactsState;

/** A company's events as the applier works them out against its stored facts. */
interface Folded {
  readonly columns: Record<string, string | null>;
  readonly factsAsOf: Record<string, string>;
  /** For each event, whether it changed a fact. */
  readonly changed: readonly boolean[];
  /** The latest date of an event that changed a fact. */
  readonly latest: string | undefined;
}

const CHARGE_CODES: Readonly<Record<ChargeStatus, string>> = { outstanding: 'o', 'part-satisfied': 'p', satisfied: 's' };
const CHARGE_RANKS: Readonly<Record<string, number>> = { o: 0, p: 1, s: 2 };
const COUNT_COLUMNS: Readonly<Record<string, string>> = {
  o: 'Mortgages.NumMortOutstanding',
  p: 'Mortgages.NumMortPartSatisfied',
  s: 'Mortgages.NumMortSatisfied',
};
/** Room the provenance gives one fact; the oldest charges' statuses go first, as a snapshot has counted them by then. */
const MAX_FACT_LENGTH = 500;

const isoOfUkDate = (value: string | null | undefined) =>
  value && /^\d{2}\/\d{2}\/\d{4}$/.test(value) ? `${value.slice(6, 10)}-${value.slice(3, 5)}-${value.slice(0, 2)}` : null;

const countOf = (columns: Record<string, string | null>, column: string) => Number(columns[column] ?? 0) || 0;

/**
 * A charge's status moved into the counts the bulk file publishes. Each charge's status is kept, so
 * a repeated event, or one older than what is known (a charge never goes back to outstanding),
 * moves nothing. A charge created before the stored snapshot is already in its counts.
 */
function applyCharge(columns: Record<string, string | null>, state: StoredFactsState, charge: ChargeChange, asOf: string): boolean {
  const statuses = new Map(
    (columns[STREAM_COLUMNS.charges] ?? '')
      .split(' ')
      .filter(Boolean)
      .map((entry) => [entry.slice(0, entry.lastIndexOf(':')), entry.slice(entry.lastIndexOf(':') + 1)] as const),
  );
  const code = CHARGE_CODES[charge.status];
  const before = statuses.get(charge.id);
  if (before !== undefined && (CHARGE_RANKS[before] ?? 0) >= (CHARGE_RANKS[code] ?? 0)) return false;
  const counts = new Map(Object.entries(COUNT_COLUMNS).map(([status, column]) => [status, countOf(columns, column)]));
  let registered = countOf(columns, 'Mortgages.NumMortCharges');
  const move = (from: string | undefined, to: string) => {
    if (from !== undefined) counts.set(from, Math.max(0, (counts.get(from) ?? 0) - 1));
    counts.set(to, (counts.get(to) ?? 0) + 1);
  };
  const snapshot = state.registerSnapshot ?? '';
  if (before !== undefined) move(before, code);
  else if (!snapshot || (charge.createdOn !== null && charge.createdOn >= snapshot)) {
    registered++;
    move(undefined, code);
  } else if (code !== 'o' && (charge.satisfiedOn ?? asOf.slice(0, 10)) >= snapshot) move('o', code);
  statuses.set(charge.id, code);
  let text = [...statuses].map(([id, status]) => `${id}:${status}`).join(' ');
  while (text.length > MAX_FACT_LENGTH) text = text.slice(text.indexOf(' ') + 1);
  columns[STREAM_COLUMNS.charges] = text;
  columns['Mortgages.NumMortCharges'] = String(registered);
  for (const [status, column] of Object.entries(COUNT_COLUMNS)) columns[column] = String(counts.get(status) ?? 0);
  return true;
}

/** A delivery after the deadline the stored facts showed for it is a late filing, named by the missed deadline. */
function lateFilingOf(columns: Record<string, string | null>, filing: FilingDelivered): string | undefined {
  const [dueColumn, madeUpColumn] =
    filing.kind === 'accounts' ? ['Accounts.NextDueDate', 'Accounts.LastMadeUpDate'] : ['ConfStmtNextDueDate', 'ConfStmtLastMadeUpDate'];
  const due = isoOfUkDate(columns[dueColumn]);
  // Once the stored facts show this filing, their deadline is already the next one: it says nothing of this one.
  if (due === null || filing.madeUpTo === null || isoOfUkDate(columns[madeUpColumn]) === filing.madeUpTo) return undefined;
  return filing.filedOn > due ? `${filing.kind}:${due}` : undefined;
}

/** Each event laid over the stored facts in turn, each group only by a statement at least as new as the stored one. */
export function foldEvents(stored: StoredFacts | undefined, events: readonly EventFacts[]): Folded {
  const base = storedColumns(stored);
  let columns: Record<string, string | null> = { ...(base ?? {}) };
  let factsAsOf: Record<string, string> = { ...(stored?.factsAsOf ?? {}) };
  const state = (): StoredFactsState => ({ registerSnapshot: stored?.registerSnapshot, factsAsOf });
  const changed: boolean[] = [];
  let latest: string | undefined;
  for (const event of events) {
    let moved = false;
    if (event.filing) {
      const late = lateFilingOf(columns, event.filing);
      const known = (columns[STREAM_COLUMNS.lateFilings] ?? '').split(' ').filter(Boolean);
      if (late && !known.includes(late)) {
        columns[STREAM_COLUMNS.lateFilings] = [...known, late].sort().join(' ');
        factsAsOf = { ...factsAsOf, lateFilings: event.asOf };
        moved = true;
      }
    }
    const incoming: Record<string, string | null> = { ...event.columns };
    if (event.filing?.kind === 'accounts' && event.filing.madeUpTo !== null) {
      incoming[STREAM_COLUMNS.accountsFiledOn] = event.filing.filedOn;
      incoming[STREAM_COLUMNS.accountsFiledMadeUpTo] = event.filing.madeUpTo;
    }
    if (Object.keys(incoming).length > 0) {
      const merged = mergeFacts({ columns, state: state() }, incoming, event.asOf);
      columns = merged.columns;
      factsAsOf = merged.factsAsOf;
      if (merged.changed.size > 0) moved = true;
    }
    if (event.charge && applyCharge(columns, state(), event.charge, event.asOf)) {
      factsAsOf = { ...factsAsOf, charges: event.asOf, chargeStatuses: event.asOf };
      moved = true;
    }
    changed.push(moved);
    if (moved && (!latest || event.asOf > latest)) latest = event.asOf;
  }
  return { columns, factsAsOf, changed, latest };
}

/**
 * The profile the folded facts give, by the bulk import's own rules, as of the latest event that
 * changed a fact (never before what the stored blocks were derived as of). Undefined when the facts
 * do not make a company (a profile Bureau holds from elsewhere, told of by anything but its own
 * company-profile event).
 */
function profileOfFacts(stored: StoredItem, companyNumber: string, folded: Folded): ProfileContent | undefined {
  const date = (folded.latest ?? '').slice(0, 10);
  const derived = derivedAsOf(stored);
  const asOf = derived && derived > date ? derived : date;
  try {
    const facts = companiesHouseFacts(new ColumnRow({ ...folded.columns, CompanyNumber: companyNumber }));
    return registerProfile(facts, asOf, profileOf(stored));
  } catch (error) {
    if (error instanceof RowError) return undefined;
    throw error;
  }
}

type Outcome = 'applied' | 'unchanged' | 'skipped';

/**
 * The port the stream consumer applies its batches through. A batch costs one BatchGetItem of the
 * companies it names, then one version-guarded transaction per company whose facts changed; events
 * for companies Bureau does not hold, and events that change nothing, cost no write. A write lost to
 * another writer (another consumer, an import) reads the company again and works its events out
 * afresh, so neither loses the other's facts.
 */
export function createEventApplier(options: EventApplierOptions): ApplyEvents {
  const { doc, companiesTable } = options;
  const clock = options.clock ?? (() => new Date());
  const maxAttempts = options.maxAttempts ?? 8;
  const limit = pLimit(options.concurrency ?? 16);
  const vocabulary = new VocabularyUpkeep(doc, companiesTable);

  async function writeCompany(companyNumber: string, events: readonly EventFacts[], first: StoredItem): Promise<Outcome[]> {
    let stored: StoredItem | undefined = first;
    for (let attempt = 1; ; attempt++) {
      if (!stored) return events.map(() => 'skipped');
      const folded = foldEvents(stored, events);
      if (!folded.changed.includes(true)) return events.map(() => 'unchanged');
      const content = profileOfFacts(stored, companyNumber, folded);
      if (!content) return events.map(() => 'skipped');
      const contentHash = contentHashOf(content);
      if (contentHash === stored.contentHash) return events.map(() => 'unchanged');
      const indexed = indexedNamesOf(content);
      const written = await replaceProfile(doc, companiesTable, content, stored, {
        indexed,
        contentHash,
        updatedAt: clock().toISOString(),
        ...(stored.registerSnapshot ? { registerSnapshot: stored.registerSnapshot } : {}),
        factsAsOf: folded.factsAsOf as FactsAsOf,
      });
      if (written) {
        if (content.name !== stored.name) {
          await vocabulary.update([wordChange('GB', everyIndexedWord(indexedEntryOf(stored)), everyIndexedWord(indexed))]);
        }
        return folded.changed.map((moved) => (moved ? 'applied' : 'unchanged'));
      }
      if (attempt >= maxAttempts) throw new Error(`GB ${companyNumber}: ${maxAttempts} writes lost to other writers in a row`);
      stored = (await readStoredProfile(doc, companiesTable, 'GB', companyNumber, true)) as StoredItem | undefined;
    }
  }

  return async (_stream: StreamName, events: readonly StreamEvent[]) => {
    const outcomes: Outcome[] = new Array(events.length);
    const byCompany = new Map<string, { positions: number[]; facts: EventFacts[] }>();
    for (const [position, event] of events.entries()) {
      const found = eventFacts(event);
      if (!found.ok) {
        outcomes[position] = 'skipped';
        if (found.reason !== 'no-facts') options.onSkipped?.(event, found.reason, found.detail);
        continue;
      }
      const entry = byCompany.get(found.facts.companyNumber) ?? { positions: [], facts: [] };
      entry.positions.push(position);
      entry.facts.push(found.facts);
      byCompany.set(found.facts.companyNumber, entry);
    }
    const items =
      byCompany.size === 0
        ? []
        : await batchGet<StoredItem>(
            doc,
            companiesTable,
            [...byCompany.keys()].map((companyNumber) => keyOf({ jurisdiction: 'GB', companyNumber })),
          );
    const held = new Map(items.map((item) => [item.companyNumber, item]));
    await Promise.all(
      [...byCompany].map(([companyNumber, { positions, facts }]) => {
        const stored = held.get(companyNumber);
        if (!stored) {
          for (const position of positions) outcomes[position] = 'skipped';
          return undefined;
        }
        return limit(async () => {
          const results = await writeCompany(companyNumber, facts, stored);
          for (const [index, position] of positions.entries()) outcomes[position] = results[index] ?? 'unchanged';
        });
      }),
    );
    const counts = { applied: 0, unchanged: 0, skipped: 0 };
    for (const outcome of outcomes) counts[outcome]++;
    return counts;
  };
}
