import type { CompanyProfile, EarlySignal, EarlySignals, FilingBehaviour } from '../../companies/profile';
import { addressKey } from '../addresses';
import { daysBetween } from '../calendar';
import { isReceiverOnCharge } from '../companies-house-bulk';
import { isCompaniesHouseSource, STREAM_COLUMNS } from '../facts-as-of';
import { noticeMeaning, noticeOf, noticeWords } from '../gazette-notices';
import { caseWords, hasInsolventCase, isSolventCase, openCasesOf, solventWindingUp } from '../insolvency-cases';
import type { SnapshotFacts } from '../snapshot-facts';
import { ENDED_STATUSES, INSOLVENT_STATUSES, isStrikeOffProposed } from '../statuses';
import { BLOCK_COLUMNS, EVENT_COLUMNS, provenanceOf, STREAM_EVENT_KINDS } from './provenance';

/**
 * Early signals by rule. A condition (overdue filings, a strike-off proposal, insolvency, the end
 * of the company) is one signal for as long as it holds and expires when it stops. An event (a
 * charge, a new office, a new name, a new accounting reference date or activity) is a change
 * between the previous snapshot and this one, active for a year and superseded by the next change
 * of its kind. Ids are the kind and a date, so the same snapshot imported again finds every id it
 * would raise already there and changes nothing.
 */

/** Stated in full in docs/profile.md, under its id. */
export const SIGNALS_RULE = 'register-signals-v1';

/** Event signals stay active this long, then expire. */
const EVENT_LIFETIME_DAYS = 365;
/** Signals no longer active beyond this many are dropped, oldest first; active ones are always kept. */
const MAX_SIGNALS = 50;

type EventKind = keyof typeof EVENT_COLUMNS;
const SUPERSEDING_EVENTS = new Set<string>([
  'registered_office_changed',
  'name_changed',
  'accounting_reference_date_changed',
  'sic_codes_changed',
  'director_appointed',
  'director_resigned',
  'psc_changed',
]);
/** Events that weigh more than information: an insolvency case opened. */
const EVENT_SEVERITY: Readonly<Record<string, EarlySignal['severity']>> = { insolvency_case: 'critical' };
const CONDITION_KINDS = new Set([
  'accounts_overdue',
  'confirmation_statement_overdue',
  'strike_off_proposed',
  'insolvency',
  'members_voluntary_liquidation',
  'receiver_on_charge',
  'dissolved',
  'closed',
  'converted',
  'removed',
]);

interface Condition {
  readonly kind: string;
  /** What makes one occurrence this one (a missed deadline, an insolvency status); when absent, the date first seen. */
  readonly key?: string;
  /** Part of the id that tells occurrences of the same kind apart when the key is the date first seen. */
  readonly variant?: string;
  /** An occurrence already active keeps its id when the key becomes known later (a Gazette notice after the status). */
  readonly keepActive?: boolean;
  readonly severity: EarlySignal['severity'];
  readonly summary: string;
}

function conditionsOf(facts: SnapshotFacts, filing: FilingBehaviour, asOf: string): Condition[] {
  const status = facts.status;
  const conditions: Condition[] = [];
  // What the stream told of the company's insolvency cases and strike-off notices, where it has.
  const solvent = solventWindingUp(openCasesOf(facts.published.get(STREAM_COLUMNS.insolvencyOpen)));
  const notice = noticeOf(facts.published.get(STREAM_COLUMNS.gazette));
  if (status.status === 'dissolved') {
    conditions.push({
      kind: 'dissolved',
      key: facts.dissolvedOn ?? undefined,
      severity: 'critical',
      summary: `Dissolved${facts.dissolvedOn ? ` on ${facts.dissolvedOn}` : ''} (register status: ${status.registerStatus})`,
    });
  } else if (status.status === 'closed' || status.status === 'converted' || status.status === 'removed' || status.status === 'ceased') {
    const kind = status.status === 'ceased' ? 'closed' : status.status;
    conditions.push({ kind, severity: 'critical', summary: `The company has ended (register status: ${status.registerStatus})` });
  }
  // A liquidation whose only cases are members' voluntary liquidations is a solvent winding up, not insolvency.
  const solventLiquidation = status.status === 'liquidation' && solvent !== undefined;
  if ((INSOLVENT_STATUSES.has(status.status) || status.status === 'voluntary_arrangement') && !solventLiquidation) {
    conditions.push({
      kind: 'insolvency',
      variant: status.status,
      severity: 'critical',
      summary: `Insolvency: the register status is "${status.registerStatus}"`,
    });
  }
  if (solvent && !ENDED_STATUSES.has(status.status)) {
    conditions.push({
      kind: 'members_voluntary_liquidation',
      ...(solvent.startedOn ? { key: solvent.startedOn } : {}),
      keepActive: true,
      severity: 'warning',
      summary: `Members' voluntary liquidation${solvent.startedOn ? ` since ${solvent.startedOn}` : ''}: a solvent winding up, its directors having declared that the company can pay its debts in full`,
    });
  }
  if (isStrikeOffProposed(status)) {
    // The proposal is the notice that made it, where the filing history told of one: a republished profile is the same proposal.
    const proposal = notice && noticeMeaning(notice.type) === 'proposal' ? notice : undefined;
    conditions.push({
      kind: 'strike_off_proposed',
      ...(proposal ? { key: proposal.date } : {}),
      keepActive: true,
      severity: 'critical',
      summary: `The register proposes to strike the company off (${proposal ? noticeWords(proposal) : `register status: ${status.registerStatus}`})`,
    });
  }
  if (isReceiverOnCharge(status.registerStatus)) {
    conditions.push({
      kind: 'receiver_on_charge',
      severity: 'critical',
      summary: "A receiver manager holds at least one of the company's charges",
    });
  }
  // Irish accounts are annexed to the annual return: its signal stands for both.
  if (filing.accountsOverdue && filing.nextAccountsDueOn && facts.jurisdiction === 'GB') {
    conditions.push({
      kind: 'accounts_overdue',
      key: filing.nextAccountsDueOn,
      severity: 'warning',
      summary: `Accounts due by ${filing.nextAccountsDueOn} had not been delivered by ${asOf}`,
    });
  }
  const statementDue = facts.statement.nextDueOn;
  if (filing.confirmationStatementOverdue && statementDue) {
    conditions.push({
      kind: 'confirmation_statement_overdue',
      key: statementDue,
      severity: 'warning',
      summary: `The ${facts.jurisdiction === 'GB' ? 'confirmation statement' : 'annual return'} due by ${statementDue} had not been delivered by ${asOf}`,
    });
  }
  return conditions;
}

type Facts = (column: string) => string | null | undefined;

/** Compared without case or spacing: a register retyping a value in capitals has not changed it. */
const valuesOf = (facts: Facts, columns: readonly string[]) =>
  columns.map((column) => (facts(column) ?? '').toUpperCase().replace(/\s+/g, ' ')).join('|');

/** An address compared as its words in order, however the source cuts it into lines (addresses.ts). */
const addressOf = (facts: Facts, columns: readonly string[]) => addressKey(columns.map((column) => facts(column)));

const countOf = (facts: Facts, columns: readonly string[]) => columns.reduce((sum, column) => sum + (Number(facts(column) ?? 0) || 0), 0);

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** What a stream-only fact says, for people: "creditors-voluntary-liquidation 2026-11-20" is the case and its start. */
function streamSummary(kind: string, value: string): string {
  const [first, second] = value.split(' ');
  switch (kind) {
    case 'director_appointed':
      return `A director was appointed on ${value}`;
    case 'director_resigned':
      return `A director resigned on ${value}`;
    case 'psc_changed':
      // "<date> notified|ceased"; a bare date was written before the fact said which.
      return second === 'ceased'
        ? `A person with significant control ceased to be one on ${first}`
        : second === 'notified'
          ? `A person with significant control was notified on ${first}`
          : `A person with significant control was notified, or ceased to be one, on ${value}`;
    default:
      return `Insolvency case opened: ${caseWords(first ?? '')}, from ${second}`;
  }
}

const CHARGE_KIND_WORDS: Readonly<Record<string, string>> = {
  'floating-all': 'a floating charge covering all the property of the company',
  floating: 'including a floating charge',
  fixed: 'no floating charge',
};

/** The latest charge news, "3 outstanding 2024-05-14 floating-all Barclays Bank UK PLC", for people. */
function chargeSummary(news: string): { kind: 'charge_registered' | 'charge_satisfied'; summary: string } {
  const [id, status, date, kind, ...lender] = news.split(' ');
  const whom = lender.length > 0 ? ` in favour of ${lender.join(' ')}` : '';
  const what = CHARGE_KIND_WORDS[kind ?? ''] ?? 'a charge';
  if (status === 'outstanding')
    return { kind: 'charge_registered', summary: `Charge ${id} registered${whom}, created on ${date}: ${what}` };
  const part = status === 'part-satisfied' ? ' in part' : '';
  return { kind: 'charge_satisfied', summary: `Charge ${id}${whom} satisfied${part} on ${date} (${what})` };
}

/** Changes between the facts the previous snapshot (or the stored profile) gave and these, as events. */
function eventsOf(facts: SnapshotFacts, stored: Readonly<Record<string, string | null>>): { kind: EventKind; summary: string }[] {
  const now: Facts = (column) => facts.published.get(column);
  const before: Facts = (column) => stored[column];
  const events: { kind: EventKind; summary: string }[] = [];
  for (const [kind, bySource] of Object.entries(EVENT_COLUMNS) as [EventKind, (typeof EVENT_COLUMNS)[EventKind]][]) {
    const columns: readonly string[] = bySource[facts.source];
    if (STREAM_EVENT_KINDS.has(kind)) {
      const value = now(columns[0] as string);
      if (!value || value === (before(columns[0] as string) ?? null)) continue;
      // A members' voluntary liquidation opened is no insolvency: its condition says it.
      if (kind === 'insolvency_case' && isSolventCase(value.split(' ')[0] ?? '')) continue;
      events.push({ kind, summary: streamSummary(kind, value) });
      continue;
    }
    if (columns.length === 0 || !columns.some((column) => column in stored)) continue;
    if (kind === 'charge_registered' || kind === 'charge_satisfied') {
      const added = countOf(now, columns) - countOf(before, columns);
      if (added > 0) {
        // The charge the stream told of, by its lender and what it charges, when that is what moved the count.
        const news = now(STREAM_COLUMNS.chargeNews);
        const told = news && news !== (before(STREAM_COLUMNS.chargeNews) ?? null) ? chargeSummary(news) : undefined;
        events.push({
          kind,
          summary:
            added === 1 && told?.kind === kind
              ? told.summary.slice(0, 500)
              : kind === 'charge_registered'
                ? `${plural(added, 'new charge')} registered against the company`
                : `${plural(added, 'charge')} satisfied in whole or in part`,
        });
      }
      continue;
    }
    if (
      kind === 'registered_office_changed'
        ? addressOf(now, columns) === addressOf(before, columns)
        : valuesOf(now, columns) === valuesOf(before, columns)
    ) {
      continue;
    }
    const summary =
      kind === 'registered_office_changed'
        ? `Registered office moved to ${facts.registeredOffice ?? 'an address the register leaves blank'}`
        : kind === 'name_changed'
          ? `Name changed from "${before(columns[0] as string) ?? ''}" to "${facts.name}"`
          : kind === 'accounting_reference_date_changed'
            ? `Accounting reference date changed to ${facts.accounts.referenceDate ?? 'none'}`
            : `Activities changed to ${facts.sicCodes.join(', ') || 'none given'}`;
    events.push({ kind, summary: summary.slice(0, 500) });
  }
  return events;
}

export function registerSignals(
  facts: SnapshotFacts,
  filing: FilingBehaviour,
  asOf: string,
  previous: CompanyProfile | undefined,
): EarlySignals {
  const at = `${asOf}T00:00:00Z`;
  const prior = previous?.dataSource === 'register' ? previous.earlySignals : undefined;
  const signals = new Map<string, EarlySignal>((prior?.signals ?? []).map((signal) => [signal.id, signal]));
  const settle = (signal: EarlySignal, state: EarlySignal['state']) => signals.set(signal.id, { ...signal, state, updatedAt: at });
  const add = (id: string, kind: string, severity: EarlySignal['severity'], summary: string) => {
    if (!signals.has(id)) signals.set(id, { id, kind, state: 'active', severity, summary, detectedAt: at, updatedAt: at });
  };

  const holding = new Set<string>();
  for (const condition of conditionsOf(facts, filing, asOf)) {
    const prefix = condition.variant ? `${condition.kind}-${condition.variant.replace(/_/g, '-')}-` : `${condition.kind}-`;
    const active = [...signals.values()].find((signal) => signal.state === 'active' && signal.id.startsWith(prefix))?.id;
    const id =
      condition.keepActive && active ? active : condition.key ? `${condition.kind}-${condition.key}` : (active ?? `${prefix}${asOf}`);
    add(id, condition.kind, condition.severity, condition.summary);
    holding.add(id);
  }
  for (const signal of [...signals.values()]) {
    if (signal.state !== 'active' || !CONDITION_KINDS.has(signal.kind) || holding.has(signal.id)) continue;
    const replaced = [...holding].some((id) => signals.get(id)?.kind === signal.kind);
    settle(signal, replaced ? 'superseded' : 'expired');
  }

  // Facts before and after are comparable when spelt in the same file's columns, whichever door told them.
  const sameColumns = prior?.provenance && isCompaniesHouseSource(prior.provenance.source) === isCompaniesHouseSource(facts.source);
  const beforeFacts = sameColumns ? prior?.provenance?.facts : undefined;
  if (beforeFacts) {
    for (const event of eventsOf(facts, beforeFacts)) {
      const id = `${event.kind}-${asOf}`;
      if (signals.has(id)) continue;
      if (SUPERSEDING_EVENTS.has(event.kind)) {
        for (const signal of [...signals.values()])
          if (signal.kind === event.kind && signal.state === 'active') settle(signal, 'superseded');
      }
      add(id, event.kind, EVENT_SEVERITY[event.kind] ?? 'info', event.summary);
    }
  }
  // The register says no insolvent case is open any more: the cases it told of have ended (concluded, dissolved, discharged).
  const cases = openCasesOf(facts.published.get(STREAM_COLUMNS.insolvencyOpen));
  const casesClosed = cases !== undefined && !hasInsolventCase(cases);
  for (const signal of [...signals.values()]) {
    if (signal.state !== 'active' || CONDITION_KINDS.has(signal.kind)) continue;
    if (daysBetween(signal.detectedAt.slice(0, 10), asOf) > EVENT_LIFETIME_DAYS || (signal.kind === 'insolvency_case' && casesClosed)) {
      settle(signal, 'expired');
    }
  }

  const ordered = [...signals.values()].sort((a, b) =>
    a.detectedAt < b.detectedAt ? -1 : a.detectedAt > b.detectedAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  let surplus = ordered.length - MAX_SIGNALS;
  const kept = ordered.filter((signal) => signal.state === 'active' || surplus-- <= 0);
  return {
    signals: kept,
    provenance: provenanceOf(facts, asOf, SIGNALS_RULE, BLOCK_COLUMNS.earlySignals),
  };
}
