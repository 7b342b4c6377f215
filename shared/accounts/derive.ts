import {
  type ConceptChoice,
  DORMANT_CONCEPTS,
  EMPLOYEES,
  type FigureConcepts,
  type MemberByName,
  MONEY_FIGURES,
  type MoneyFigure,
} from './concepts';
import { type Decimal, decimalToString, toMinorUnits, toNumber } from './decimal';
import type { AccountsFiling, AccountsType, Conflict, FactProvenance, FigureSet, PeriodFigures } from './filing';
import type { Context, Fact, Instance } from './instance';
import { ISO4217, type KnownNamespace, knownNamespace, type TaxonomyGeneration } from './namespaces';

interface Period {
  readonly start?: string;
  readonly end: string;
}

interface Candidate {
  readonly fact: NumericFact;
  readonly context: Context;
  readonly currency?: string;
}

/** What the derivation needs to know about the entry besides its document. */
export interface DerivationInput {
  readonly entryName: string;
  readonly companyNumber: string;
  readonly balanceSheetDate: string;
}

const DAY = 86_400_000;

/** Filings cluster on a few hundred period dates: each date is worked out once. */
const shiftedDates = new Map<string, string>();

function addDays(iso: string, days: number): string {
  const key = `${days} ${iso}`;
  let shifted = shiftedDates.get(key);
  if (shifted === undefined) {
    shifted = new Date(Date.parse(`${iso}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
    if (shiftedDates.size >= 4096) shiftedDates.clear();
    shiftedDates.set(key, shifted);
  }
  return shifted;
}

type NumericFact = Fact & { readonly number: Decimal };

/**
 * What the derivation reads of the facts, gathered in one pass over them: a filing holds hundreds of
 * facts, and each rule walking them again (and asking each time which taxonomy a namespace is) cost
 * more than the rules themselves.
 */
interface FactIndex {
  /** How many facts use each context. */
  readonly uses: ReadonlyMap<string, number>;
  /** The facts of known UK concepts. */
  readonly known: readonly Fact[];
  /** Facts of known UK concepts with a number, by local name. */
  readonly numeric: ReadonlyMap<string, NumericFact[]>;
  /** How many facts each known namespace has, in the order first met. */
  readonly namespaces: ReadonlyMap<KnownNamespace, number>;
}

function indexFacts(instance: Instance): FactIndex {
  const uses = new Map<string, number>();
  const known: Fact[] = [];
  const numeric = new Map<string, NumericFact[]>();
  const namespaces = new Map<KnownNamespace, number>();
  // Facts come in runs of one namespace: the family is looked up once a run.
  let namespace: string | undefined;
  let family: KnownNamespace | null = null;
  for (const fact of instance.facts) {
    uses.set(fact.contextRef, (uses.get(fact.contextRef) ?? 0) + 1);
    if (fact.concept.namespace !== namespace) {
      namespace = fact.concept.namespace;
      family = knownNamespace(namespace);
    }
    if (!family) continue;
    known.push(fact);
    namespaces.set(family, (namespaces.get(family) ?? 0) + 1);
    if (fact.number == null) continue;
    const list = numeric.get(fact.concept.localName);
    if (list) list.push(fact as NumericFact);
    else numeric.set(fact.concept.localName, [fact as NumericFact]);
  }
  return { uses, known, numeric, namespaces };
}

const isPlain = (context: Context) => context.dimensions.length === 0 && !context.forever && context.end !== undefined;

/**
 * The current and prior periods, read from the contexts the facts use. The current period ends on
 * the balance-sheet date; it starts where the most used undimensioned duration ending then starts.
 * The prior period ends on the earlier date most facts are reported at, no later than a week after the
 * current start (52- and 53-week years leave a gap or an overlap of a few days; a stray fact dated on
 * the first day of the year must not pass for the comparatives).
 */
export function periods(
  instance: Instance,
  balanceSheetDate: string,
  uses: ReadonlyMap<string, number> = indexFacts(instance).uses,
): { current: Period; prior?: Period } {
  const used: Context[] = [];
  for (const context of instance.contexts.values()) if (isPlain(context) && uses.has(context.id)) used.push(context);
  const startOf = (end: string) => {
    let best: Context | undefined;
    for (const context of used) {
      if (context.start === undefined || context.end !== end) continue;
      if (!best || (uses.get(context.id) ?? 0) > (uses.get(best.id) ?? 0)) best = context;
    }
    return best?.start;
  };
  const current: Period = { start: startOf(balanceSheetDate), end: balanceSheetDate };
  const limit = current.start ? addDays(current.start, 7) : addDays(balanceSheetDate, -28);
  const factsAt = new Map<string, number>();
  for (const context of used) {
    const end = context.end as string;
    if (end < balanceSheetDate && end <= limit) factsAt.set(end, (factsAt.get(end) ?? 0) + (uses.get(context.id) ?? 0));
  }
  let priorEnd: string | undefined;
  for (const [end, count] of factsAt) {
    const best = priorEnd === undefined ? -1 : (factsAt.get(priorEnd) as number);
    if (count > best || (count === best && end > (priorEnd as string))) priorEnd = end;
  }
  return priorEnd ? { current, prior: { start: startOf(priorEnd), end: priorEnd } } : { current };
}

function inPeriod(context: Context, figure: FigureConcepts, period: Period): boolean {
  if (figure.period === 'instant') return context.start === undefined && context.end === period.end;
  return period.start !== undefined && context.start === period.start && context.end === period.end;
}

/**
 * The member that marks a group's consolidated figures in the FRC taxonomies. The facts of the
 * parent company alone name no member of that dimension.
 */
const CONSOLIDATED: MemberByName = { dimension: 'GroupCompanyDataDimension', member: 'Consolidated' };

/**
 * Whether a fact's context gives a figure: for the company, no member at all, or only members of the
 * choice; for the group, the consolidated member as well, and no other.
 */
function qualifies(context: Context, choice: ConceptChoice, scope: FigureSet): boolean {
  let consolidated = false;
  let chosen = 0;
  for (const named of context.dimensions) {
    if (named.typed) return false;
    const { localName } = named.dimension;
    if (scope === 'group' && !consolidated && localName === CONSOLIDATED.dimension && named.member === CONSOLIDATED.member) {
      consolidated = true;
      continue;
    }
    if (!choice.members?.some((wanted) => localName === wanted.dimension && named.member === wanted.member)) return false;
    chosen++;
  }
  return (scope !== 'group' || consolidated) && (choice.members ? chosen > 0 : chosen === 0);
}

class Deriver {
  readonly conflicts: Conflict[] = [];
  /** The currency of each unit, worked out once: a filing's facts name a few units hundreds of times. */
  private readonly currencies = new Map<string | undefined, string | undefined>();

  constructor(
    private readonly instance: Instance,
    private readonly entryName: string,
    /** Facts of known UK concepts with a number, by local name. */
    private readonly numeric: ReadonlyMap<string, NumericFact[]>,
  ) {}

  private candidates(choice: ConceptChoice, figure: FigureConcepts, period: Period, money: boolean, scope: FigureSet): Candidate[] {
    const found: Candidate[] = [];
    for (const fact of this.numeric.get(choice.localName) ?? []) {
      const context = this.instance.contexts.get(fact.contextRef);
      if (!context || !inPeriod(context, figure, period) || !qualifies(context, choice, scope)) continue;
      const currency = this.currency(fact.unitRef);
      if (money ? currency === undefined : currency !== undefined) continue;
      found.push({ fact, context, currency });
    }
    return found;
  }

  private provenance({ fact, context }: Candidate): FactProvenance {
    return { entryName: this.entryName, concept: fact.concept.written, namespace: fact.concept.namespace, contextId: context.id };
  }

  private currency(unitRef: string | undefined): string | undefined {
    if (this.currencies.has(unitRef)) return this.currencies.get(unitRef);
    const unit = unitRef === undefined ? undefined : this.instance.units.get(unitRef);
    const [measure, ...rest] = unit?.measures ?? [];
    let currency: string | undefined;
    if (measure && rest.length === 0 && !unit?.divide) {
      const iso = measure.namespace === ISO4217 || measure.written.startsWith('iso4217:');
      if (iso && /^[A-Z]{3}$/.test(measure.localName)) currency = measure.localName;
    }
    this.currencies.set(unitRef, currency);
    return currency;
  }

  /** The one value the candidates agree on; a disagreement is recorded and gives nothing. */
  private agreed(figure: MoneyFigure | 'employees', label: FigureSet, candidates: readonly Candidate[]): Candidate | undefined {
    if (candidates.length <= 1) return candidates[0];
    const values = new Set(candidates.map((c) => `${decimalToString(c.fact.number)} ${c.currency ?? ''}`));
    if (values.size <= 1) return candidates[0];
    this.conflicts.push({
      figure,
      period: label,
      values: candidates.map((c) => ({
        value: decimalToString(c.fact.number),
        unit: c.currency ?? c.fact.unitRef,
        provenance: this.provenance(c),
      })),
    });
    return undefined;
  }

  money(figure: MoneyFigure, period: Period, label: FigureSet) {
    const concepts = MONEY_FIGURES[figure];
    for (const choice of concepts.concepts) {
      const candidates = this.candidates(choice, concepts, period, true, label);
      if (candidates.length === 0) continue;
      const chosen = this.agreed(figure, label, candidates);
      if (!chosen) return undefined;
      const amountMinor = toMinorUnits(chosen.fact.number);
      return amountMinor === null ? undefined : { amountMinor, currency: chosen.currency as string, provenance: [this.provenance(chosen)] };
    }
    if (!concepts.parts) return undefined;
    const parts: Candidate[] = [];
    for (const localName of concepts.parts) {
      const candidates = this.candidates({ localName }, concepts, period, true, label);
      if (candidates.length === 0) continue;
      const chosen = this.agreed(figure, label, candidates);
      if (!chosen) return undefined;
      parts.push(chosen);
    }
    const currency = parts[0]?.currency;
    if (!currency || parts.some((part) => part.currency !== currency)) return undefined;
    let amountMinor = 0;
    for (const part of parts) {
      const minor = toMinorUnits(part.fact.number);
      if (minor === null) return undefined;
      amountMinor += minor;
    }
    return Number.isSafeInteger(amountMinor)
      ? { amountMinor, currency, provenance: parts.map((part) => this.provenance(part)) }
      : undefined;
  }

  employees(period: Period, label: FigureSet) {
    for (const choice of EMPLOYEES.concepts) {
      const candidates = this.candidates(choice, EMPLOYEES, period, false, label);
      if (candidates.length === 0) continue;
      const chosen = this.agreed('employees', label, candidates);
      const count = chosen ? toNumber(chosen.fact.number) : null;
      return chosen && count !== null ? { count, provenance: [this.provenance(chosen)] } : undefined;
    }
    return undefined;
  }

  figures(period: Period, label: FigureSet): PeriodFigures {
    const figures: Record<string, unknown> = { periodEnd: period.end };
    if (period.start) figures.periodStart = period.start;
    for (const figure of MONEY_FIGURE_NAMES) {
      const value = this.money(figure, period, label);
      if (value) figures[figure] = value;
    }
    const employees = this.employees(period, label);
    if (employees) figures.employees = employees;
    return figures as PeriodFigures;
  }
}

/**
 * A first set of accounts has no comparatives, only opening balances (fixed assets brought forward at
 * the day before the first day). The prior period counts when the filing compares: a prior profit and
 * loss period, or a prior balance sheet.
 */
function hasComparatives(figures: PeriodFigures): boolean {
  return (
    figures.periodStart !== undefined ||
    figures.netAssets !== undefined ||
    figures.totalAssetsLessCurrentLiabilities !== undefined ||
    figures.currentAssets !== undefined
  );
}

/** Companies House's 2009 abbreviated-accounts schema, whatever its date. */
const CH_ABBREVIATED_ACCOUNTS = 'companieshouse.gov.uk/ef/xbrl/uk/fr/gaap/ae/';

const hasFigures = (figures: PeriodFigures) => figures.employees !== undefined || MONEY_FIGURE_NAMES.some((figure) => figures[figure]);
const MONEY_FIGURE_NAMES = Object.keys(MONEY_FIGURES) as MoneyFigure[];

/** The dimension member a fact's context names for a dimension, by local names. */
function memberOf(instance: Instance, fact: Fact, dimension: string): string | undefined {
  const context = instance.contexts.get(fact.contextRef);
  return context?.dimensions.find((d) => d.dimension.localName === dimension && !d.typed)?.member;
}

/**
 * What kind of accounts the filing says it is. The FRC business taxonomy states it with empty facts
 * (AccountingStandardsApplied; AccountsType, before 2022 AccountsTypeFullOrAbbreviated) whose context
 * names a member: Micro-entities (FRS 105),
 * SmallEntities (FRS 102 section 1A), FullAccounts, AbridgedAccounts, FilletedAccounts,
 * AbbreviatedAccounts. A true dormant flag comes first; then the standard; then the accounts type
 * (abridged, filleted and abbreviated accounts are open to small companies alone). UK GAAP 2009
 * filings say none of this, and Companies House's 2009 XBRL schema (ae:) was for small companies'
 * abbreviated accounts.
 */
export function accountsType(
  instance: Instance,
  known: readonly Fact[] = indexFacts(instance).known,
): { type: AccountsType; basis: string } | undefined {
  // One pass over the facts for the few concepts that say it; then the rules in order.
  const standards: Fact[] = [];
  const types: Fact[] = [];
  let dormant: Fact | undefined;
  let ae: Fact | undefined;
  let namespace: string | undefined;
  for (const fact of known) {
    const { localName } = fact.concept;
    if (!ae && fact.concept.namespace !== namespace) {
      namespace = fact.concept.namespace;
      if (namespace.includes(CH_ABBREVIATED_ACCOUNTS)) ae = fact;
    }
    if (localName === 'AccountingStandardsApplied') standards.push(fact);
    else if (localName === 'AccountsType' || localName === 'AccountsTypeFullOrAbbreviated') types.push(fact);
    else if (!dormant && DORMANT_CONCEPTS.includes(localName) && fact.text?.toLowerCase() === 'true') dormant = fact;
  }
  if (dormant) return { type: 'dormant', basis: `${dormant.concept.written} is true` };
  for (const fact of standards) {
    const member = memberOf(instance, fact, 'AccountingStandardsDimension');
    const basis = `${fact.concept.written} names ${member} (AccountingStandardsDimension)`;
    if (member === 'Micro-entities') return { type: 'micro-entity', basis };
    if (member === 'SmallEntities') return { type: 'small', basis };
  }
  for (const fact of types) {
    const member = memberOf(instance, fact, 'AccountsTypeDimension');
    const basis = `${fact.concept.written} names ${member} (AccountsTypeDimension)`;
    if (member === 'FullAccounts') return { type: 'full', basis };
    if (member === 'AbridgedAccounts' || member === 'FilletedAccounts' || member === 'AbbreviatedAccounts') {
      return { type: 'small', basis };
    }
  }
  if (ae) return { type: 'small', basis: `tagged in Companies House's abbreviated-accounts schema (${ae.concept.namespace})` };
  return undefined;
}

/** The generation and release most facts are tagged in; the first met wins a tie. */
function taxonomy(namespaces: ReadonlyMap<KnownNamespace, number>): { generation: TaxonomyGeneration; year: number } | undefined {
  const counts: { generation: TaxonomyGeneration; year: number; count: number }[] = [];
  for (const [known, count] of namespaces) {
    const entry = counts.find((candidate) => candidate.generation === known.generation && candidate.year === known.year);
    if (entry) entry.count += count;
    else counts.push({ generation: known.generation, year: known.year, count });
  }
  let best: { generation: TaxonomyGeneration; year: number; count: number } | undefined;
  for (const entry of counts) if (!best || entry.count > best.count) best = entry;
  return best && { generation: best.generation, year: best.year };
}

export function deriveFiling(instance: Instance, input: DerivationInput): AccountsFiling {
  const index = indexFacts(instance);
  const { current, prior } = periods(instance, input.balanceSheetDate, index.uses);
  const deriver = new Deriver(instance, input.entryName, index.numeric);
  const currentFigures = deriver.figures(current, 'current');
  const priorFigures = prior ? deriver.figures(prior, 'prior') : undefined;
  const groupFigures = deriver.figures(current, 'group');
  const type = accountsType(instance, index.known);
  const generation = taxonomy(index.namespaces);
  return {
    entryName: input.entryName,
    companyNumber: input.companyNumber,
    balanceSheetDate: input.balanceSheetDate,
    ...(current.start ? { periodStart: current.start } : {}),
    periodEnd: current.end,
    format: instance.kind,
    ...(generation ? { taxonomy: generation } : {}),
    ...(type ? { accountsType: type } : {}),
    current: currentFigures,
    ...(priorFigures && hasComparatives(priorFigures) ? { prior: priorFigures } : {}),
    ...(hasFigures(groupFigures) ? { group: groupFigures } : {}),
    conflicts: deriver.conflicts,
  };
}
