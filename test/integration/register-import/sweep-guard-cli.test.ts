import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { companiesTable } from '../../../shared/storage/tables';
import { bulkFile, CRO_HEADER, croRow, syntheticBulkRows } from '../../../tools/register-files';
import { companiesTableTarget, runCli } from '../../support/cli';
import { createTestTables, type TestTables } from '../../support/dynamo';

/** The CLI's in-process import (a target with no state machine): the same guard before its sweep. */
const workDir = mkdtempSync(join(tmpdir(), 'bureau-sweep-guard-'));
let tables: TestTables;

beforeAll(async () => {
  tables = await createTestTables([{ ...companiesTable, stream: undefined }]);
});

const target = companiesTableTarget(() => tables);

const bureau = (...argv: string[]) => runCli(argv, target);

const file = (name: string, text: string) => {
  const path = join(workDir, name);
  writeFileSync(path, text);
  return path;
};
const statusOf = async (jurisdiction: 'GB' | 'IE', number: string) =>
  (await new DynamoCompanyStore(tables.doc, tables.names.companies as string).get(jurisdiction, number))?.tradingStatus.status;

describe('bureau companies import, in process: a sweep that cannot empty a jurisdiction', () => {
  it('marks nothing removed after a GB file cut to a tenth of its rows, says why, and sweeps when forced', async () => {
    const rows = [...syntheticBulkRows(60, 13)];
    expect(
      (await bureau('companies', 'import', file('BasicCompanyData-2024-06-01-part1_1.csv', bulkFile(rows)), '--no-progress')).code,
    ).toBe(0);
    const cut = file('BasicCompanyData-2024-07-01-part1_1.csv', bulkFile(rows.slice(0, 6)));

    const refused = await bureau('companies', 'import', cut, '--no-progress');

    expect(refused.code).toBe(0);
    expect(refused.stderr).toContain('Sweep refused: the snapshot lists 6 of the 60 GB register profiles not already removed (10.0 %)');
    expect(refused.stderr).toContain('metric (local runtime, not published): Bureau/SweepRefused');
    expect(refused.stdout).not.toContain('marked removed');
    expect(await statusOf('GB', '33000059')).not.toBe('removed');

    const forced = await bureau('companies', 'import', cut, '--no-progress', '--force-sweep', 'GB');

    expect(forced.stdout).toContain('Companies no longer in the register: 54 marked removed');
    expect(await statusOf('GB', '33000059')).toBe('removed');
  }, 60_000);

  it('refuses a header-only CRO file, and one dated after today, marking nothing removed', async () => {
    const cro = file(
      'cro-companies-2024-06-01.csv',
      `${CRO_HEADER}\r\n${croRow({
        number: 900001,
        name: 'GUARD TEST LIMITED',
        statusCode: 1,
        status: 'Normal ',
        typeCode: 1,
        type: 'LTD - Private Company Limited by Shares',
        registeredOn: '2010-01-01',
        address: ['1 MAIN STREET', 'GALWAY'],
      })}\r\n`,
    );
    expect((await bureau('companies', 'import', cro, '--no-progress')).code).toBe(0);

    const empty = await bureau('companies', 'import', file('cro-companies-2024-07-01.csv', `${CRO_HEADER}\r\n`), '--no-progress');
    const future = await bureau('companies', 'import', file('cro-companies-2099-01-01.csv', `${CRO_HEADER}\r\n`), '--no-progress');

    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('cro-companies-2024-07-01.csv holds no rows: refused, nothing was imported or marked removed');
    expect(future.code).toBe(1);
    expect(future.stderr).toContain('cro-companies-2099-01-01.csv is dated 2099-01-01, after today');
    expect(`${empty.stdout}${future.stdout}`).not.toContain('marked removed');
    expect(await statusOf('IE', '900001')).not.toBe('removed');
  }, 60_000);
});
