import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountsPeriodsOf,
  DEMO_NOTICE,
  type DemoAccounts,
  type DemoAccountsCompany,
  type DemoAccountsKind,
  demoAccounts,
  demoAccountsCompanyOf,
  demoAccountsDocument,
  demoAccountsFiling,
  demoAccountsKind,
  writeDemoAccountsZip,
} from '../../../demo/accounts-filings';
import type { PeriodAccounts } from '../../../demo/accounts-filings-figures';
import { demoProfile } from '../../../demo/demo-profile';
import type { RegisterFacts } from '../../../demo/register-facts';
import { addDays, firstPeriodEnd, nextPeriodEnd } from '../../../local/register-calendar';
import { DemoRegisterActivity, readDemoStreamCompanies } from '../../../local/register-stream-publisher';
import { type AccountsFiling, type PeriodFigures, readAccountsZip, readFiling } from '../../../shared/accounts';
import { readEntryName } from '../../../shared/accounts/entry-name';
import type { ProfileContent } from '../../../shared/companies/profile';

const TODAY = '2026-11-28';

const company = (changes: Partial<DemoAccountsCompany> = {}): DemoAccountsCompany => ({
  companyNumber: '15380840',
  name: 'CPA GATES LTD',
  companyType: 'ltd',
  incorporatedOn: '2024-01-02',
  status: 'active',
  lastAccounts: { madeUpTo: '2025-01-31', category: 'micro-entity' },
  ...changes,
});

/** The first company number from 15400000 on whose kind and figures pass the test. */
function findCompany(
  base: Partial<DemoAccountsCompany>,
  test: (kind: DemoAccountsKind, accounts: DemoAccounts) => boolean,
): DemoAccountsCompany {
  for (let number = 15_400_000; number < 15_410_000; number++) {
    const candidate = company({ ...base, companyNumber: String(number) });
    const reading = accountsPeriodsOf(candidate, TODAY);
    if (!reading.ok) throw new Error(reading.reason);
    const accounts = demoAccounts(candidate, reading.periods);
    if (test(accounts.kind, accounts)) return candidate;
  }
  throw new Error('no company number gives such accounts');
}

const second = { madeUpTo: '2026-01-31' };
/** One company of each kind, first and second accounts, and loss-makers with net liabilities. */
const KINDS = (): Record<string, DemoAccountsCompany> => ({
  'micro-entity, first accounts': company(),
  'micro-entity, second accounts': company({ companyNumber: '15380841', lastAccounts: { ...second, category: 'MICRO ENTITY' } }),
  'small filleted, second accounts': findCompany(
    { lastAccounts: { ...second, category: 'total-exemption-full' } },
    (kind) => kind === 'small-filleted',
  ),
  'small with profit and loss, first accounts': findCompany(
    { lastAccounts: { madeUpTo: '2025-01-31', category: 'TOTAL EXEMPTION FULL' } },
    (kind) => kind === 'small-profit-and-loss',
  ),
  'small with a loss and net liabilities, second accounts': findCompany(
    { lastAccounts: { ...second, category: 'small' } },
    (kind, accounts) =>
      kind === 'small-profit-and-loss' && accounts.current.profitAndLoss.profitOrLoss < 0 && accounts.current.balanceSheet.netAssets < 0,
  ),
  'micro-entity with net liabilities, first accounts': findCompany(
    { lastAccounts: { madeUpTo: '2025-01-31', category: 'micro-entity' } },
    (_kind, accounts) => accounts.current.balanceSheet.netAssets < 0,
  ),
  'full, second accounts': company({ companyNumber: '15380845', companyType: 'plc', lastAccounts: { ...second, category: 'full' } }),
  'dormant, first accounts': company({ companyNumber: '15380846', lastAccounts: { madeUpTo: '2025-01-31', category: 'DORMANT' } }),
  'dormant, second accounts, by status': company({
    companyNumber: '15380847',
    status: 'dormant',
    lastAccounts: { ...second, category: null },
  }),
  'guarantee company without share capital': company({
    companyNumber: '15380848',
    companyType: 'private-limited-guarant-nsc',
    lastAccounts: { ...second, category: 'unaudited-abridged' },
  }),
  'limited liability partnership': company({
    companyNumber: 'OC451234',
    companyType: 'llp',
    lastAccounts: { madeUpTo: '2025-01-31', category: 'micro-entity' },
  }),
});

/** What the reader must find, in pence, for the lines each kind shows. */
function expectedFigures(kind: DemoAccountsKind, year: PeriodAccounts): Record<string, number> {
  const b = year.balanceSheet;
  const p = year.profitAndLoss;
  const figures: Record<string, number> = {
    netAssets: b.netAssets * 100,
    totalAssetsLessCurrentLiabilities: b.totalAssetsLessCurrentLiabilities * 100,
    currentAssets: b.currentAssets * 100,
    employees: year.employees,
  };
  if (kind === 'dormant') return { ...figures, cash: b.cash * 100 };
  Object.assign(figures, { creditorsDueWithinOneYear: b.creditorsWithinOneYear * 100, fixedAssets: b.fixedAssets * 100 });
  if (kind === 'micro-entity') return figures;
  Object.assign(figures, { cash: b.cash * 100 });
  if (kind === 'small-filleted') return figures;
  return { ...figures, turnover: p.turnover * 100, profitOrLoss: p.profitOrLoss * 100 };
}

function readFigures(figures: PeriodFigures): Record<string, number> {
  const read: Record<string, number> = {};
  for (const [figure, value] of Object.entries(figures)) {
    if (figure === 'employees') read.employees = (value as { count: number }).count;
    else if (typeof value === 'object' && value && 'amountMinor' in value) {
      expect(value.currency).toBe('GBP');
      read[figure] = value.amountMinor;
    }
  }
  return read;
}

const READ_TYPE: Record<DemoAccountsKind, string> = {
  'micro-entity': 'micro-entity',
  'small-filleted': 'small',
  'small-profit-and-loss': 'small',
  full: 'full',
  dormant: 'dormant',
};

describe('a demo accounts day', () => {
  let folder: string;
  const companies = KINDS();
  let filings: Map<string, AccountsFiling>;
  let written: Awaited<ReturnType<typeof writeDemoAccountsZip>>;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'demo-accounts-'));
    written = await writeDemoAccountsZip(folder, Object.values(companies), TODAY);
    filings = new Map();
    for await (const outcome of readAccountsZip(written.path)) {
      if (!outcome.ok) throw new Error(`${outcome.entryName} refused: ${outcome.reason}`);
      filings.set(outcome.filing.companyNumber, outcome.filing);
    }
  });

  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('is written as the register names its daily files, one entry per company with accounts', () => {
    expect(written.path).toBe(join(folder, `Bureau_Demo_Accounts-${TODAY}.zip`));
    expect(written.companies).toBe(Object.keys(companies).length);
    expect(written.skipped).toEqual([]);
    expect(written.entries.map((entry) => entry.companyNumber)).toEqual(
      Object.values(companies)
        .map((c) => c.companyNumber)
        .sort(),
    );
    expect(new Set(written.entries.map((entry) => entry.kind))).toEqual(
      new Set(['micro-entity', 'small-filleted', 'small-profit-and-loss', 'full', 'dormant']),
    );
  });

  it.each(Object.keys(KINDS()))('reads back every figure generated: %s', (label) => {
    const given = companies[label] as DemoAccountsCompany;
    const reading = accountsPeriodsOf(given, TODAY);
    if (!reading.ok) throw new Error(reading.reason);
    const generated = demoAccounts(given, reading.periods);
    const filing = filings.get(given.companyNumber) as AccountsFiling;

    expect(filing.accountsType?.type).toBe(READ_TYPE[generated.kind]);
    expect(filing.taxonomy).toEqual({ generation: 'frc-2022', year: 2024 });
    expect(filing.conflicts).toEqual([]);
    expect(filing.periodStart).toBe(generated.current.period.start);
    expect(filing.periodEnd).toBe(generated.current.period.end);
    expect(readFigures(filing.current)).toEqual(expectedFigures(generated.kind, generated.current));
    if (generated.prior) {
      expect(filing.prior?.periodStart).toBe(generated.prior.period.start);
      expect(filing.prior?.periodEnd).toBe(generated.prior.period.end);
      expect(readFigures(filing.prior as PeriodFigures)).toEqual(expectedFigures(generated.kind, generated.prior));
    } else {
      expect(filing.prior).toBeUndefined();
    }
  });

  it('names each entry with the number and balance-sheet date its document states', () => {
    for (const entry of written.entries) {
      const name = readEntryName(entry.entryName);
      expect(name).toEqual({
        ok: true,
        name: { companyNumber: entry.companyNumber, balanceSheetDate: entry.balanceSheetDate, kind: 'ixbrl' },
      });
      expect(entry.entryName).toMatch(/^Prod223_\d+_[A-Z0-9]{8}_\d{8}\.html$/);
      const filing = filings.get(entry.companyNumber) as AccountsFiling;
      expect(filing.entryName).toBe(entry.entryName);
      expect(filing.balanceSheetDate).toBe(entry.balanceSheetDate);
    }
    // The reader refuses a document whose own number or periods disagree with its name: the check has teeth.
    const filing = demoAccountsFiling(company(), TODAY);
    if (!filing.ok) throw new Error(filing.reason);
    const misnamed = readFiling('Prod223_4984_15380849_20250131.html', filing.filing.document);
    expect(misnamed).toMatchObject({ ok: false, reason: expect.stringContaining('not 15380849') });
    const misdated = readFiling('Prod223_4984_15380840_20250228.html', filing.filing.document);
    expect(misdated).toMatchObject({ ok: false, reason: expect.stringContaining('matches no period') });
  });

  it('tells a reader that the accounts are demo data, in a paragraph under the name that is no fact', () => {
    for (const given of Object.values(companies)) {
      const filing = demoAccountsFiling(given, TODAY);
      if (!filing.ok) throw new Error(filing.reason);
      const { document } = filing.filing;
      const heading = document.indexOf('<h1>');
      const notice = document.indexOf(`<p class="demo">${DEMO_NOTICE}`);
      expect(heading).toBeGreaterThan(0);
      expect(notice).toBe(document.indexOf('</h1>', heading) + '</h1>\n'.length);
      const paragraph = document.slice(notice, document.indexOf('</p>', notice));
      expect(paragraph).not.toContain('ix:');
      expect(document).toContain('<title>');
      expect(document.slice(document.indexOf('<title>'), document.indexOf('</title>'))).toContain('demo, not filed at Companies House');
    }
  });
});

describe('demo accounts figures', () => {
  const population = () =>
    Array.from({ length: 400 }, (_, index) =>
      company({
        companyNumber: String(15_500_000 + index * 7),
        incorporatedOn: `2024-01-${String(1 + (index % 28)).padStart(2, '0')}`,
        lastAccounts: {
          madeUpTo: index % 2 === 0 ? '2025-01-31' : '2026-01-31',
          category: [null, 'micro-entity', 'total-exemption-full', 'small', 'dormant', 'full'][index % 6] ?? null,
        },
      }),
    );

  it('balance: net current assets, total assets less current liabilities, net assets and equity agree', () => {
    for (const given of population()) {
      const reading = accountsPeriodsOf(given, TODAY);
      if (!reading.ok) throw new Error(reading.reason);
      const accounts = demoAccounts(given, reading.periods);
      for (const year of [accounts.current, ...(accounts.prior ? [accounts.prior] : [])]) {
        const b = year.balanceSheet;
        const p = year.profitAndLoss;
        expect(b.currentAssets - b.creditorsWithinOneYear).toBe(b.netCurrentAssets);
        expect(b.fixedAssets + b.netCurrentAssets).toBe(b.totalAssetsLessCurrentLiabilities);
        expect(b.totalAssetsLessCurrentLiabilities - b.creditorsAfterOneYear).toBe(b.netAssets);
        expect(b.shareCapital + b.retainedEarnings).toBe(b.equity);
        expect(b.equity).toBe(b.netAssets);
        expect(b.debtors + b.cash).toBe(b.currentAssets);
        expect(Math.min(b.debtors, b.cash, b.currentAssets, b.creditorsWithinOneYear, b.fixedAssets)).toBeGreaterThanOrEqual(0);
        expect(p.turnover - p.costOfSales).toBe(p.grossProfit);
        expect(p.grossProfit - p.administrativeExpenses).toBe(p.operatingProfit);
        expect(p.profitBeforeTax - p.tax).toBe(p.profitOrLoss);
      }
      if (accounts.prior) {
        const moved = accounts.current.balanceSheet.retainedEarnings - accounts.prior.balanceSheet.retainedEarnings;
        expect(moved).toBe(accounts.current.profitAndLoss.profitOrLoss);
      } else {
        expect(accounts.current.balanceSheet.retainedEarnings).toBe(accounts.current.profitAndLoss.profitOrLoss);
      }
    }
  });

  it('compares the second accounts with exactly the figures of the first', () => {
    for (const given of population().filter((c) => c.lastAccounts?.madeUpTo === '2026-01-31')) {
      const first = { ...given, lastAccounts: { madeUpTo: '2025-01-31', category: given.lastAccounts?.category ?? null } };
      const firstReading = accountsPeriodsOf(first, TODAY);
      const secondReading = accountsPeriodsOf(given, TODAY);
      if (!firstReading.ok || !secondReading.ok) throw new Error('both accounts are filed');
      expect(demoAccounts(given, secondReading.periods).prior).toEqual(demoAccounts(first, firstReading.periods).current);
    }
  });

  it('includes losses and net liabilities, and is plausible for a company a year or two old', () => {
    const all = population().map((given) => {
      const reading = accountsPeriodsOf(given, TODAY);
      if (!reading.ok) throw new Error(reading.reason);
      return demoAccounts(given, reading.periods);
    });
    const trading = all.filter((accounts) => accounts.kind !== 'dormant');
    const losses = trading.filter((accounts) => accounts.current.profitAndLoss.profitOrLoss < 0).length;
    const liabilities = trading.filter((accounts) => accounts.current.balanceSheet.netAssets < 0).length;
    expect(losses / trading.length).toBeGreaterThan(0.1);
    expect(liabilities / trading.length).toBeGreaterThan(0.05);
    for (const accounts of trading) {
      expect(accounts.current.profitAndLoss.turnover).toBeLessThan(accounts.kind === 'full' ? 15_000_000 : 5_000_000);
      if (accounts.kind === 'micro-entity') expect(accounts.current.profitAndLoss.turnover).toBeLessThan(1_000_000);
    }
  });
});

describe('which accounts the register facts let a company file', () => {
  it('files the first accounts of a January-2024 company from incorporation to its reference date in 2025', () => {
    const reading = accountsPeriodsOf(company(), TODAY);
    expect(reading).toEqual({
      ok: true,
      periods: { current: { start: '2024-01-02', end: '2025-01-31' }, history: [{ start: '2024-01-02', end: '2025-01-31' }] },
    });
  });

  it('files later accounts for the twelve months to the made-up date, compared with the period before', () => {
    const reading = accountsPeriodsOf(company({ lastAccounts: { madeUpTo: '2026-01-31', category: null } }), TODAY);
    expect(reading).toMatchObject({
      ok: true,
      periods: { current: { start: '2025-02-01', end: '2026-01-31' }, prior: { start: '2024-01-02', end: '2025-01-31' } },
    });
    // A first period the company lengthened to 17 months is still its first accounts.
    const long = accountsPeriodsOf(company({ lastAccounts: { madeUpTo: '2025-06-30', category: null } }), TODAY);
    expect(long).toMatchObject({ ok: true, periods: { current: { start: '2024-01-02', end: '2025-06-30' } } });
    expect(long.ok && long.periods.prior).toBeUndefined();
  });

  it('finds the periods the local register calendar gives, whatever first period the company chose', () => {
    for (const incorporatedOn of ['2024-01-01', '2024-01-02', '2024-01-15', '2024-01-31']) {
      for (let months = 6; months <= 17; months++) {
        const first = firstPeriodEnd(incorporatedOn, months);
        const then = nextPeriodEnd(first);
        const atFirst = accountsPeriodsOf(company({ incorporatedOn, lastAccounts: { madeUpTo: first, category: null } }), TODAY);
        expect(atFirst).toEqual({
          ok: true,
          periods: { current: { start: incorporatedOn, end: first }, history: [{ start: incorporatedOn, end: first }] },
        });
        const atSecond = accountsPeriodsOf(company({ incorporatedOn, lastAccounts: { madeUpTo: then, category: null } }), TODAY);
        expect(atSecond).toMatchObject({ ok: true, periods: { current: { end: then }, prior: { start: incorporatedOn, end: first } } });
        expect(atSecond.ok && atSecond.periods.current.start).toBe(addDays(first, 1));
      }
    }
  });

  it('files nothing the register does not list, nor a made-up date after today or before incorporation', () => {
    const refused = (lastAccounts: DemoAccountsCompany['lastAccounts'], today = TODAY) => {
      const outcome = demoAccountsFiling(company({ lastAccounts }), today);
      return outcome.ok ? undefined : outcome.reason;
    };
    expect(refused(null)).toBe('the register lists no accounts for the company');
    expect(refused({ madeUpTo: '2025-01-31', category: 'NO ACCOUNTS FILED' })).toContain('NO ACCOUNTS FILED');
    expect(refused({ madeUpTo: '2025-01-31', category: null }, '2025-01-30')).toContain('after 2025-01-30');
    expect(refused({ madeUpTo: '2023-12-31', category: null })).toContain('not after incorporation');
    expect(refused({ madeUpTo: '2025-01-31', category: null }, '2025-01-31')).toBeUndefined();
  });

  it('gives dormant accounts to a dormant category or status, and only to them', () => {
    expect(demoAccountsKind(company({ lastAccounts: { madeUpTo: '2025-01-31', category: 'dormant' } }))).toBe('dormant');
    expect(demoAccountsKind(company({ status: 'dormant', lastAccounts: { madeUpTo: '2025-01-31', category: null } }))).toBe('dormant');
    expect(demoAccountsKind(company({ lastAccounts: { madeUpTo: '2025-01-31', category: 'MICRO ENTITY' } }))).toBe('micro-entity');
    expect(demoAccountsKind(company({ lastAccounts: { madeUpTo: '2025-01-31', category: 'FULL' } }))).toBe('full');
    for (let number = 15_600_000; number < 15_600_200; number++) {
      for (const category of [null, 'total-exemption-full', 'small', 'unaudited-abridged']) {
        const kind = demoAccountsKind(company({ companyNumber: String(number), lastAccounts: { madeUpTo: '2025-01-31', category } }));
        expect(kind).not.toBe('dormant');
        if (category) expect(['small-filleted', 'small-profit-and-loss']).toContain(kind);
      }
    }
  });

  it('never dates a balance sheet after today', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'demo-accounts-'));
    try {
      const companies = Array.from({ length: 60 }, (_, index) =>
        company({
          companyNumber: String(15_700_000 + index),
          lastAccounts: { madeUpTo: `2025-${String(1 + (index % 12)).padStart(2, '0')}-28`, category: null },
        }),
      );
      const written = await writeDemoAccountsZip(folder, companies, '2025-06-15');
      expect(written.entries.length).toBe(companies.filter((c) => (c.lastAccounts?.madeUpTo as string) <= '2025-06-15').length);
      expect(written.skipped.length).toBe(companies.length - written.entries.length);
      for (const entry of written.entries) expect(entry.balanceSheetDate <= '2025-06-15').toBe(true);
      for await (const outcome of readAccountsZip(written.path)) {
        expect(outcome.ok).toBe(true);
        if (outcome.ok) expect(outcome.filing.balanceSheetDate <= '2025-06-15').toBe(true);
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('reads the register facts from a profile: what filingBehaviour.lastAccountsMadeUpTo shows, and the accounts category', () => {
    const facts: RegisterFacts = {
      jurisdiction: 'GB',
      companyNumber: '15380840',
      name: 'CPA GATES LTD',
      companyType: 'ltd',
      companySubtype: null,
      incorporatedOn: '2024-01-02',
      dissolvedOn: null,
      sicCodes: ['71129'],
      registeredOffice: 'Dean Cottage Arbour Lane Standish Wigan WN6 0YJ England',
      tradingStatus: { status: 'active', registerStatus: 'Active', since: '2024-01-02' },
    };
    // The seeded demo profile shows no accounts made up: nothing is filed for it.
    const seeded = demoProfile(facts);
    expect(seeded.filingBehaviour.lastAccountsMadeUpTo ?? null).toBeNull();
    expect(demoAccountsFiling(demoAccountsCompanyOf(seeded) as DemoAccountsCompany, TODAY)).toMatchObject({ ok: false });

    const told: ProfileContent = {
      ...seeded,
      dataSource: 'register',
      filingBehaviour: { ...seeded.filingBehaviour, lastAccountsMadeUpTo: '2025-01-31' },
      overview: {
        ...seeded.overview,
        provenance: { source: 'bureau-local-stream', asOf: '2025-06-01', rule: 'test', facts: { 'Accounts.AccountCategory': 'DORMANT' } },
      },
    };
    const outcome = demoAccountsFiling(demoAccountsCompanyOf(told) as DemoAccountsCompany, TODAY);
    expect(outcome).toMatchObject({ ok: true, filing: { balanceSheetDate: '2025-01-31', accounts: { kind: 'dormant' } } });
    expect(demoAccountsCompanyOf({ ...told, jurisdiction: 'IE' })).toBeUndefined();
  });

  it('files what the local register streams say each company filed, on the day they tell it', () => {
    const today = TODAY;
    const published: Record<string, unknown>[] = [];
    const emulator = {
      publish: (stream: string, body: { data: Record<string, unknown> }) => {
        if (stream === 'companies') published.push(body.data);
        return published.length;
      },
    };
    const sample = readDemoStreamCompanies(fileURLToPath(new URL('../../../data/gb-companies-2024-01.csv', import.meta.url)), 200);
    const activity = new DemoRegisterActivity(emulator as never, sample, () => Date.parse(`${today}T12:00:00Z`), 'accounts-test');
    for (let step = 0; step < 3000; step++) activity.step();
    const latest = new Map(published.map((data) => [data.company_number as string, data]));
    let filed = 0;
    for (const data of latest.values()) {
      const accounts = data.accounts as { last_accounts?: { made_up_to: string; type: string } };
      const given: DemoAccountsCompany = {
        companyNumber: data.company_number as string,
        name: data.company_name as string,
        companyType: data.type as string,
        incorporatedOn: data.date_of_creation as string,
        status: data.company_status === 'active' ? 'active' : 'liquidation',
        lastAccounts: accounts.last_accounts
          ? { madeUpTo: accounts.last_accounts.made_up_to, category: accounts.last_accounts.type }
          : null,
      };
      const outcome = demoAccountsFiling(given, today);
      if (!accounts.last_accounts) {
        expect(outcome.ok).toBe(false);
        continue;
      }
      if (!outcome.ok) throw new Error(`${given.companyNumber}: ${outcome.reason}`);
      filed++;
      expect(outcome.filing.balanceSheetDate).toBe(accounts.last_accounts.made_up_to);
      expect(outcome.filing.accounts.kind === 'dormant').toBe(accounts.last_accounts.type === 'dormant');
      const periods = accountsPeriodsOf(given, today);
      if (periods.ok && periods.periods.history.length === 1) expect(periods.periods.current.start).toBe(given.incorporatedOn);
    }
    expect(filed).toBeGreaterThan(50);
  });
});

describe('determinism', () => {
  it('writes the same bytes for the same companies and day, whatever their order', async () => {
    const companies = Object.values(KINDS());
    const folders = [mkdtempSync(join(tmpdir(), 'demo-accounts-')), mkdtempSync(join(tmpdir(), 'demo-accounts-'))];
    try {
      const a = await writeDemoAccountsZip(folders[0] as string, companies, TODAY);
      const b = await writeDemoAccountsZip(folders[1] as string, [...companies].reverse(), TODAY);
      expect(readFileSync(a.path).equals(readFileSync(b.path))).toBe(true);
      expect(a.entries).toEqual(b.entries);
    } finally {
      for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    }
  });

  it('gives a document that depends on the company, its periods and the day alone', () => {
    const given = company({ lastAccounts: { madeUpTo: '2026-01-31', category: 'small' } });
    const reading = accountsPeriodsOf(given, TODAY);
    if (!reading.ok) throw new Error(reading.reason);
    expect(demoAccountsDocument(given, reading.periods, TODAY)).toBe(demoAccountsDocument(structuredClone(given), reading.periods, TODAY));
    expect(demoAccountsDocument(given, reading.periods, TODAY)).not.toBe(
      demoAccountsDocument({ ...given, companyNumber: '15380849' }, reading.periods, TODAY),
    );
  });
});
