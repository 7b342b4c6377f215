import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, api, type EventRow } from '../api';
import { PageTitle, Status } from '../components';
import { when } from '../format';
import { BLOCK_LABELS, REGISTER_LABELS } from '../labels';
import { Pager, usePagedList } from '../paging';
import { href } from '../router';

/** The filters GET /v1/events takes, as the hash holds them (#/events/<query>): a reload keeps them. */
type EventFilters = Partial<Record<FilterName, string>>;
type FilterName = 'type' | 'block' | 'jurisdiction' | 'companyNumber' | 'since' | 'until';
const FILTER_NAMES: readonly FilterName[] = ['type', 'block', 'jurisdiction', 'companyNumber', 'since', 'until'];

const EVENT_TYPES = [
  ['profile.changed', 'Block changed'],
  ['profile.early_signal.detected', 'Signal detected'],
  ['profile.early_signal.updated', 'Signal updated'],
] as const;
/** Events are kept this long (the API's EVENT_DAYS): the earliest "from" date offered. */
const EVENT_DAYS = 30;

const labelOf = (options: readonly (readonly [string, string])[], value: string | null) =>
  options.find(([key]) => key === value)?.[1] ?? value ?? '—';

export function filtersOf(text: string | undefined): EventFilters {
  const params = new URLSearchParams(text ?? '');
  const filters: EventFilters = {};
  for (const name of FILTER_NAMES) {
    const value = params.get(name);
    if (value) filters[name] = value;
  }
  return filters;
}

/** The query the API is sent: a "from" date is the start of that UTC day, a "to" date its end. */
function queryOf(filters: EventFilters): Record<string, string> {
  const query: Record<string, string> = {};
  for (const name of FILTER_NAMES) {
    const value = filters[name];
    if (!value) continue;
    if (name === 'since') query.since = `${value}T00:00:00Z`;
    else if (name === 'until') query.until = `${value}T23:59:59.999Z`;
    else query[name] = value;
  }
  return query;
}

/**
 * What an event says changed, in words, from its envelope: the idempotency key names the change
 * (profile.changed:GB:<number>:<block>:v<version>; early_signal:GB:<number>:<signal id>:<state>).
 */
export function summaryOf(event: Pick<EventRow, 'type' | 'block' | 'idempotencyKey'>): string {
  const parts = event.idempotencyKey.split(':');
  if (event.type === 'profile.changed') {
    const version = /^v(\d+)$/.exec(parts[4] ?? '')?.[1];
    return `${labelOf(BLOCK_LABELS, event.block)} changed${version ? ` (profile version ${version})` : ''}`;
  }
  if (event.type === 'profile.early_signal.detected' || event.type === 'profile.early_signal.updated') {
    const signal = signalName(parts[3] ?? '');
    const state = parts[4] ?? '';
    return event.type === 'profile.early_signal.detected' ? `New early signal: ${signal}` : `Early signal ${state}: ${signal}`;
  }
  return event.type;
}

/** sig_accounts_overdue_2025-10-02 → "accounts overdue (2025-10-02)". */
function signalName(id: string): string {
  const [, kind = id, date] = /^(?:sig_)?(.*?)(?:_(\d{4}-\d{2}-\d{2}))?$/.exec(id) ?? [];
  const words = kind.replace(/_/g, ' ');
  return date ? `${words} (${date})` : words;
}

const BADGE_TONES: Record<string, string> = {
  'profile.changed': 'info',
  'profile.early_signal.detected': 'warn',
  'profile.early_signal.updated': 'info',
};

const dayText = (date: Date) => date.toISOString().slice(0, 10);

export function Events({ filterText }: { filterText: string | undefined }) {
  const applied = useMemo(() => filtersOf(filterText), [filterText]);
  const [draft, setDraft] = useState<EventFilters>(applied);
  useEffect(() => setDraft(applied), [applied]);
  // Which filter the API refused, and its words, shown beside that filter.
  const [refusal, setRefusal] = useState<{ field: string; message: string }>();
  const query = useMemo(() => queryOf(applied), [applied]);
  const list = usePagedList<EventRow, Record<string, string>>(async (asked, cursor) => {
    try {
      const page = await api.events(asked, cursor);
      setRefusal(undefined);
      return page;
    } catch (error) {
      setRefusal(
        error instanceof ApiError && error.status === 400 && error.field ? { field: error.field, message: error.message } : undefined,
      );
      throw error;
    }
  }, query);

  const apply = (next: EventFilters) => {
    const params = new URLSearchParams();
    for (const name of FILTER_NAMES) {
      const value = next[name]?.trim();
      if (value) params.set(name, value);
    }
    const text = params.toString();
    window.location.hash = text ? href('events', text) : href('events');
  };
  const set = (name: FilterName) => (event: Event) =>
    setDraft((current) => ({ ...current, [name]: (event.currentTarget as HTMLInputElement | HTMLSelectElement).value }));
  const today = new Date();
  const earliest = dayText(new Date(today.getTime() - EVENT_DAYS * 24 * 3600 * 1000));
  const refused = (name: FilterName) => (refusal?.field === name ? refusal.message : undefined);
  const fieldProps = (name: FilterName) => ({
    id: `events-${name}`,
    value: draft[name] ?? '',
    onInput: set(name),
    ...(refused(name) ? { 'aria-invalid': true, 'aria-describedby': `events-${name}-problem` } : {}),
  });
  const problem = (name: FilterName) =>
    refused(name) ? (
      <span class="field-problem" id={`events-${name}-problem`}>
        {refused(name)}
      </span>
    ) : null;
  const otherProblem = list.error && !(refusal && FILTER_NAMES.includes(refusal.field as FilterName));

  return (
    <section class="events-feed">
      <PageTitle>Events</PageTitle>
      <p>
        What changed at the companies your systems watch, over the last {EVENT_DAYS} days, newest first: the events your webhook endpoints
        are sent, and what <code>GET /v1/events</code> answers.
      </p>
      <search>
        <form
          class="events-filters"
          aria-label="Filter events"
          onSubmit={(event) => {
            event.preventDefault();
            apply(draft);
          }}
        >
          <div class="field">
            <label for="events-type">Event type</label>
            <select {...fieldProps('type')}>
              <option value="">Any type</option>
              {EVENT_TYPES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
            {problem('type')}
          </div>
          <div class="field">
            <label for="events-block">Block</label>
            <select {...fieldProps('block')}>
              <option value="">Any block</option>
              {BLOCK_LABELS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
            {problem('block')}
          </div>
          <div class="field">
            <label for="events-jurisdiction">Register</label>
            <select {...fieldProps('jurisdiction')}>
              <option value="">Both registers</option>
              {REGISTER_LABELS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
            {problem('jurisdiction')}
          </div>
          <div class="field">
            <label for="events-companyNumber">Company number</label>
            <input {...fieldProps('companyNumber')} type="text" inputMode="text" autoComplete="off" spellcheck={false} size={12} />
            {problem('companyNumber')}
          </div>
          <div class="field">
            <label for="events-since">From (UTC)</label>
            <input {...fieldProps('since')} type="date" min={earliest} max={dayText(today)} />
            {problem('since')}
          </div>
          <div class="field">
            <label for="events-until">To (UTC)</label>
            <input {...fieldProps('until')} type="date" min={earliest} max={dayText(today)} />
            {problem('until')}
          </div>
          <div class="actions">
            <button type="submit">Apply filters</button>
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setDraft({});
                apply({});
              }}
            >
              Clear
            </button>
          </div>
        </form>
      </search>
      {otherProblem ? <Status message={String(list.error)} tone="error" /> : null}
      {/* A wide table scrolls in its own region, which keyboard users reach to scroll it (WCAG 2.1.1). */}
      {/* biome-ignore lint/a11y/useSemanticElements: the scrolling box is a named region, as the pattern for wide tables asks */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled without a mouse */}
      <div class="table-scroll" tabIndex={0} role="region" aria-label="Events, newest first">
        <table aria-busy={list.loading ? 'true' : 'false'}>
          <caption>Events, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Event</th>
              <th scope="col">Company</th>
              <th scope="col">Block</th>
              <th scope="col">What changed</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((event) => (
              <tr key={event.id} data-event-id={event.id}>
                <td class="nowrap">
                  <time dateTime={event.occurredAt}>{when(event.occurredAt)}</time>
                </td>
                <td>
                  <span class={`badge ${BADGE_TONES[event.type] ?? 'info'}`}>{labelOf(EVENT_TYPES, event.type)}</span>
                </td>
                <td>
                  {event.data.jurisdiction && event.data.companyNumber ? (
                    <>
                      <a href={href('companies', event.data.jurisdiction, event.data.companyNumber)}>
                        {event.companyName ?? event.data.companyNumber}
                      </a>
                      <span class="meta nowrap">
                        {' '}
                        {event.data.jurisdiction} {event.data.companyNumber}
                      </span>
                    </>
                  ) : (
                    '—'
                  )}
                </td>
                <td>{labelOf(BLOCK_LABELS, event.block)}</td>
                <td>{summaryOf(event)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!list.loading && !list.error && list.items.length === 0 ? (
        <p>{Object.keys(applied).length > 0 ? 'No event matches these filters.' : `No events in the last ${EVENT_DAYS} days.`}</p>
      ) : null}
      <Pager list={list} label="Events pages" />
    </section>
  );
}
