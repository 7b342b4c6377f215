import { useState } from 'preact/hooks';
import type { Subscription } from '../api';

type Filters = NonNullable<Subscription['filters']>;

const EVENT_TYPES = [
  ['profile.changed', 'A block changed'],
  ['profile.early_signal.detected', 'Early signal detected'],
  ['profile.early_signal.updated', 'Early signal updated'],
] as const;
const BLOCKS = [
  ['overview', 'Overview'],
  ['tradingStatus', 'Trading status'],
  ['filingBehaviour', 'Filing behaviour'],
  ['riskOfFailure', 'Risk of failure'],
  ['creditCapacity', 'Credit capacity'],
  ['earlySignals', 'Early signals'],
] as const;
const JURISDICTIONS = [
  ['GB', 'Great Britain'],
  ['IE', 'Ireland'],
] as const;

/** Ticked boxes as a filter list: none ticked, or all, means no filter on that field. */
function chosen<T extends string>(all: readonly (readonly [T, string])[], ticked: ReadonlySet<string>): T[] | undefined {
  const values = all.map(([value]) => value).filter((value) => ticked.has(value));
  return values.length === 0 || values.length === all.length ? undefined : values;
}

/** What to send: null when nothing narrows the events. */
export function filtersFrom(ticked: ReadonlySet<string>, companiesText: string): Filters | null {
  const companies = companiesText
    .split(/[\s,]+/)
    .map((text) => text.trim())
    .filter(Boolean);
  const filters = {
    ...(chosen(EVENT_TYPES, ticked) ? { eventTypes: chosen(EVENT_TYPES, ticked) } : {}),
    ...(chosen(BLOCKS, ticked) ? { blocks: chosen(BLOCKS, ticked) } : {}),
    ...(chosen(JURISDICTIONS, ticked) ? { jurisdictions: chosen(JURISDICTIONS, ticked) } : {}),
    ...(companies.length > 0 ? { companies } : {}),
  } as Filters;
  return Object.keys(filters).length === 0 ? null : filters;
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
  const current = subscription.filters ?? {};
  const initially = new Set<string>([
    ...(current.eventTypes ?? EVENT_TYPES.map(([value]) => value)),
    ...(current.blocks ?? BLOCKS.map(([value]) => value)),
    ...(current.jurisdictions ?? JURISDICTIONS.map(([value]) => value)),
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
        onSave(filtersFrom(ticked, companies));
      }}
    >
      <p class="hint">Untick what this endpoint does not need; everything ticked means every event.</p>
      <Boxes legend="Event types" options={EVENT_TYPES} ticked={ticked} toggle={toggle} />
      <Boxes legend="Blocks" options={BLOCKS} ticked={ticked} toggle={toggle} />
      <Boxes legend="Registers" options={JURISDICTIONS} ticked={ticked} toggle={toggle} />
      <label for="filter-companies">Only these companies (e.g. GB:15380840 IE:123456; empty for all)</label>
      <input id="filter-companies" value={companies} onInput={(e) => setCompanies(e.currentTarget.value)} />
      <button type="submit" class="secondary">
        Save filters
      </button>
    </form>
  );
}
