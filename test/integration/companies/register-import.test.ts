import { createWriteStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { validateProfileContent } from '../../../shared/companies/profile-validation';
import { profileKey } from '../../../shared/companies/search-index';
import type { StoredProfile } from '../../../shared/companies/stored-profile';
import { sweepGoneCompanies } from '../../../shared/register/import/gone-companies';
import { type ImportResult, importProfiles, openImportFile, UnsupportedImportFileError } from '../../../shared/register/import/import';
import { companiesTable } from '../../../shared/storage/tables';
import { BULK_HEADER, bulkRow } from '../../../tools/register-files';
import { createTestTables, type TestTables } from '../../support/dynamo';

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/register/${name}`, import.meta.url));
const MAY = fixture('BasicCompanyData-2024-05-01-part1_1.csv');
const JUNE = fixture('BasicCompanyData-2024-06-01-part1_1.csv');
const CRO = fixture('cro-companies-2024-06-01.csv');
const workDir = mkdtempSync(join(tmpdir(), 'bureau-register-'));

let tables: TestTables;
let store: DynamoCompanyStore;

beforeEach(async () => {
  tables = await createTestTables([{ ...companiesTable, stream: undefined }]);
  store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
});

async function importFile(path: string, options: { asOf?: string } = {}): Promise<ImportResult> {
  const source = await openImportFile(path, options);
  return importProfiles(source.records, store);
}

const storedItem = async (jurisdiction: 'GB' | 'IE', number: string) =>
  (await tables.doc.send(new GetCommand({ TableName: tables.names.companies, Key: profileKey(jurisdiction, number) }))).Item as
    | StoredProfile
    | undefined;

describe('importing register snapshots into DynamoDB Local', () => {
  it('creates register profiles whose every block traces to facts, and writes nothing when the same file comes again', async () => {
    // Act
    const first = await importFile(MAY);
    const again = await importFile(MAY);

    // Assert
    expect(first).toMatchObject({ read: 11, created: 11, updated: 0, unchanged: 0, rejected: 0, errors: [] });
    expect(again).toMatchObject({ read: 11, created: 0, updated: 0, unchanged: 11, rejected: 0, changes: {} });
    const acme = await store.get('GB', '09446231');
    expect(acme).toMatchObject({ dataSource: 'register', version: 1, overview: { sizeBand: 'micro' } });
    const { version: _version, updatedAt: _updatedAt, ...content } = acme as NonNullable<typeof acme>;
    expect(validateProfileContent(content).ok).toBe(true);
    expect((await storedItem('GB', '09446231'))?.registerSnapshot).toBe('2024-05-01');
  });

  it('turns next month’s file into exactly the changes it shows, counted by kind, and records the snapshot on unchanged companies', async () => {
    // Arrange
    await importFile(MAY);

    // Act
    const june = await importFile(JUNE);
    const sweep = await sweepGoneCompanies({
      doc: tables.doc,
      tableName: tables.names.companies as string,
      jurisdiction: 'GB',
      asOf: '2024-06-01',
    });

    // Assert
    expect(june).toMatchObject({ read: 10, created: 0, updated: 5, unchanged: 5, rejected: 0 });
    expect(june.changes).toEqual({
      'block:overview': 3,
      'block:tradingStatus': 1,
      'block:filingBehaviour': 2,
      'block:riskOfFailure': 2,
      'block:creditCapacity': 2,
      'block:earlySignals': 5,
      'signal:accounts_overdue': 2,
      'signal:strike_off_proposed': 1,
      'signal:charge_registered': 1,
      'signal:registered_office_changed': 1,
      'signal:name_changed': 1,
    });
    const unchanged = await storedItem('GB', 'OC400001');
    expect(unchanged).toMatchObject({ version: 1, registerSnapshot: '2024-06-01' });
    expect(sweep).toMatchObject({ gone: 1, failed: 0 });
    expect(await store.get('GB', '07654321')).toMatchObject({
      version: 2,
      tradingStatus: { status: 'removed', since: '2024-06-01' },
      riskOfFailure: { level: 'Severe', score: 100 },
    });
    expect(
      await sweepGoneCompanies({ doc: tables.doc, tableName: tables.names.companies as string, jurisdiction: 'GB', asOf: '2024-06-01' }),
    ).toMatchObject({
      gone: 0,
    });
  });

  it('rejects the rows of an older snapshot over newer profiles, naming why, and changes nothing', async () => {
    await importFile(JUNE);
    const result = await importFile(MAY);
    expect(result).toMatchObject({ created: 1, updated: 0, unchanged: 0, rejected: 10 });
    expect(result.errors[0]?.message).toBe('the stored profile comes from a later snapshot (2024-06-01) than this one (2024-05-01)');
    expect(await store.get('GB', '09446231')).toMatchObject({ version: 1, filingBehaviour: { accountsOverdue: true } });
  });

  it('reads the bulk product as a zip of part files, naming the part and line of every rejected row', async () => {
    // Arrange
    const rows = readFileSync(MAY, 'utf8').trimEnd().split('\r\n').slice(1);
    const parts = [
      rows.slice(0, 6),
      [
        ...rows.slice(6),
        bulkRow({
          name: 'BROKEN DATE LTD',
          number: '09999999',
          category: 'Private Limited Company',
          status: 'Active',
          dissolvedOn: '2020-01-01',
        }).replace('"01/01/2020"', '"32/13/2020"'),
      ],
    ];
    const zip = new yazl.ZipFile();
    for (const [index, part] of parts.entries()) {
      zip.addBuffer(Buffer.from(`${[BULK_HEADER, ...part].join('\r\n')}\r\n`), `BasicCompanyData-2024-05-01-part${index + 1}_2.csv`);
    }
    const path = join(workDir, 'BasicCompanyData-2024-05-01.zip');
    await new Promise<void>((resolve, reject) => {
      zip.outputStream.pipe(createWriteStream(path)).on('close', resolve).on('error', reject);
      zip.end();
    });

    // Act
    const source = await openImportFile(path);
    const result = await importProfiles(source.records, store);

    // Assert
    expect(source).toMatchObject({ format: 'companies-house-bulk', asOf: '2024-05-01' });
    expect(source.entries?.map((entry) => entry.name)).toEqual([
      'BasicCompanyData-2024-05-01-part1_2.csv',
      'BasicCompanyData-2024-05-01-part2_2.csv',
    ]);
    expect(result).toMatchObject({ read: 12, created: 11, rejected: 1 });
    expect(result.errors).toEqual([
      {
        line: 7,
        file: 'BasicCompanyData-2024-05-01-part2_2.csv',
        message: 'DissolutionDate "32/13/2020" is not a date in the form DD/MM/YYYY',
      },
    ]);
  });

  it('imports the CRO file as Irish register profiles and counts the register values no rule knows', async () => {
    const path = join(workDir, 'cro-with-new-status.csv');
    const text = readFileSync(CRO, 'utf8').replace('"Examinership"', '"Scheme of Arrangement"');
    writeFileSync(path, text);

    const result = await importFile(path, { asOf: '2024-06-01' });

    expect(result).toMatchObject({ read: 7, created: 7, rejected: 0, unknownValues: { company_status: { 'Scheme of Arrangement': 1 } } });
    expect(await store.get('IE', '104547')).toMatchObject({ dataSource: 'register', overview: { companyType: 'ltd', sicCodes: ['1020'] } });
    expect(await store.get('IE', '455001')).toMatchObject({ tradingStatus: { status: 'other', registerStatus: 'Scheme of Arrangement' } });
  });

  it('refuses a register file whose date is unknown, or whose header lacks columns, before writing anything', async () => {
    const undated = join(workDir, 'companies.csv');
    writeFileSync(undated, readFileSync(CRO));
    await expect(openImportFile(undated)).rejects.toThrow(
      /needs the date of its snapshot; its name carries none, so give it \(--as-of YYYY-MM-DD\)/,
    );
    const short = join(workDir, 'BasicCompanyData-2024-05-01-short.csv');
    writeFileSync(short, `${BULK_HEADER.replace(',URI', '')}\r\n`);
    await expect(openImportFile(short)).rejects.toThrow(
      new UnsupportedImportFileError(
        'Cannot import BasicCompanyData-2024-05-01-short.csv: the header looks like the Companies House bulk file (BasicCompanyData) but lacks the column(s) URI',
      ),
    );
  });
});
