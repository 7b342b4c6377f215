import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoProfileReader } from '../../../shared/companies/dynamo-profile-reader';
import { HttpError } from '../../../shared/http/errors';
import { companiesTable, watchesTable } from '../../../shared/storage/tables';
import { DynamoWatchStore } from '../../../shared/watches/dynamo-watch-store';
import type { Watch } from '../../../shared/watches/watch-store';
import {
  MAX_PORTFOLIO,
  type PortfolioSources,
  parsePortfolioQuery,
  portfolioPage,
  recentPortfolios,
} from '../../../shared/workspace/portfolio';
import { portfolioProfileReader } from '../../../shared/workspace/portfolio-profiles';
import type { PortfolioRowView } from '../../../shared/workspace/wire';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { type PortfolioCompany, portfolioCompanies, seedPortfolio } from '../../support/portfolio-fixture';

const CLIENT = 'client_portfolio';
const now = new Date();
let tables: TestTables;
let sources: PortfolioSources;
let companies: PortfolioCompany[];

beforeAll(async () => {
  tables = await createTestTables([watchesTable, { ...companiesTable, stream: undefined }]);
  const names = tables.names as Record<string, string>;
  companies = portfolioCompanies(1_000);
  await seedPortfolio(tables.doc, { companies: names.companies as string, watches: names.watches as string }, CLIENT, companies, now);
  sources = {
    watches: new DynamoWatchStore(tables.doc, names.watches as string),
    profiles: portfolioProfileReader(tables.doc, names.companies as string),
    clock: () => now,
  };
}, 240_000);

const page = (query: string, clientId = CLIENT) => portfolioPage(sources, clientId, parsePortfolioQuery(new URLSearchParams(query)));

async function everyPage(query: string): Promise<PortfolioRowView[]> {
  const rows: PortfolioRowView[] = [];
  let cursor: string | null = null;
  do {
    const answer = await page(`${query}&cursor=${cursor ?? ''}`);
    expect(answer.items.length).toBeLessThanOrEqual(100);
    rows.push(...answer.items);
    cursor = answer.nextCursor;
  } while (cursor);
  return rows;
}

const refusal = async (query: string) => {
  try {
    await page(query);
  } catch (error) {
    if (error instanceof HttpError) return { status: error.status, code: error.code, parameter: error.details?.parameter };
    throw error;
  }
  throw new Error(`"${query}" was accepted`);
};

describe('the portfolio of 1,000 watched companies, read from DynamoDB Local', () => {
  it('answers a first page of 50, and says how long it took', async () => {
    // Warm: the first call pays for connections and JIT, not for the portfolio.
    await page('');
    const started = performance.now();
    const first = await page('');
    const ms = performance.now() - started;
    console.log(`portfolio: first page of 1,000 watched companies in ${ms.toFixed(0)} ms`);
    expect(first.items).toHaveLength(50);
    expect(first.watched).toBe(1_000);
    expect(first.matched).toBe(1_000);
    expect(first.complete).toBe(true);
  });

  it('reads the columns of 1,000 profiles, and prints how that compares with whole profiles', async () => {
    const watched = companies.map(({ content }) => content);
    const reader = new DynamoProfileReader(tables.doc, tables.names.companies as string);
    let started = performance.now();
    const whole = await reader.getMany(watched);
    const wholeMs = performance.now() - started;
    started = performance.now();
    const columns = await sources.profiles(watched as unknown as Watch[]);
    const columnsMs = performance.now() - started;
    console.log(`portfolio: 1,000 whole profiles read in ${wholeMs.toFixed(0)} ms, their columns in ${columnsMs.toFixed(0)} ms`);
    expect(columns.size).toBe(1_000);
    const one = columns.get('GB#90000011');
    expect(one).toEqual({
      jurisdiction: 'GB',
      companyNumber: '90000011',
      name: whole.get('GB#90000011')?.name,
      updatedAt: whole.get('GB#90000011')?.updatedAt,
      tradingStatus: { status: 'dormant', registerStatus: 'Active - Dormant' },
      riskOfFailure: { level: 'Severe', score: whole.get('GB#90000011')?.riskOfFailure.score },
      creditCapacity: { creditLimit: whole.get('GB#90000011')?.creditCapacity.creditLimit },
      earlySignals: { signals: whole.get('GB#90000011')?.earlySignals.signals },
    });
    expect(columns.get('GB#90000006')?.creditCapacity).toEqual({ creditLimit: null, reason: { code: 'no_filed_accounts' } });
  });

  it('shows each row with the figures of its profile', async () => {
    const { items } = await page('q=90000011');
    const expected = companies[11]?.content;
    expect(items).toEqual([
      expect.objectContaining({
        jurisdiction: 'GB',
        companyNumber: '90000011',
        name: expected?.name,
        tradingStatus: { status: 'dormant', registerStatus: 'Active - Dormant' },
        risk: { level: 'Severe', score: expected?.riskOfFailure.score, trend: null, previous: null, changedAt: null },
        creditLimit: expected?.creditCapacity.creditLimit,
        noLimitReason: null,
        // Its critical signal has expired: only the active warning counts.
        activeSignals: 1,
        worstSignal: { kind: 'accounts_overdue', severity: 'warning', summary: 'Accounts are overdue.' },
        lastChange: expect.any(String),
      }),
    ]);
    const [limitless] = (await page('q=90000006')).items;
    expect(limitless).toMatchObject({ creditLimit: null, noLimitReason: 'no_filed_accounts' });
    const [signalled] = (await page('q=90000010')).items;
    expect(signalled).toMatchObject({ activeSignals: 2, worstSignal: { kind: 'insolvency_notice', severity: 'critical' } });
    // Company 3's score was 10 lower three days before its last write (3 days ago, an hour before now's hour).
    const [rose] = (await page('q=90000003')).items;
    const lastWrite = new Date(now.getTime() - 3 * 86_400_000 - 3_600_000).toISOString();
    expect(rose?.risk).toEqual({
      level: 'Severe',
      score: companies[3]?.content.riskOfFailure.score,
      trend: 'up',
      previous: { level: 'Severe', score: companies[3]?.earlierScore },
      changedAt: lastWrite,
    });
    const [fell] = (await page('q=90000005')).items;
    expect(fell?.risk).toMatchObject({ trend: 'down', previous: { score: companies[5]?.earlierScore } });
  });

  it('pages through every company once, in the order asked, in pages that never exceed the limit', async () => {
    const rows = await everyPage('sort=risk&order=desc&limit=100');
    expect(rows).toHaveLength(1_000);
    expect(new Set(rows.map((row) => `${row.jurisdiction}#${row.companyNumber}`)).size).toBe(1_000);
    const scores = rows.map((row) => row.risk?.score ?? -1);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const names = (await everyPage('sort=name&limit=100')).map((row) => row.name ?? '');
    expect(names).toEqual([...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
  });

  it('puts the companies without a credit limit last whichever way the limits sort', async () => {
    for (const order of ['asc', 'desc']) {
      const rows = await everyPage(`sort=creditLimit&order=${order}&limit=100`);
      const firstNull = rows.findIndex((row) => row.creditLimit === null);
      expect(rows.slice(firstNull).every((row) => row.creditLimit === null)).toBe(true);
      expect(firstNull).toBe(1_000 - companies.filter((c) => c.content.creditCapacity.creditLimit === null).length);
    }
  });

  it('filters by risk, status, signal, last change, register and name, each alone and together', async () => {
    const count = (predicate: (company: PortfolioCompany) => boolean) => companies.filter(predicate).length;
    const active = (company: PortfolioCompany) => company.content.earlySignals.signals.filter((s) => s.state === 'active');
    expect((await page('risk=High,Severe')).matched).toBe(count((c) => ['High', 'Severe'].includes(c.content.riskOfFailure.level)));
    expect((await page('status=liquidation')).matched).toBe(count((c) => c.content.tradingStatus.status === 'liquidation'));
    expect((await page('signal=any')).matched).toBe(count((c) => active(c).length > 0));
    expect((await page('signal=warning')).matched).toBe(count((c) => active(c).some((s) => s.severity !== 'info')));
    expect((await page('signal=critical')).matched).toBe(count((c) => active(c).some((s) => s.severity === 'critical')));
    expect((await page('changedWithinDays=7')).matched).toBe(count((c) => c.daysAgo < 7));
    const score = (c: PortfolioCompany) => c.content.riskOfFailure.score;
    const rose = (c: PortfolioCompany) => c.earlierScore !== undefined && c.earlierScore < score(c);
    expect((await page('riskTrend=up')).matched).toBe(count(rose));
    expect((await page('riskTrend=down')).matched).toBe(count((c) => c.earlierScore !== undefined && c.earlierScore > score(c)));
    // "Whose risk rose this week": the score went up, and that change was within 7 days.
    expect((await page('riskTrend=up&riskChangedWithinDays=7')).matched).toBe(count((c) => rose(c) && c.daysAgo < 7));
    expect(count((c) => rose(c) && c.daysAgo < 7)).toBeGreaterThan(0);
    expect((await page('jurisdiction=IE')).matched).toBe(count((c) => c.content.jurisdiction === 'IE'));
    expect((await page('q=zephyr')).items.map((row) => row.name)).toEqual(['ZEPHYR QUARRIES LTD']);
    const both = await page('risk=Severe&signal=critical&jurisdiction=GB&limit=100');
    expect(both.matched).toBe(
      count(
        (c) =>
          c.content.riskOfFailure.level === 'Severe' && c.content.jurisdiction === 'GB' && active(c).some((s) => s.severity === 'critical'),
      ),
    );
    expect(both.items.every((row) => row.risk?.level === 'Severe' && row.worstSignal?.severity === 'critical')).toBe(true);
  });

  it("shows a client nothing of another client's watches", async () => {
    expect((await page('', 'client_other')).items).toEqual([]);
  });

  it('refuses a cursor reused with other filters or order, or one it never issued, naming the cursor', async () => {
    const first = await page('risk=High');
    expect(first.nextCursor).toEqual(expect.any(String));
    expect(await refusal(`risk=Low&cursor=${first.nextCursor}`)).toEqual({ status: 400, code: 'invalid_cursor', parameter: 'cursor' });
    expect(await refusal(`risk=High&order=desc&cursor=${first.nextCursor}`)).toMatchObject({ code: 'invalid_cursor' });
    expect(await refusal('cursor=bm90LWEtY3Vyc29y')).toMatchObject({ status: 400, parameter: 'cursor' });
    // The page size is not part of the query: a person may change it and go on.
    expect((await page(`risk=High&limit=10&cursor=${first.nextCursor}`)).items).toHaveLength(10);
  });

  it.each([
    ['risk=Extreme', 'risk'],
    ['status=thriving', 'status'],
    ['signal=some', 'signal'],
    ['changedWithinDays=0', 'changedWithinDays'],
    ['riskTrend=sideways', 'riskTrend'],
    ['riskChangedWithinDays=31', 'riskChangedWithinDays'],
    ['changedWithinDays=31', 'changedWithinDays'],
    ['changedWithinDays=1.5', 'changedWithinDays'],
    ['sort=turnover', 'sort'],
    ['order=up', 'order'],
    ['limit=101', 'limit'],
    ['limit=-1', 'limit'],
    ['jurisdiction=FR', 'jurisdiction'],
    [`q=${'x'.repeat(201)}`, 'q'],
  ])('refuses %s with a 400 naming %s', async (query, parameter) => {
    expect(await refusal(query)).toMatchObject({ status: 400, code: `invalid_${parameter}`, parameter });
  });
});

describe('a portfolio held for the seconds a person goes through it', () => {
  const portfolio = (name: string) => ({ rows: [{ name }] as unknown as PortfolioRowView[], complete: true });

  it('answers from the reading it holds until the hold ends, then reads again', async () => {
    let at = 0;
    const held = recentPortfolios({ holdMs: 15_000, clients: 2, clock: () => new Date(at) });
    let reads = 0;
    const read = async () => portfolio(`reading ${++reads}`);
    expect((await held('a', read)).rows[0]?.name).toBe('reading 1');
    at = 14_999;
    expect((await held('a', read)).rows[0]?.name).toBe('reading 1');
    at = 15_000;
    expect((await held('a', read)).rows[0]?.name).toBe('reading 2');
  });

  it("keeps no failed reading, and each client's own, the oldest dropped past the bound", async () => {
    const held = recentPortfolios({ holdMs: 15_000, clients: 2, clock: () => new Date(0) });
    await expect(held('a', async () => Promise.reject(new Error('throttled')))).rejects.toThrow('throttled');
    await Promise.resolve();
    expect((await held('a', async () => portfolio('a again'))).rows[0]?.name).toBe('a again');
    expect((await held('b', async () => portfolio('b'))).rows[0]?.name).toBe('b');
    expect((await held('a', async () => portfolio('not read'))).rows[0]?.name).toBe('a again');
    await held('c', async () => portfolio('c'));
    expect((await held('a', async () => portfolio('a read anew'))).rows[0]?.name).toBe('a read anew');
  });
});

describe('beyond the bound', () => {
  it(`reads ${MAX_PORTFOLIO.toLocaleString('en-GB')} watches and says the list is not complete`, async () => {
    const watch = (n: number): Watch => ({
      jurisdiction: 'GB',
      companyNumber: `8${String(n).padStart(7, '0')}`,
      watchedSince: '2026-01-01T00:00:00.000Z',
      lastFetchedAt: '2026-01-01T00:00:00.000Z',
    });
    const all = Array.from({ length: MAX_PORTFOLIO + 10 }, (_, n) => watch(n));
    const answer = await portfolioPage(
      {
        ...sources,
        // Pages of a client's watches as the store gives them; the bound is the portfolio's, not the store's.
        watches: {
          listWatches: async (_client, { limit, cursor }) => {
            const start = Number(cursor ?? 0);
            const items = all.slice(start, start + limit);
            return start + limit < all.length ? { items, nextCursor: String(start + limit) } : { items };
          },
        },
        profiles: async () => new Map(),
      },
      CLIENT,
      parsePortfolioQuery(new URLSearchParams('')),
    );
    expect(answer).toMatchObject({ watched: MAX_PORTFOLIO, complete: false });
  });
});
