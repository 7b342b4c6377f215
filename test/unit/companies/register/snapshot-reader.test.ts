import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readSnapshot, type SnapshotRecord, UnreadableHeaderError } from '../../../../shared/register/snapshot-reader';
import { BULK_HEADER, bulkRow, CRO_HEADER, croRow, sampleAsBulkRows } from '../../../../tools/register-files';

const fixture = (name: string) => new URL(`../../../fixtures/register/${name}`, import.meta.url);

async function readAll(stream: Readable): Promise<SnapshotRecord[]> {
  const records: SnapshotRecord[] = [];
  for await (const record of readSnapshot(stream)) records.push(record);
  return records;
}

const text = (lines: readonly (string | Buffer)[]) =>
  Readable.from([
    Buffer.concat(
      lines.map((line) => (typeof line === 'string' ? Buffer.from(`${line}\r\n`) : Buffer.concat([line, Buffer.from('\r\n')]))),
    ),
  ]);

const company = {
  name: 'ACME WIDGETS LIMITED',
  number: '09446231',
  addressLine1: '12 Foundry Lane',
  postTown: 'SHEFFIELD',
  postCode: 'S1 4PL',
  category: 'Private Limited Company',
  status: 'Active',
  incorporatedOn: '2015-02-20',
  accountsNextDue: '2024-05-31',
  accountCategory: 'MICRO ENTITY',
};

describe('readSnapshot of the Companies House bulk file', () => {
  it('reads every row of the fixture, the header names with their leading spaces matched', async () => {
    // Act
    const records = await readAll(createReadStream(fixture('BasicCompanyData-2024-05-01-part1_1.csv')));

    // Assert
    expect(records.map((record) => record.error)).toEqual(records.map(() => undefined));
    expect(records.map((record) => [record.line, record.facts?.companyNumber])).toEqual([
      [2, '09446231'],
      [3, 'SC512345'],
      [4, '01234567'],
      [5, '12345678'],
      [6, '11111111'],
      [7, 'OC400001'],
      [8, '07654321'],
      [9, 'NI012345'],
      [10, '10000001'],
      [11, '00445790'],
      [12, '15400001'],
    ]);
  });

  it('reads the published quirks: DD/MM/YYYY dates, SIC texts, None Supplied, care-of addresses, annual returns before confirmation statements', async () => {
    // Act
    const records = await readAll(createReadStream(fixture('BasicCompanyData-2024-05-01-part1_1.csv')));
    const byNumber = new Map(records.map((record) => [record.facts?.companyNumber, record.facts]));

    // Assert
    const acme = byNumber.get('09446231');
    expect(acme).toMatchObject({
      source: 'companies-house-basic-company-data',
      jurisdiction: 'GB',
      companyType: 'ltd',
      incorporatedOn: '2015-02-20',
      sicCodes: ['25990'],
      accounts: { category: 'MICRO ENTITY', nextDueOn: '2024-05-31', lastMadeUpTo: '2023-02-28', referenceDate: '28/2' },
      statement: { nextDueOn: '2025-03-06', lastMadeUpTo: '2024-02-20' },
    });
    expect(acme?.published.get('CompanyNumber')).toBe('09446231');
    expect(acme?.published.get('RegAddress.CareOf')).toBeNull();
    expect(byNumber.get('SC512345')?.registeredOffice).toBe('C/O MACLEOD ACCOUNTANTS, 4 Rose Street, EDINBURGH, SCOTLAND, EH2 2PR');
    expect(byNumber.get('00445790')).toMatchObject({ sicCodes: [], statement: { nextDueOn: '2016-10-29', lastMadeUpTo: '2015-10-01' } });
    expect(byNumber.get('15400001')).toMatchObject({ companyType: 'other', companySubtype: 'community-interest-company' });
    expect(byNumber.get('NI012345')?.status).toEqual({
      status: 'active',
      registerStatus: 'Live but Receiver Manager on at least one charge',
      since: '1981-03-12',
    });
    expect(byNumber.get('10000001')?.status.status).toBe('dormant');
    expect(byNumber.get('OC400001')?.status.status).toBe('liquidation');
    expect(byNumber.get('01234567')?.charges).toEqual({ registered: 3, outstanding: 2, partSatisfied: 0, satisfied: 1 });
  });

  it('maps the bulk statuses to codes', async () => {
    const statuses = ['Active - Proposal to Strike off', 'Liquidation', 'In Administration', 'Voluntary Arrangement', 'RECEIVERSHIP'];
    const records = await readAll(
      text([BULK_HEADER, ...statuses.map((status, index) => bulkRow({ ...company, number: `0944623${index}`, status }))]),
    );
    expect(records.map((record) => record.facts?.status.status)).toEqual([
      'active',
      'liquidation',
      'administration',
      'voluntary_arrangement',
      'receivership',
    ]);
  });

  it('rejects a row with a broken date, the wrong column count, an impossible number or a byte that is not UTF-8, with its line, and reads on', async () => {
    // Arrange
    const good = bulkRow(company);
    const notUtf8 = Buffer.concat([
      Buffer.from(bulkRow({ ...company, name: 'CAF' }).slice(0, 4)),
      Buffer.from([0xe9]),
      Buffer.from(bulkRow({ ...company, name: 'CAF' }).slice(4)),
    ]);
    const stream = text([
      BULK_HEADER,
      good,
      good.replace('"20/02/2015"', '"31/02/2015"'),
      `${good},"extra"`,
      good.replace('"09446231"', '"ABC"'),
      notUtf8,
      good.replace('"Private Limited Company"', '"Private Limited Company" x'),
      good,
    ]);

    // Act
    const records = await readAll(stream);

    // Assert
    expect(records.map((record) => [record.line, record.error ?? 'ok'])).toEqual([
      [2, 'ok'],
      [3, 'IncorporationDate "31/02/2015" is not a date in the form DD/MM/YYYY'],
      [4, 'expected 55 fields, found 56 (two records run together?)'],
      [5, expect.stringMatching(/^CompanyNumber: /)],
      [6, 'the line holds a byte that is not UTF-8 (the registers publish UTF-8)'],
      [7, expect.stringMatching(/^malformed CSV: /)],
      [8, 'ok'],
    ]);
  });

  it('counts register values no rule knows, and maps them to other', async () => {
    const records = await readAll(
      text([BULK_HEADER, bulkRow({ ...company, category: 'Brand New Form of Company', status: 'Suspended', accountCategory: 'MEGA' })]),
    );
    expect(records[0]?.facts?.companyType).toBe('other');
    expect(records[0]?.facts?.status.status).toBe('other');
    expect(records[0]?.facts?.unknownValues).toEqual([
      { field: 'CompanyCategory', value: 'Brand New Form of Company' },
      { field: 'Accounts.AccountCategory', value: 'MEGA' },
      { field: 'CompanyStatus', value: 'Suspended' },
    ]);
  });

  it('refuses a header that matches no format at once, naming the columns it lacks', async () => {
    const header = BULK_HEADER.replace('Accounts.NextDueDate,', '').replace('ConfStmtNextDueDate,', '');
    await expect(readAll(text([header, bulkRow(company)]))).rejects.toThrow(
      new UnreadableHeaderError(
        'the header looks like the Companies House bulk file (BasicCompanyData) but lacks the column(s) Accounts.NextDueDate, ConfStmtNextDueDate',
      ),
    );
    await expect(readAll(text(['name,number', '"A","1"']))).rejects.toThrow(/matches no format this import reads/);
  });
});

describe('the real GB sample in the bulk layout', () => {
  it('converts the search export where the columns overlap, and reads back every live company it holds', async () => {
    const rows: string[] = [];
    for await (const row of sampleAsBulkRows(fileURLToPath(new URL('../../../../data/gb-companies-2024-01.csv', import.meta.url))))
      rows.push(row);

    const records = await readAll(Readable.from([`${BULK_HEADER}\r\n${rows.join('\r\n')}\r\n`]));

    expect(records).toHaveLength(rows.length);
    expect(records.filter((record) => record.error)).toEqual([]);
    expect(records[0]?.facts).toMatchObject({ companyNumber: '15380840', name: 'CPA GATES LTD', companyType: 'ltd', sicCodes: ['71129'] });
  });
});

describe('readSnapshot of the CRO companies file', () => {
  it('reads ISO dates, trimmed statuses, NACE codes and the annual return deadline', async () => {
    // Act
    const records = await readAll(createReadStream(fixture('cro-companies-2024-06-01.csv')));
    const byNumber = new Map(records.map((record) => [record.facts?.companyNumber, record.facts]));

    // Assert
    expect(records.every((record) => record.facts)).toBe(true);
    expect(byNumber.get('104547')).toMatchObject({
      source: 'cro-companies',
      jurisdiction: 'IE',
      companyType: 'ltd',
      status: { status: 'active', registerStatus: 'Normal', since: '1985-03-11' },
      sicCodes: ['1020'],
      registeredOffice: 'DOCK ROAD, GALWAY, H91 X2Y3',
      statement: { nextDueOn: '2024-11-25', lastMadeUpTo: '2023-09-30' },
    });
    expect(byNumber.get('512345')?.companyType).toBe('dac');
    expect(byNumber.get('345678')?.companyType).toBe('clg');
    expect(byNumber.get('455001')).toMatchObject({ companyType: 'plc', status: { status: 'administration' }, sicCodes: ['0111'] });
    expect(byNumber.get('201234')).toMatchObject({
      status: { status: 'dissolved' },
      dissolvedOn: '2021-11-02',
      statement: { nextDueOn: null },
    });
  });

  it('rejects a row with a broken ISO date or an impossible number, with its line', async () => {
    const row = {
      number: 104547,
      name: 'GALWAY BAY SEAFOODS LIMITED',
      statusCode: 1,
      status: 'Normal ',
      typeCode: 1,
      type: 'LTD - Private Company Limited by Shares',
      registeredOn: '1985-03-11',
      address: ['GALWAY'],
    };
    const records = await readAll(
      text([CRO_HEADER, croRow({ ...row, registeredOn: '1985-13-11' }), croRow({ ...row, number: 0 }), croRow(row)]),
    );
    expect(records.map((record) => [record.line, record.error ?? 'ok'])).toEqual([
      [2, 'company_reg_date "1985-13-11" is not a date in the form YYYY-MM-DD'],
      [3, expect.stringMatching(/^company_num: /)],
      [4, 'ok'],
    ]);
  });
});
