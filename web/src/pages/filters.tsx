import { useState } from 'preact/hooks';
import type { Subscription } from '../api';
import { Status } from '../components';
import { BLOCK_LABELS, REGISTER_LABELS } from '../labels';

type Filters = NonNullable<Subscription['filters']>;

const EVENT_TYPES = [
  ['profile.changed', 'A block changed'],
  ['profile.early_signal.detected', 'Early signal detected'],
  ['profile.early_signal.updated', 'Early signal updated'],
] as const;

const GROUPS = [
  ['eventTypes', 'event type', EVENT_TYPES],
  ['blocks', 'block', BLOCK_LABELS],
  ['jurisdictions', 'register', REGISTER_LABELS],
] as const;

/** The ticked values of a group; all of them ticked means no filter on that field. */
function chosen(all: readonly (readonly [string, string])[], ticked: ReadonlySet<string>): string[] | undefined {
  const values = all.map(([value]) => value).filter((value) => ticked.has(value));
  return values.length === all.length ? undefined : values;
}

/** What to send (null when nothing narrows the events), or why not: a group with nothing ticked would let no event through. */
export function filtersFrom(ticked: ReadonlySet<string>, companiesText: string): { filters: Filters | null } | { problem: string } {
  const companies = companiesText
    .split(/[\s,]+/)
    .map((text) => text.trim())
    .filter(Boolean);
  const filters: Record<string, string[]> = {};
  for (const [field, noun, options] of GROUPS) {
    const values = chosen(options, ticked);
    if (values?.length === 0)
      return { problem: `Tick at least one ${noun}: with none, this endpoint would receive nothing (disable it instead).` };
    if (values) filters[field] = values;
  }
  if (companies.length > 0) filters.companies = companies;
  return { filters: Object.keys(filters).length === 0 ? null : (filters as Filters) };
}

/** One line for a list of endpoints: which events this one receives. */
export function filtersSummary(filters: Subscription['filters']): string {
  if (!filters) return 'Every event';
  const labels = (options: readonly (readonly [string, string])[], values: readonly string[] | undefined) =>
    values && options.filter(([value]) => values.includes(value)).map(([, label]) => label);
  const parts = [
    labels(EVENT_TYPES, filters.eventTypes)?.join(' or '),
    labels(BLOCK_LABELS, filters.blocks)?.join(', '),
    labels(REGISTER_LABELS, filters.jurisdictions)?.join(' or '),
    filters.companies && `${filters.companies.length} ${filters.companies.length === 1 ? 'company' : 'companies'}`,
  ].filter(Boolean);
  return `Only: ${parts.join('; ')}`;
}

function Boxes({
  legend,
  options,
  ticked,
  toggle,
}: {
  legend: string;
  options: readonly (readonly [string, string])[];
  ticked: ReadonlySet<string>;
  toggle: (value: string) => void;
}) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      {options.map(([value, label]) => (
        <label key={value} class="check">
          <input type="checkbox" checked={ticked.has(value)} onChange={() => toggle(value)} /> {label}
        </label>
      ))}
    </fieldset>
  );
}

/** Which events the endpoint receives, among those of the companies the client watches. */
export function FiltersForm({ subscription, onSave }: { subscription: Subscription; onSave: (filters: Filters | null) => void }) {
  const [problem, setProblem] = useState<string>();
  const current = subscription.filters ?? {};
  const initially = new Set<string>([
    ...(current.eventTypes ?? EVENT_TYPES.map(([value]) => value)),
    ...(current.blocks ?? BLOCK_LABELS.map(([value]) => value)),
    ...(current.jurisdictions ?? REGISTER_LABELS.map(([value]) => value)),
  ]);
  const [ticked, setTicked] = useState<ReadonlySet<string>>(initially);
  const [companies, setCompanies] = useState((current.companies ?? []).join(' '));
  const toggle = (value: string) => {
    const next = new Set(ticked);
    if (next.has(value)) next.delete(value);
    else next.add(value);
    setTicked(next);
  };
  return (
    <form
      aria-label="Filters"
      onSubmit={(event) => {
        event.preventDefault();
        const chosenFilters = filtersFrom(ticked, companies);
        setProblem('problem' in chosenFilters ? chosenFilters.problem : undefined);
        if ('filters' in chosenFilters) onSave(chosenFilters.filters);
      }}
    >
      <p class="hint">Untick what this endpoint does not need; everything ticked means every event.</p>
      <Boxes legend="Event types" options={EVENT_TYPES} ticked={ticked} toggle={toggle} />
      <Boxes legend="Blocks" options={BLOCK_LABELS} ticked={ticked} toggle={toggle} />
      <Boxes legend="Registers" options={REGISTER_LABELS} ticked={ticked} toggle={toggle} />
      <label for="filter-companies">Only these companies (e.g. GB:15380840 IE:123456; empty for all)</label>
      <input id="filter-companies" value={companies} onInput={(e) => setCompanies(e.currentTarget.value)} />
      <Status message={problem} tone="error" />
      <button type="submit" class="secondary">
        Save filters
      </button>
    </form>
  );
}
