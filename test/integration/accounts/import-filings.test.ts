import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { type FilingOutcome, readAccountsZip, readFiling } from '../../../shared/accounts';
import { importAccountFilings } from '../../../shared/accounts/import/import-filings';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { validateProfileContent } from '../../../shared/companies/profile-validation';
import { profileKey } from '../../../shared/companies/search-index';
import type { StoredProfile } from '../../../shared/companies/stored-profile';
import { companiesTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { ACCOUNTS_FIXTURES, dailyAccountsFile, holdCompanies } from '../../support/filed-accounts';

const workDir = mkdtempSync(join(tmpdir(), 'bureau-accounts-'));
const DAILY = 'Accounts_Bulk_Data-2023-03-02.zip';

let tables: TestTables;
let store: DynamoCompanyStore;

beforeEach(async () => {
  tables = await createTestTables([{ ...companiesTable, stream: undefined }]);
  store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
});

const storedItem = async (number: string) =>
  (await tables.doc.send(new GetCommand({ TableName: tables.names.companies, Key: profileKey('GB', number) }))).Item as StoredProfile & {
    registerSnapshot?: string;
  };

async function* only(...outcomes: FilingOutcome[]) {
  yield* outcomes;
}

const filingOf = (name: string): FilingOutcome => readFiling(name, readFileSync(join(ACCOUNTS_FIXTURES, 'filings', name)));

describe('importing a daily file of filed accounts into DynamoDB Local', () => {
  it('stores the figures of held companies, counts the rest, and judges size, credit and risk from them', async () => {
    await holdCompanies(store, workDir);
    const progress: number[] = [];
    const report = await importAccountFilings(readAccountsZip(await dailyAccountsFile(workDir)), store, {
      archive: DAILY,
      feed: 'companies-house-accounts-data',
      onProgress: (sofar) => progress.push(sofar.filingsRead),
    });

    expect(report).toMatchObject({ filingsRead: 20, companiesUpdated: 3, unchanged: 0, notHeld: 16, rejected: 1 });
    expect(report.rejects).toEqual([
      { entryName: 'Prod224_0088_11426842_20200630.xml', reason: expect.stringMatching(/neither XHTML nor XML/) },
    ]);
    expect(progress.at(-1)).toBe(20);

    const full = await storedItem('08119445');
    expect(full).toMatchObject({
      version: 2,
      registerSnapshot: '2023-03-01',
      overview: {
        sizeBand: 'small',
        employeesBand: '50-249',
        financials: { periodEnd: '2020-12-31', netAssets: { amountMinor: 293_502_600 }, provenance: { archive: DAILY } },
      },
      creditCapacity: { creditLimit: { amountMinor: 540_000_00, currency: 'GBP' } },
    });
    const {
      version: _v,
      updatedAt: _u,
      ...content
    } = await store.get('GB', '08119445').then((profile) => profile as NonNullable<typeof profile>);
    expect(validateProfileContent(content).ok).toBe(true);

    const short = await storedItem('14033910');
    expect(short.riskOfFailure.drivers).toContain('Liabilities exceed assets: net assets of -£577 at 2022-08-31');
    expect(short.creditCapacity.creditLimit).toEqual({ amountMinor: 0, currency: 'GBP' });
    expect((await storedItem('14068295')).creditCapacity).toMatchObject({ creditLimit: null, reason: { code: 'dormant' } });
  });

  it('changes nothing when the same file, or the same filings in the month’s file, are read again', async () => {
    await holdCompanies(store, workDir);
    const path = await dailyAccountsFile(workDir);
    await importAccountFilings(readAccountsZip(path), store, { archive: DAILY, feed: 'companies-house-accounts-data' });
    const again = await importAccountFilings(readAccountsZip(path), store, { archive: DAILY, feed: 'companies-house-accounts-data' });
    const monthly = await importAccountFilings(readAccountsZip(path), store, {
      archive: 'Accounts_Monthly_Data-March2023.zip',
      feed: 'companies-house-accounts-data',
    });
    for (const report of [again, monthly]) expect(report).toMatchObject({ companiesUpdated: 0, unchanged: 3, notHeld: 16, rejected: 1 });
    expect((await storedItem('08119445')).version).toBe(2);
  });

  it('stops between batches when told to, writing nothing more, and files the rest when the file is read again', async () => {
    await holdCompanies(store, workDir);
    const path = await dailyAccountsFile(workDir);
    const stop = new AbortController();
    async function* stoppingAfterTheFirst(filings: AsyncIterable<FilingOutcome>) {
      for await (const filing of filings) {
        yield filing;
        stop.abort();
      }
    }

    const cut = await importAccountFilings(stoppingAfterTheFirst(readAccountsZip(path)), store, {
      archive: DAILY,
      feed: 'companies-house-accounts-data',
      signal: stop.signal,
    });
    const versionAfterTheStop = (await storedItem('08119445')).version;
    const again = await importAccountFilings(readAccountsZip(path), store, { archive: DAILY, feed: 'companies-house-accounts-data' });

    expect(cut).toMatchObject({ filingsRead: 0, companiesUpdated: 0 });
    expect(versionAfterTheStop).toBe(1);
    expect(again).toMatchObject({ filingsRead: 20, companiesUpdated: 3 });
  });

  it('never replaces figures with an earlier period’s, and takes amended figures for the same period from a later file', async () => {
    await holdCompanies(store, workDir);
    const latest = filingOf('Prod223_2911_08119445_20201231.html');
    if (!latest.ok) throw new Error(latest.reason);
    await importAccountFilings(only(latest), store, { archive: DAILY, feed: 'companies-house-accounts-data' });

    const earlier: FilingOutcome = {
      ok: true,
      filing: {
        ...latest.filing,
        periodEnd: '2019-12-31',
        balanceSheetDate: '2019-12-31',
        current: { ...latest.filing.current, periodEnd: '2019-12-31' },
      },
    };
    expect(
      await importAccountFilings(only(earlier), store, {
        archive: 'Accounts_Bulk_Data-2023-03-09.zip',
        feed: 'companies-house-accounts-data',
      }),
    ).toMatchObject({ unchanged: 1 });

    const amended: FilingOutcome = {
      ok: true,
      filing: { ...latest.filing, current: { ...latest.filing.current, employees: { count: 250, provenance: [] } } },
    };
    expect(
      await importAccountFilings(only(amended), store, {
        archive: 'Accounts_Bulk_Data-2023-03-01.zip',
        feed: 'companies-house-accounts-data',
      }),
    ).toMatchObject({ unchanged: 1 });
    expect(
      await importAccountFilings(only(amended), store, {
        archive: 'Accounts_Bulk_Data-2023-03-09.zip',
        feed: 'companies-house-accounts-data',
      }),
    ).toMatchObject({ companiesUpdated: 1 });
    expect((await storedItem('08119445')).overview).toMatchObject({ employeesBand: '250+', financials: { employees: 250 } });
  });

  it('keeps the figures through the next register snapshot', async () => {
    await holdCompanies(store, workDir);
    await importAccountFilings(only(filingOf('Prod223_2911_08119445_20201231.html')), store, {
      archive: DAILY,
      feed: 'companies-house-accounts-data',
    });
    await holdCompanies(store, workDir, '2023-04-01');
    const item = await storedItem('08119445');
    expect(item).toMatchObject({ registerSnapshot: '2023-04-01', overview: { financials: { periodEnd: '2020-12-31' } } });
    expect(item.creditCapacity.creditLimit).toEqual({ amountMinor: 540_000_00, currency: 'GBP' });
  });
});
