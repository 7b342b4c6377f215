import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { companiesTable } from '../../../shared/storage/tables';
import { companiesTableTarget, runCli } from '../../support/cli';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { ACCOUNTS_FIXTURES, dailyAccountsFile, holdCompanies } from '../../support/filed-accounts';

const workDir = mkdtempSync(join(tmpdir(), 'bureau-accounts-cli-'));
let tables: TestTables;
let store: DynamoCompanyStore;

beforeEach(async () => {
  tables = await createTestTables([{ ...companiesTable, stream: undefined }]);
  store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
  await holdCompanies(store, workDir);
});

const target = companiesTableTarget(() => tables);

const bureau = (...argv: string[]) => runCli(argv, target);

describe('bureau accounts import', () => {
  it('reads a daily file into the held profiles and reports every count, naming the entry it rejected', async () => {
    const result = await bureau('accounts', 'import', await dailyAccountsFile(workDir));

    expect(result.stdout).toContain('Accounts_Bulk_Data-2023-03-02.zip → the test tables: 20 entries read');
    expect(result.stdout).toContain('3 companies updated (new figures)');
    expect(result.stdout).toContain('16 not held');
    expect(result.stdout).toMatch(/1 rejected\n\s+Prod224_0088_11426842_20200630\.xml: the content is neither XHTML nor XML/);
    expect(result).toMatchObject({ code: 1, stderr: expect.stringContaining('1 entry rejected; every other entry was read') });
    expect((await store.get('GB', '08119445'))?.overview.financials?.provenance).toMatchObject({
      source: 'companies-house-accounts-data',
      archive: 'Accounts_Bulk_Data-2023-03-02.zip',
    });
  });

  it('reads a folder of entries, and labels a local runtime’s demo file as demo accounts', async () => {
    const folder = join(workDir, 'Bureau_Demo_Accounts-2023-03-03');
    mkdirSync(folder);
    const name = 'Prod223_3384_14033910_20220831.html';
    writeFileSync(join(folder, name), readFileSync(join(ACCOUNTS_FIXTURES, 'filings', name)));
    const result = await bureau('accounts', 'import', folder, '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ filingsRead: 1, companiesUpdated: 1, notHeld: 0, rejected: 0 });
    expect((await store.get('GB', '14033910'))?.overview.financials?.provenance).toMatchObject({
      source: 'bureau-local-accounts',
      archive: 'Bureau_Demo_Accounts-2023-03-03',
      entry: name,
    });
  });

  it('refuses what is neither a zip nor a folder, by name', async () => {
    const path = join(workDir, 'notes.txt');
    writeFileSync(path, 'not accounts');
    const result = await bureau('accounts', 'import', path);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot read .*notes\.txt as a zip or a folder/);
    const missing = await bureau('accounts', 'import', join(workDir, 'missing.zip'));
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(/cannot read .*missing\.zip/) });
  });
});
