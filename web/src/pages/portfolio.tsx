import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, type PortfolioPage, type PortfolioRow } from '../api';
import { PageTitle, Status } from '../components';
import { when } from '../format';
import { REGISTER_LABELS } from '../labels';
import { Pager, usePagedList } from '../paging';
import { href } from '../router';
import { TableScroll } from '../table-scroll';

/** What the hash keeps (#/portfolio/<query>): a reload or a shared link shows the same table. */
type Filters = Partial<Record<FilterName, string>>;
type FilterName =
  | 'q'
  | 'jurisdiction'
  | 'status'
  | 'risk'
  | 'riskTrend'
  | 'riskChangedWithinDays'
  | 'signal'
  | 'changedWithinDays'
  | 'sort'
  | 'order';
const FILTER_NAMES: readonly FilterName[] = [
  'q',
  'jurisdiction',
  'status',
  'risk',
  'riskTrend',
  'riskChangedWithinDays',
  'signal',
  'changedWithinDays',
  'sort',
  'order',
];
const PAGE_SIZE = 50;

const RISK_LEVELS = ['Low', 'Moderate', 'High', 'Severe'] as const;
const STATUSES: ReadonlyArray<readonly [string, string]> = [
  ['active', 'Active'],
  ['dormant', 'Dormant'],
  ['liquidation', 'Liquidation'],
  ['administration', 'Administration'],
  ['receivership', 'Receivership'],
  ['voluntary_arrangement', 'Voluntary arrangement'],
  ['insolvency_proceedings', 'Insolvency proceedings'],
  ['dissolved', 'Dissolved'],
  ['ceased', 'Ceased'],
  ['closed', 'Closed'],
  ['converted', 'Converted'],
  ['removed', 'Removed'],
  ['other', 'Other'],
];
const SIGNALS: ReadonlyArray<readonly [string, string]> = [
  ['any', 'Any active signal'],
  ['warning', 'A warning or worse'],
  ['critical', 'A critical signal'],
];
const TRENDS: ReadonlyArray<readonly [string, string]> = [
  ['up', 'Rose at its last change'],
  ['down', 'Fell at its last change'],
];
const CHANGED: ReadonlyArray<readonly [string, string]> = [
  ['1', 'In the last day'],
  ['7', 'In the last 7 days'],
  ['14', 'In the last 14 days'],
  ['30', 'In the last 30 days'],
];
/** The filters chosen from a list, in the order the form shows them. */
const SELECTS: ReadonlyArray<{ id: FilterName; label: string; any: string; options: ReadonlyArray<readonly [string, string]> }> = [
  { id: 'riskTrend', label: 'Risk trend', any: 'Either way', options: TRENDS },
  { id: 'riskChangedWithinDays', label: 'Risk changed', any: 'Any time', options: CHANGED },
  { id: 'status', label: 'Trading status', any: 'Any status', options: STATUSES },
  { id: 'signal', label: 'Early signals', any: 'With or without', options: SIGNALS },
  { id: 'changedWithinDays', label: 'Profile changed', any: 'Any time', options: CHANGED },
  { id: 'jurisdiction', label: 'Register', any: 'Both registers', options: REGISTER_LABELS },
];
const COLUMNS: ReadonlyArray<readonly [sort: string | undefined, title: string]> = [
  ['name', 'Company'],
  [undefined, 'Status'],
  ['risk', 'Risk'],
  ['creditLimit', 'Credit limit'],
  ['signals', 'Active signals'],
  ['lastChange', 'Last change'],
  [undefined, 'Last fetched'],
];

const NO_LIMIT: Record<string, string> = {
  no_filed_accounts: 'No limit: no filed accounts',
  dormant: 'No limit: dormant',
  ended: 'No limit: company ended',
  figures_in_other_currency: 'No limit: figures in another currency',
};

function filtersOf(text: string | undefined): Filters {
  const params = new URLSearchParams(text ?? '');
  const filters: Filters = {};
  for (const name of FILTER_NAMES) {
    const value = params.get(name);
    if (value) filters[name] = value;
  }
  return filters;
}

function show(filters: Filters): void {
  const params = new URLSearchParams();
  for (const name of FILTER_NAMES) {
    const value = filters[name]?.trim();
    if (value) params.set(name, value);
  }
  const text = params.toString();
  window.location.hash = text ? href('portfolio', text) : href('portfolio');
}

/** Each applied filter in words, for the line that says what emptied the table. */
function describe(filters: Filters): Array<[FilterName, string]> {
  const described: Array<[FilterName, string]> = [];
  const label = (pairs: ReadonlyArray<readonly [string, string]>, value: string) => pairs.find(([v]) => v === value)?.[1] ?? value;
  if (filters.q) described.push(['q', `name or number containing "${filters.q}"`]);
  if (filters.jurisdiction) described.push(['jurisdiction', `register ${label(REGISTER_LABELS, filters.jurisdiction)}`]);
  if (filters.status) described.push(['status', `status ${label(STATUSES, filters.status)}`]);
  if (filters.risk) described.push(['risk', `risk ${filters.risk.split(',').join(' or ')}`]);
  if (filters.riskTrend) described.push(['riskTrend', `risk that ${filters.riskTrend === 'up' ? 'rose' : 'fell'} at its last change`]);
  if (filters.riskChangedWithinDays)
    described.push(['riskChangedWithinDays', `risk changed ${label(CHANGED, filters.riskChangedWithinDays).toLowerCase()}`]);
  if (filters.signal) described.push(['signal', label(SIGNALS, filters.signal).toLowerCase()]);
  if (filters.changedWithinDays)
    described.push(['changedWithinDays', `changed ${label(CHANGED, filters.changedWithinDays).toLowerCase()}`]);
  return described;
}

// One formatter each, made once: a page of 50 rows would otherwise build 150 of them.
const CURRENCIES = new Map<string, Intl.NumberFormat>();
const money = (amount: { amountMinor: number; currency: string }) => {
  let format = CURRENCIES.get(amount.currency);
  if (!format) {
    format = new Intl.NumberFormat('en-GB', { style: 'currency', currency: amount.currency, maximumFractionDigits: 0 });
    CURRENCIES.set(amount.currency, format);
  }
  return format.format(amount.amountMinor / 100);
};
const DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
const day = (iso: string | null) => (iso ? DAY.format(new Date(iso)) : '—');

const RISK_TONE: Record<string, string> = { Low: 'good', Moderate: 'info', High: 'warn', Severe: 'bad' };
const SEVERITY_TONE: Record<string, string> = { info: 'info', warning: 'warn', critical: 'bad' };
const statusTone = (status: string) => (status === 'active' ? 'good' : status === 'dormant' ? 'info' : 'bad');

export function Portfolio({ filterText }: { filterText: string | undefined }) {
  const applied = useMemo(() => filtersOf(filterText), [filterText]);
  const [search, setSearch] = useState(applied.q ?? '');
  useEffect(() => setSearch(applied.q ?? ''), [applied.q]);
  const query = useMemo(() => {
    const asked: Record<string, string> = { limit: String(PAGE_SIZE) };
    for (const name of FILTER_NAMES) if (applied[name]) asked[name] = applied[name] as string;
    return asked;
  }, [applied]);
  const [totals, setTotals] = useState<Pick<PortfolioPage, 'matched' | 'watched' | 'complete'>>();
  const list = usePagedList<PortfolioRow, Record<string, string>>(async (asked, cursor) => {
    const page = await api.portfolio(asked, cursor);
    setTotals({ matched: page.matched, watched: page.watched, complete: page.complete });
    return page;
  }, query);

  const change = (name: FilterName, value: string) => show({ ...applied, [name]: value });
  const risks = new Set((applied.risk ?? '').split(',').filter(Boolean));
  const toggleRisk = (level: string, on: boolean) => {
    const next = RISK_LEVELS.filter((each) => (each === level ? on : risks.has(each)));
    change('risk', next.join(','));
  };
  const sort = applied.sort ?? 'name';
  const order = applied.order ?? 'asc';
  const sortBy = (column: string) =>
    show({ ...applied, sort: column, order: column === sort ? (order === 'asc' ? 'desc' : 'asc') : column === 'name' ? 'asc' : 'desc' });
  const described = describe(applied);
  const empty = !list.loading && !list.error && list.items.length === 0;

  return (
    <section class="portfolio">
      <PageTitle>Portfolio</PageTitle>
      <p>
        Every company your systems fetched through the API, with its profile's latest figures. A change to any of them is sent to your
        webhook endpoints.
      </p>
      <search>
        <form
          class="portfolio-filters"
          aria-label="Filter the portfolio"
          onSubmit={(event) => {
            event.preventDefault();
            change('q', search);
          }}
        >
          <div class="field">
            <label for="portfolio-q">Name or number</label>
            <span class="inline">
              <input id="portfolio-q" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} size={18} />
              <button type="submit" class="secondary">
                Search
              </button>
            </span>
          </div>
          <fieldset class="field risk-levels">
            <legend>Risk level</legend>
            {RISK_LEVELS.map((level) => (
              <label key={level} class="check">
                <input type="checkbox" checked={risks.has(level)} onChange={(e) => toggleRisk(level, e.currentTarget.checked)} />
                {level}
              </label>
            ))}
          </fieldset>
          {SELECTS.map((select) => (
            <FilterSelect key={select.id} {...select} value={applied[select.id]} onChange={change} />
          ))}
          {described.length > 0 ? (
            <button type="button" class="secondary" onClick={() => show({ sort: applied.sort, order: applied.order })}>
              Clear filters
            </button>
          ) : null}
        </form>
      </search>
      {totals && !totals.complete ? (
        <Status
          tone="error"
          message={`This client watches more than ${totals.watched.toLocaleString('en-GB')} companies: the table covers the first ${totals.watched.toLocaleString('en-GB')} by register and number. Use GET /v1/events or your own records for the rest.`}
        />
      ) : null}
      {list.error ? <Status message={list.error} tone="error" /> : null}
      {empty ? <EmptyResult described={described} applied={applied} watched={totals?.watched} /> : null}
      <TableScroll label="Watched companies table">
        <table aria-busy={list.loading ? 'true' : 'false'}>
          <caption>
            Watched companies
            {totals ? `: ${totals.matched.toLocaleString('en-GB')} of ${totals.watched.toLocaleString('en-GB')}` : ''}
            {described.length > 0 ? ` (${described.map(([, words]) => words).join(', ')})` : ''}
          </caption>
          <thead>
            <tr>
              {COLUMNS.map(([column, title]) =>
                column ? (
                  <th key={title} scope="col" aria-sort={sort === column ? (order === 'asc' ? 'ascending' : 'descending') : undefined}>
                    <button type="button" class="sort" onClick={() => sortBy(column)}>
                      {title}
                      <span aria-hidden="true">{sort === column ? (order === 'asc' ? ' ▲' : ' ▼') : ' ↕'}</span>
                    </button>
                  </th>
                ) : (
                  <th key={title} scope="col">
                    {title}
                  </th>
                ),
              )}
            </tr>
          </thead>
          <tbody>
            {list.items.map((row) => (
              <Row key={`${row.jurisdiction}#${row.companyNumber}`} row={row} />
            ))}
          </tbody>
        </table>
      </TableScroll>
      <Pager list={list} label="Portfolio pages" />
    </section>
  );
}

function FilterSelect(props: {
  id: FilterName;
  label: string;
  any: string;
  options: ReadonlyArray<readonly [string, string]>;
  value: string | undefined;
  onChange: (name: FilterName, value: string) => void;
}) {
  return (
    <div class="field">
      <label for={`portfolio-${props.id}`}>{props.label}</label>
      <select id={`portfolio-${props.id}`} value={props.value ?? ''} onChange={(e) => props.onChange(props.id, e.currentTarget.value)}>
        <option value="">{props.any}</option>
        {props.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}

function Row({ row }: { row: PortfolioRow }) {
  return (
    <tr>
      <td>
        <a href={href('companies', row.jurisdiction, row.companyNumber)}>{row.name ?? row.companyNumber}</a>
        <span class="meta">
          {row.jurisdiction} {row.companyNumber}
        </span>
      </td>
      <td>
        {row.tradingStatus ? (
          <>
            <span class={`badge ${statusTone(row.tradingStatus.status)}`}>{row.tradingStatus.status.replace(/_/g, ' ')}</span>
            <span class="meta">{row.tradingStatus.registerStatus}</span>
          </>
        ) : (
          '—'
        )}
      </td>
      <td class="risk">
        {row.risk ? (
          <>
            <span class={`badge ${RISK_TONE[row.risk.level] ?? ''}`}>
              {row.risk.level} {row.risk.score}
            </span>
            <RiskTrend risk={row.risk} />
          </>
        ) : (
          '—'
        )}
      </td>
      <td class="number">
        {row.creditLimit ? money(row.creditLimit) : <span class="meta">{NO_LIMIT[row.noLimitReason ?? ''] ?? 'No limit'}</span>}
      </td>
      <td>
        {row.worstSignal ? (
          <>
            <span class={`badge ${SEVERITY_TONE[row.worstSignal.severity] ?? ''}`}>
              {row.activeSignals} · {row.worstSignal.severity}
            </span>
            <span class="meta">{row.worstSignal.summary}</span>
          </>
        ) : (
          <span class="meta">None</span>
        )}
      </td>
      <td class="nowrap">{day(row.lastChange)}</td>
      <td class="nowrap">{when(row.lastFetchedAt)}</td>
    </tr>
  );
}

/** The score's last move, in words a screen reader says too: the arrow alone would say nothing. */
function RiskTrend({ risk }: { risk: NonNullable<PortfolioRow['risk']> }) {
  if (!risk.trend || !risk.previous) return <span class="meta">No change seen</span>;
  const rose = risk.trend === 'up';
  return (
    <span class={`meta trend ${rose ? 'rose' : 'fell'}`}>
      <span aria-hidden="true">{rose ? '▲ ' : '▼ '}</span>
      {rose ? 'Rose' : 'Fell'} from {risk.previous.score} ({risk.previous.level}) on {day(risk.changedAt)}
    </span>
  );
}

/** Which filter emptied the table: with one, that one; with several, each whose removal would bring companies back. */
function EmptyResult({
  described,
  applied,
  watched,
}: {
  described: Array<[FilterName, string]>;
  applied: Filters;
  watched: number | undefined;
}) {
  const [freeing, setFreeing] = useState<Array<[string, number]>>();
  useEffect(() => {
    setFreeing(undefined);
    if (described.length < 2) return;
    let live = true;
    Promise.all(
      described.map(async ([name, words]) => {
        const without: Record<string, string> = { limit: '1' };
        for (const other of FILTER_NAMES) if (other !== name && applied[other]) without[other] = applied[other] as string;
        return [words, (await api.portfolio(without)).matched] as [string, number];
      }),
    ).then(
      (counts) => live && setFreeing(counts.filter(([, matched]) => matched > 0)),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [JSON.stringify(applied)]);
  if (described.length === 0) {
    return (
      <p class="empty">{watched === 0 ? 'No watched companies yet: fetch a profile through the API.' : 'No watched company to show.'}</p>
    );
  }
  if (described.length === 1) return <p class="empty">No watched company has {described[0]?.[1]}.</p>;
  return (
    <p class="empty">
      No watched company matches all of: {described.map(([, words]) => words).join('; ')}.
      {(freeing ?? []).map(([words, matched]) => ` Without ${words}: ${matched.toLocaleString('en-GB')} would show.`).join('')}
    </p>
  );
}
