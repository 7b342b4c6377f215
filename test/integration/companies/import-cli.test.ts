import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TargetFactory } from '../../../cli/context';
import { run } from '../../../cli/main';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { companiesTable } from '../../../shared/storage/tables';
import { companiesTableTarget } from '../../support/cli';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { profileContent } from '../../support/profile-fixture';
import { testSealer } from '../../support/sealer';

const sealer = testSealer();

const workDir = mkdtempSync(join(tmpdir(), 'bureau-import-cli-'));
let tables: TestTables;
let store: DynamoCompanyStore;

beforeAll(async () => {
  tables = await createTestTables([{ ...companiesTable, stream: undefined }]);
  store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
});

const target = companiesTableTarget(() => tables, sealer);

async function bureau(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, { io: { out: (line) => out.push(line), err: (line) => err.push(line) }, resolveTarget: target, env: {} });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

function file(name: string, text: string): string {
  const path = join(workDir, name);
  writeFileSync(path, text);
  return path;
}

describe('bureau companies import', () => {
  it('imports a register CSV, prints a summary and exits 0', async () => {
    const lines = (await readFile(new URL('../../../data/gb-companies-2024-01.csv', import.meta.url), 'utf8')).split('\n').slice(0, 11);
    const path = file('ten.csv', lines.join('\n'));

    const outcome = await bureau('companies', 'import', path, '--no-progress');

    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain('Imported ten.csv (search-export) into the test tables');
    expect(outcome.stdout).toContain('10 rows read: 10 created, 0 updated, 0 unchanged, 0 rejected');
    expect((await store.get('GB', '15380840'))?.name).toBe('CPA GATES LTD');
  });

  it('lists rejected rows and exits 1, having imported the others', async () => {
    const good = profileContent({ companyNumber: '17000001', name: 'Cli Good Ltd' });
    const path = file('mixed.ndjson', [JSON.stringify(good), '{oops', JSON.stringify({ ...good, companyNumber: 'nope' })].join('\n'));

    const outcome = await bureau('companies', 'import', path, '--batch-size', '2');

    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toContain('3 rows read: 1 created, 0 updated, 0 unchanged, 2 rejected');
    expect(outcome.stderr).toContain('line 2: not valid JSON');
    expect(outcome.stderr).toContain('line 3: companyNumber');
    expect(outcome.stderr).toContain('2 row(s) rejected');
    expect(await store.get('GB', '17000001')).toBeDefined();
  });

  it('prints the result as JSON with --json and reports unchanged profiles on a second run', async () => {
    const path = file('one.jsonl', `${JSON.stringify(profileContent({ companyNumber: '17000002', name: 'Cli Json Ltd' }))}\n`);
    await bureau('companies', 'import', path);

    const outcome = await bureau('companies', 'import', path, '--json');

    expect(outcome.code).toBe(0);
    expect(JSON.parse(outcome.stdout)).toEqual({
      file: path,
      format: 'ndjson',
      asOf: null,
      read: 1,
      created: 0,
      updated: 0,
      unchanged: 1,
      rejected: 0,
      errors: [],
      changes: {},
      unknownValues: {},
      sweep: null,
    });
  });

  it('refuses a missing file, a file of unknown kind and bad options with exit 1', async () => {
    const missing = await bureau('companies', 'import', join(workDir, 'absent.csv'));
    const unknown = await bureau('companies', 'import', file('notes.txt', 'hello'));
    const badOption = await bureau('companies', 'import', file('x.csv', ''), '--concurrency', '0');

    expect(missing).toMatchObject({ code: 1, stderr: expect.stringContaining('cannot read') });
    expect(unknown).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('notes.txt: the header matches no format this import reads'),
    });
    expect(badOption).toMatchObject({ code: 1, stderr: expect.stringContaining('whole number from 1 to 64') });
  });

  it('imports two register snapshots, printing what changed by kind and marking the company gone from the second', async () => {
    // Arrange
    const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/register/${name}`, import.meta.url));
    const isolated = await createTestTables([{ ...companiesTable, stream: undefined }]);
    const own: TargetFactory = async (options) => {
      const base = await target(options);
      return { ...base, doc: isolated.doc, tables: { ...base.tables, companies: isolated.names.companies as string } };
    };
    const bureauOn = async (...argv: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await run(argv, { io: { out: (line) => out.push(line), err: (line) => err.push(line) }, resolveTarget: own, env: {} });
      return { code, stdout: out.join('\n'), stderr: err.join('\n') };
    };

    // Act
    const may = await bureauOn('companies', 'import', fixture('BasicCompanyData-2024-05-01-part1_1.csv'), '--no-progress');
    const june = await bureauOn('companies', 'import', fixture('BasicCompanyData-2024-06-01-part1_1.csv'), '--no-progress');
    const cro = await bureauOn('companies', 'import', fixture('cro-companies-2024-06-01.csv'), '--json');

    // Assert
    expect(may).toMatchObject({ code: 0, stderr: '' });
    expect(may.stdout).toContain('(companies-house-bulk, snapshot of 2024-05-01)');
    expect(may.stdout).toContain('11 rows read: 11 created, 0 updated, 0 unchanged, 0 rejected');
    expect(june).toMatchObject({ code: 0, stderr: '' });
    expect(june.stdout.split('\n').slice(1)).toEqual([
      '10 rows read: 0 created, 5 updated, 5 unchanged, 0 rejected',
      'Blocks changed: credit capacity 2, early signals 5, filing behaviour 2, overview 3, risk of failure 2, trading status 1',
      'Signals detected: accounts_overdue 2, charge_registered 1, name_changed 1, registered_office_changed 1, strike_off_proposed 1',
      'Companies no longer in the register: 1 marked removed',
    ]);
    expect(JSON.parse(cro.stdout)).toMatchObject({ format: 'cro-companies', asOf: '2024-06-01', created: 7, sweep: { gone: 0 } });
  });
});
