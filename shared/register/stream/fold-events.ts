import type { StoredFacts } from '../../companies/company-store';
import { mergeFacts, STREAM_COLUMNS, type StoredFactsState, storedColumns } from '../facts-as-of';
import { noticeMeaning, noticeOf, noticeText } from '../gazette-notices';
import { openCasesText } from '../insolvency-cases';
import { isStrikeOffLabel } from '../statuses';
import type { ChargeChange, ChargeStatus, EventFacts, FilingDelivered } from './event-facts';
import { isRecent, KNOWN_LISTS, KnownList, type KnownListName, tellCases, tellTerm } from './known-resources';

/**
 * A company's events worked out against its stored facts, in order: each group of facts replaced
 * only by a statement at least as new as the stored one (facts-as-of.ts), and each resource read
 * against what the stream told of it before (known-resources.ts), so that only what is newly true
 * reaches the facts the signals are raised from.
 */

/** A company's events as the applier works them out against its stored facts. */
export interface Folded {
  readonly columns: Record<string, string | null>;
  readonly factsAsOf: Record<string, string>;
  /** For each event, whether it changed a fact or told news. */
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
const ukDateOf = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;

const countOf = (columns: Record<string, string | null>, column: string) => Number(columns[column] ?? 0) || 0;

/** The memory's lists, read from the stored item once each, as the fold first needs them. */
class Memory {
  private readonly lists = new Map<KnownListName, KnownList>();

  constructor(
    private readonly stored: Readonly<Record<string, string>>,
    private readonly columns: () => Record<string, string | null>,
  ) {}

  list(name: KnownListName): KnownList {
    let list = this.lists.get(name);
    if (!list) {
      const { key, max } = KNOWN_LISTS[name];
      // Charge statuses were first kept in their fact: a company told of charges before keeps what it was told.
      const text = this.stored[key] ?? (name === 'charges' ? legacyCharges(this.columns()[STREAM_COLUMNS.charges]) : undefined);
      list = new KnownList(text, max);
      this.lists.set(name, list);
    }
    return list;
  }

  /** The lists to store, where they changed. */
  entries(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, list] of this.lists) if (list.modified) out[KNOWN_LISTS[name].key] = list.text();
    return out;
  }
}

const legacyCharges = (text: string | null | undefined) =>
  (text ?? '')
    .split(' ')
    .filter(Boolean)
    .map((entry) => `${entry.slice(0, entry.lastIndexOf(':'))}=${entry.slice(entry.lastIndexOf(':') + 1)}`)
    .join(' ');

const FLOATING_WORDS = { all: 'floating-all', some: 'floating', none: 'fixed' } as const;

/**
 * A charge's status moved into the counts the bulk file publishes. Each charge's status is kept by
 * its id, so a repeated event, or one older than what is known (a charge never goes back to
 * outstanding), moves nothing. A charge created before the stored snapshot is already in its
 * counts, and so is its satisfaction unless the register dates it after the snapshot. Returns
 * the news, "<number> <status> <date> <kind> <lender>", when a count moved.
 */
function applyCharge(
  columns: Record<string, string | null>,
  state: StoredFactsState,
  charge: ChargeChange,
  asOf: string,
  known: KnownList,
): string | undefined {
  const code = CHARGE_CODES[charge.status];
  const before = known.get(charge.id);
  if (before !== undefined && (CHARGE_RANKS[before] ?? 0) >= (CHARGE_RANKS[code] ?? 0)) return undefined;
  const counts = new Map(Object.entries(COUNT_COLUMNS).map(([status, column]) => [status, countOf(columns, column)]));
  let registered = countOf(columns, 'Mortgages.NumMortCharges');
  const move = (from: string | undefined, to: string) => {
    if (from !== undefined) counts.set(from, Math.max(0, (counts.get(from) ?? 0) - 1));
    counts.set(to, (counts.get(to) ?? 0) + 1);
  };
  const snapshot = state.registerSnapshot ?? '';
  let moved = true;
  if (before !== undefined) move(before, code);
  else if (!snapshot || (charge.createdOn !== null && charge.createdOn >= snapshot)) {
    registered++;
    move(undefined, code);
  } else if (code !== 'o' && charge.satisfiedOn !== null && charge.satisfiedOn >= snapshot) move('o', code);
  else moved = false;
  known.set(charge.id, code);
  // A charge the snapshot had counted as it stands is remembered, and is no news.
  if (!moved) return undefined;
  let text = [...known.keys()].map((id) => `${id}:${known.get(id)}`).join(' ');
  while (text.length > MAX_FACT_LENGTH) text = text.slice(text.indexOf(' ') + 1);
  columns[STREAM_COLUMNS.charges] = text;
  columns['Mortgages.NumMortCharges'] = String(registered);
  for (const [status, column] of Object.entries(COUNT_COLUMNS)) columns[column] = String(counts.get(status) ?? 0);
  const date = code === 'o' ? (charge.createdOn ?? asOf.slice(0, 10)) : (charge.satisfiedOn ?? asOf.slice(0, 10));
  return [charge.id, charge.status, date, FLOATING_WORDS[charge.floating ?? 'none'], charge.lender ?? ''].join(' ').trim();
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

/**
 * A strike-off notice newer than the stored one, and what it says of the company's status: a
 * proposal makes an active company "Active - Proposal to Strike off", a discontinuance or
 * suspension makes it active again, a final notice dissolves it. The status moves as of the
 * notice's event, so a company-profile event stated later still has the last word.
 */
function noticeColumns(columns: Record<string, string | null>, event: EventFacts): Record<string, string | null> {
  const notice = event.notice;
  if (!notice || !isRecent(notice.date, event.asOf)) return {};
  const stored = noticeOf(columns[STREAM_COLUMNS.gazette]);
  if (stored && (stored.date > notice.date || noticeText(stored) === noticeText(notice))) return {};
  const incoming: Record<string, string | null> = { [STREAM_COLUMNS.gazette]: noticeText(notice) };
  const status = columns.CompanyStatus ?? '';
  switch (noticeMeaning(notice.type)) {
    case 'proposal':
      if (/^active$/i.test(status.trim())) incoming.CompanyStatus = 'Active - Proposal to Strike off';
      break;
    case 'settled':
      if (isStrikeOffLabel(status)) incoming.CompanyStatus = 'Active';
      break;
    case 'dissolved':
      if (!/dissolved/i.test(status)) {
        incoming.CompanyStatus = 'Dissolved';
        incoming.DissolutionDate = ukDateOf(notice.date);
      }
      break;
  }
  return incoming;
}

/** Each event laid over the stored facts in turn, each group only by a statement at least as new as the stored one. */
export function foldEvents(stored: StoredFacts | undefined, events: readonly EventFacts[]): Folded {
  const base = storedColumns(stored);
  let columns: Record<string, string | null> = { ...(base ?? {}) };
  let factsAsOf: Record<string, string> = { ...(stored?.factsAsOf ?? {}) };
  const memory = new Memory(stored?.factsAsOf ?? {}, () => columns);
  const state = (): StoredFactsState => ({ registerSnapshot: stored?.registerSnapshot, factsAsOf });
  const changed: boolean[] = [];
  let latest: string | undefined;
  for (const event of events) {
    let moved = false;
    let news = false;
    if (event.filing) {
      const late = lateFilingOf(columns, event.filing);
      const known = (columns[STREAM_COLUMNS.lateFilings] ?? '').split(' ').filter(Boolean);
      if (late && !known.includes(late)) {
        columns[STREAM_COLUMNS.lateFilings] = [...known, late].sort().join(' ');
        factsAsOf = { ...factsAsOf, lateFilings: event.asOf };
        moved = true;
      }
    }
    const incoming: Record<string, string | null> = { ...event.columns, ...noticeColumns(columns, event) };
    if (event.filing?.kind === 'accounts' && event.filing.madeUpTo !== null) {
      incoming[STREAM_COLUMNS.accountsFiledOn] = event.filing.filedOn;
      incoming[STREAM_COLUMNS.accountsFiledMadeUpTo] = event.filing.madeUpTo;
    }
    if (event.appointment) {
      const told = tellTerm(memory.list('officers'), event.appointment, event.asOf);
      if (told.began) incoming[STREAM_COLUMNS.officerAppointed] = told.began;
      if (told.ended) incoming[STREAM_COLUMNS.officerResigned] = told.ended;
      news = Boolean(told.began || told.ended);
    }
    if (event.control) {
      const told = tellTerm(memory.list('psc'), event.control, event.asOf);
      // One person ceasing and another notified the same day are two pieces of news: the fact says which.
      const on = told.ended ? `${told.ended} ceased` : told.began ? `${told.began} notified` : undefined;
      if (on) incoming[STREAM_COLUMNS.psc] = on;
      news = on !== undefined;
    }
    if (event.cases) {
      const opened = tellCases(memory.list('insolvency'), event.cases, event.asOf);
      const open = event.cases.filter((found) => found.endedOn === null);
      // A company whose every case closed long ago says nothing new: its open cases are stated once one is, or was.
      if (open.length > 0 || columns[STREAM_COLUMNS.insolvencyOpen]) incoming[STREAM_COLUMNS.insolvencyOpen] = openCasesText(open);
      const newest = opened.reduce<(typeof opened)[number] | undefined>(
        (found, next) => (!found || (next.startedOn ?? '') > (found.startedOn ?? '') ? next : found),
        undefined,
      );
      if (newest) incoming[STREAM_COLUMNS.insolvency] = `${newest.type} ${newest.startedOn}`;
      news = newest !== undefined;
    }
    if (Object.keys(incoming).length > 0) {
      const merged = mergeFacts({ columns, state: state() }, incoming, event.asOf);
      columns = merged.columns;
      factsAsOf = merged.factsAsOf;
      if (merged.changed.size > 0) moved = true;
    }
    if (event.charge) {
      const told = applyCharge(columns, state(), event.charge, event.asOf, memory.list('charges'));
      if (told) {
        const merged = mergeFacts({ columns, state: state() }, { [STREAM_COLUMNS.chargeNews]: told }, event.asOf);
        columns = merged.columns;
        factsAsOf = { ...merged.factsAsOf, charges: event.asOf, chargeStatuses: event.asOf };
        moved = true;
      }
    }
    if (news) moved = true;
    changed.push(moved);
    if (moved && (!latest || event.asOf > latest)) latest = event.asOf;
  }
  return { columns, factsAsOf: { ...factsAsOf, ...memory.entries() }, changed, latest };
}
