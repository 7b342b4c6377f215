import { createHash } from 'node:crypto';
import type { CompanyProfile, EarlySignal, Jurisdiction, RiskOfFailure } from '../companies/profile';
import { JURISDICTIONS, TRADING_STATUSES } from '../companies/profile';
import { riskTrend } from '../companies/risk-history';
import { badRequest } from '../http/errors';
import type { Watch, WatchStore } from '../watches/watch-store';
import type { PortfolioPageView, PortfolioRiskView, PortfolioRowView, PortfolioSignalView } from './wire';

/**
 * A client's watched companies as one table: every watch read (up to MAX_PORTFOLIO), joined to its
 * profile, filtered and sorted in memory, then cut into pages. A client watches what it fetched, so
 * the whole list is bounded by its own use; reading it all is what lets every column sort.
 */
export const MAX_PORTFOLIO = 5_000;
export const DEFAULT_PORTFOLIO_PAGE = 50;
export const MAX_PORTFOLIO_PAGE = 100;
export const MAX_CHANGED_WITHIN_DAYS = 30;
const MAX_Q_LENGTH = 200;
/** Watches read a page at a time; each page's profiles are read while the next page is. */
const WATCH_PAGE = 250;

export const RISK_LEVELS: readonly RiskOfFailure['level'][] = ['Low', 'Moderate', 'High', 'Severe'];
export const SIGNAL_FILTERS = ['any', 'warning', 'critical'] as const;
export const RISK_TRENDS = ['up', 'down'] as const;
export const PORTFOLIO_SORTS = ['name', 'risk', 'creditLimit', 'signals', 'lastChange'] as const;
export type PortfolioSort = (typeof PORTFOLIO_SORTS)[number];
type TradingStatusName = (typeof TRADING_STATUSES)[number];

export interface PortfolioQuery {
  readonly q?: string;
  readonly jurisdiction?: Jurisdiction;
  readonly status?: readonly TradingStatusName[];
  readonly risk?: readonly RiskOfFailure['level'][];
  readonly signal?: (typeof SIGNAL_FILTERS)[number];
  /** The way the risk score went at its last change. */
  readonly riskTrend?: (typeof RISK_TRENDS)[number];
  /** The risk score changed within this many days. */
  readonly riskChangedWithinDays?: number;
  readonly changedWithinDays?: number;
  readonly sort: PortfolioSort;
  readonly order: 'asc' | 'desc';
  readonly limit: number;
  readonly cursor?: string;
}

/** What the portfolio reads of a profile: the columns, not the provenance and figures behind them. */
export type PortfolioProfile = Pick<
  CompanyProfile,
  'jurisdiction' | 'companyNumber' | 'name' | 'updatedAt' | 'tradingStatus' | 'riskOfFailure' | 'creditCapacity' | 'earlySignals'
>;

export interface PortfolioSources {
  readonly watches: Pick<WatchStore, 'listWatches'>;
  /** By `<jurisdiction>#<companyNumber>`; a watch whose profile is missing shows its number alone. */
  readonly profiles: (keys: readonly Watch[]) => Promise<Map<string, PortfolioProfile>>;
  readonly clock: () => Date;
}

const SEVERITY_RANK = { info: 1, warning: 2, critical: 3 } as const;
const SIGNAL_FLOOR = { any: 1, warning: 2, critical: 3 } as const;

/** Each refusal names its parameter, as GET /v1/events does. */
const refuse = (parameter: string, message: string) => badRequest(`invalid_${parameter}`, message, { parameter });

function oneOf<T extends string>(params: URLSearchParams, name: string, allowed: readonly T[]): T | undefined {
  const value = params.get(name);
  if (value === null || value === '') return undefined;
  if (!allowed.includes(value as T)) throw refuse(name, `${name} must be one of ${allowed.join(', ')}, not "${value.slice(0, 40)}".`);
  return value as T;
}

function listOf<T extends string>(params: URLSearchParams, name: string, allowed: readonly T[]): T[] | undefined {
  const value = params.get(name);
  if (value === null || value === '') return undefined;
  const items = value.split(',').map((item) => item.trim());
  const wrong = items.find((item) => !allowed.includes(item as T));
  if (wrong !== undefined) throw refuse(name, `${name} takes a comma list of ${allowed.join(', ')}; "${wrong.slice(0, 40)}" is not one.`);
  return [...new Set(items as T[])];
}

function wholeNumber(params: URLSearchParams, name: string, min: number, max: number): number | undefined {
  const value = params.get(name);
  if (value === null || value === '') return undefined;
  if (!/^\d{1,4}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw refuse(name, `${name} must be a whole number from ${min} to ${max}.`);
  }
  return Number(value);
}

/** GET /workspace/api/portfolio's parameters, checked: a bad one is a 400 naming it, never a 500. */
export function parsePortfolioQuery(params: URLSearchParams): PortfolioQuery {
  const q = (params.get('q') ?? '').trim();
  if (q.length > MAX_Q_LENGTH) throw refuse('q', `q must be at most ${MAX_Q_LENGTH} characters.`);
  const jurisdiction = oneOf(params, 'jurisdiction', JURISDICTIONS);
  const status = listOf(params, 'status', TRADING_STATUSES);
  const risk = listOf(params, 'risk', RISK_LEVELS);
  const signal = oneOf(params, 'signal', SIGNAL_FILTERS);
  const riskTrend = oneOf(params, 'riskTrend', RISK_TRENDS);
  const riskChangedWithinDays = wholeNumber(params, 'riskChangedWithinDays', 1, MAX_CHANGED_WITHIN_DAYS);
  const changedWithinDays = wholeNumber(params, 'changedWithinDays', 1, MAX_CHANGED_WITHIN_DAYS);
  const cursor = params.get('cursor') || undefined;
  return {
    ...(q ? { q } : {}),
    ...(jurisdiction ? { jurisdiction } : {}),
    ...(status ? { status } : {}),
    ...(risk ? { risk } : {}),
    ...(signal ? { signal } : {}),
    ...(riskTrend ? { riskTrend } : {}),
    ...(riskChangedWithinDays ? { riskChangedWithinDays } : {}),
    ...(changedWithinDays ? { changedWithinDays } : {}),
    sort: oneOf(params, 'sort', PORTFOLIO_SORTS) ?? 'name',
    order: oneOf(params, 'order', ['asc', 'desc'] as const) ?? 'asc',
    limit: wholeNumber(params, 'limit', 1, MAX_PORTFOLIO_PAGE) ?? DEFAULT_PORTFOLIO_PAGE,
    ...(cursor ? { cursor } : {}),
  };
}

/** The row as the table shows it: the profile's own figures, nothing estimated. */
export function portfolioRow(watch: Watch, profile: PortfolioProfile | undefined): PortfolioRowView {
  const active = (profile?.earlySignals.signals ?? []).filter((signal) => signal.state === 'active');
  const worst = active.reduce<EarlySignal | undefined>(
    (top, signal) => (top === undefined || SEVERITY_RANK[signal.severity] > SEVERITY_RANK[top.severity] ? signal : top),
    undefined,
  );
  const credit = profile?.creditCapacity;
  return {
    jurisdiction: watch.jurisdiction,
    companyNumber: watch.companyNumber,
    name: profile?.name ?? null,
    tradingStatus: profile ? { status: profile.tradingStatus.status, registerStatus: profile.tradingStatus.registerStatus } : null,
    risk: profile ? riskView(profile.riskOfFailure) : null,
    creditLimit: credit?.creditLimit ?? null,
    noLimitReason: credit && credit.creditLimit === null ? (credit.reason?.code ?? null) : null,
    activeSignals: active.length,
    worstSignal: worst ? signalView(worst) : null,
    lastChange: profile?.updatedAt ?? null,
    watchedSince: watch.watchedSince,
    lastFetchedAt: watch.lastFetchedAt,
  };
}

function riskView(risk: Pick<RiskOfFailure, 'level' | 'score' | 'previous'>): PortfolioRiskView {
  const previous = risk.previous ?? null;
  return {
    level: risk.level,
    score: risk.score,
    trend: riskTrend(risk),
    previous: previous && { level: previous.level, score: previous.score },
    changedAt: previous?.replacedAt ?? null,
  };
}

const signalView = (signal: EarlySignal): PortfolioSignalView => ({
  kind: signal.kind,
  severity: signal.severity,
  summary: signal.summary,
});

function matches(row: PortfolioRowView, query: PortfolioQuery, now: Date): boolean {
  if (query.jurisdiction && row.jurisdiction !== query.jurisdiction) return false;
  if (query.q) {
    const q = query.q.toLowerCase();
    if (!row.companyNumber.toLowerCase().includes(q) && !(row.name ?? '').toLowerCase().includes(q)) return false;
  }
  if (query.status && !(row.tradingStatus && query.status.includes(row.tradingStatus.status as TradingStatusName))) return false;
  if (query.risk && !(row.risk && query.risk.includes(row.risk.level))) return false;
  if (query.signal && !(row.worstSignal && SEVERITY_RANK[row.worstSignal.severity] >= SIGNAL_FLOOR[query.signal])) return false;
  if (query.riskTrend && row.risk?.trend !== query.riskTrend) return false;
  if (query.riskChangedWithinDays && !within(row.risk?.changedAt ?? null, query.riskChangedWithinDays, now)) return false;
  if (query.changedWithinDays && !within(row.lastChange, query.changedWithinDays, now)) return false;
  return true;
}

const within = (at: string | null, days: number, now: Date) => at !== null && Date.parse(at) >= now.getTime() - days * 86_400_000;

type SortValue = string | number | null;

/** A company without the figure (no profile, no limit) sorts after every company with one, either way. */
function sortValue(row: PortfolioRowView, sort: PortfolioSort): SortValue {
  switch (sort) {
    case 'name':
      return (row.name ?? row.companyNumber).toLowerCase();
    case 'risk':
      return row.risk?.score ?? null;
    case 'creditLimit':
      return row.creditLimit?.amountMinor ?? null;
    case 'signals':
      // The count first, then the worst severity among equal counts.
      return row.activeSignals * 10 + (row.worstSignal ? SEVERITY_RANK[row.worstSignal.severity] : 0);
    case 'lastChange':
      return row.lastChange;
  }
}

const rowKey = (row: Pick<PortfolioRowView, 'jurisdiction' | 'companyNumber'>) => `${row.jurisdiction}#${row.companyNumber}`;

/** The position of a row in the order asked: the sort value, then the company key so no two rows tie. */
type Position = readonly [SortValue, string];

function compare(a: Position, b: Position, order: 'asc' | 'desc'): number {
  if (a[0] !== b[0]) {
    if (a[0] === null) return 1;
    if (b[0] === null) return -1;
    const byValue = a[0] < b[0] ? -1 : 1;
    return order === 'asc' ? byValue : -byValue;
  }
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

/** Everything but the cursor and page size: a cursor is only good for the query that issued it. */
const queryFingerprint = (query: PortfolioQuery) => {
  const { cursor: _cursor, limit: _limit, ...asked } = query;
  return createHash('sha256').update(JSON.stringify(asked)).digest('base64url').slice(0, 16);
};

interface CursorContent {
  readonly v: 1;
  readonly f: string;
  readonly after: Position;
}

const encodeCursor = (content: CursorContent) => Buffer.from(JSON.stringify(content)).toString('base64url');

function decodeCursor(cursor: string, fingerprint: string): Position {
  const invalid = () =>
    badRequest('invalid_cursor', 'The cursor is not one this listing returned for these filters and this order.', {
      parameter: 'cursor',
    });
  let content: Partial<CursorContent>;
  try {
    content = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorContent>;
  } catch {
    throw invalid();
  }
  const after = content?.after;
  const validValue = (value: unknown) => value === null || typeof value === 'string' || typeof value === 'number';
  if (content?.v !== 1 || !Array.isArray(after) || after.length !== 2 || !validValue(after[0]) || typeof after[1] !== 'string') {
    throw invalid();
  }
  if (content.f !== fingerprint) throw invalid();
  return after as unknown as Position;
}

/** A client's whole portfolio as read at one moment: every row, before filters and order. */
export interface Portfolio {
  readonly rows: readonly PortfolioRowView[];
  /** False when the client watches more than MAX_PORTFOLIO companies: the rows are the first MAX_PORTFOLIO. */
  readonly complete: boolean;
}

/**
 * Every watch of the client (to MAX_PORTFOLIO) joined to its profile's columns. Each page of watches
 * starts its profiles' read as it arrives, so the two reads overlap.
 */
export async function readPortfolio(sources: PortfolioSources, clientId: string): Promise<Portfolio> {
  const watches: Watch[] = [];
  const profileReads: Promise<Map<string, PortfolioProfile>>[] = [];
  let cursor: string | undefined;
  do {
    const page = await sources.watches.listWatches(clientId, {
      limit: Math.min(WATCH_PAGE, MAX_PORTFOLIO + 1 - watches.length),
      ...(cursor ? { cursor } : {}),
    });
    const kept = page.items.slice(0, MAX_PORTFOLIO - watches.length);
    watches.push(...page.items);
    if (kept.length > 0) profileReads.push(sources.profiles(kept));
    cursor = page.nextCursor;
  } while (cursor !== undefined && watches.length <= MAX_PORTFOLIO);
  const profiles = new Map((await Promise.all(profileReads)).flatMap((read) => [...read]));
  return {
    rows: watches.slice(0, MAX_PORTFOLIO).map((watch) => portfolioRow(watch, profiles.get(rowKey(watch)))),
    complete: watches.length <= MAX_PORTFOLIO,
  };
}

/**
 * Keeps each client's portfolio for `holdMs` after reading it, so the pages, filters and orders a
 * person goes through in the next seconds come from one reading: fast, and consistent with each other
 * (a row cannot move between pages). At most `clients` portfolios are kept, the oldest dropped first.
 */
export function recentPortfolios({
  holdMs,
  clients,
  clock,
}: {
  holdMs: number;
  clients: number;
  clock: () => Date;
}): (clientId: string, read: () => Promise<Portfolio>) => Promise<Portfolio> {
  const kept = new Map<string, { readonly at: number; readonly portfolio: Promise<Portfolio> }>();
  return (clientId, read) => {
    const now = clock().getTime();
    const held = kept.get(clientId);
    if (held && now - held.at < holdMs) return held.portfolio;
    kept.delete(clientId);
    const portfolio = read();
    // A failed read is not kept: the next call tries again.
    portfolio.catch(() => kept.get(clientId)?.portfolio === portfolio && kept.delete(clientId));
    kept.set(clientId, { at: now, portfolio });
    for (const oldest of kept.keys()) {
      if (kept.size <= clients) break;
      kept.delete(oldest);
    }
    return portfolio;
  };
}

/** One page of the client's portfolio for the query: filtered, in order, after the cursor's row. */
export async function portfolioPage(
  sources: PortfolioSources,
  clientId: string,
  query: PortfolioQuery,
  read: (clientId: string) => Promise<Portfolio> = (client) => readPortfolio(sources, client),
): Promise<PortfolioPageView> {
  const fingerprint = queryFingerprint(query);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, fingerprint);
  const portfolio = await read(clientId);
  const now = sources.clock();
  const rows = portfolio.rows
    .filter((row) => matches(row, query, now))
    .map((row) => ({ row, position: [sortValue(row, query.sort), rowKey(row)] as Position }))
    .sort((a, b) => compare(a.position, b.position, query.order));
  const start = after === undefined ? 0 : rows.findIndex((entry) => compare(entry.position, after, query.order) > 0);
  const first = start === -1 ? rows.length : start;
  const page = rows.slice(first, first + query.limit);
  const last = page[page.length - 1];
  const more = first + query.limit < rows.length && last !== undefined;
  return {
    items: page.map((entry) => entry.row),
    nextCursor: more ? encodeCursor({ v: 1, f: fingerprint, after: last.position }) : null,
    matched: rows.length,
    watched: portfolio.rows.length,
    complete: portfolio.complete,
  };
}
