import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readSearchExportProfiles } from '../../../demo/search-export';
import type { ProfileContent } from '../../../shared/companies/profile';
import type { ContentRecord } from '../../../shared/register/import/import';
import { companyTypeCode, tradingStatusCode } from '../../../shared/register/register-csv';

const HEADER =
  'company_name,company_number,company_status,company_type,company_subtype,dissolution_date,incorporation_date,removed_date,registered_date,nature_of_business,registered_office_address';

async function readAll(stream: Readable): Promise<ContentRecord[]> {
  const records: ContentRecord[] = [];
  for await (const record of readSearchExportProfiles(stream)) records.push(record);
  return records;
}

const readText = (text: string) => readAll(Readable.from([text]));
const profileOf = (record: ContentRecord | undefined): ProfileContent => {
  if (!record?.profile) throw new Error(`no profile: ${record?.error}`);
  return record.profile;
};

describe('readRegisterCsv over the real register sample', () => {
  it('reads 16,295 companies and reports the 5 lines where two records run together', async () => {
    // Act
    const records = await readAll(createReadStream(new URL('../../../data/gb-companies-2024-01.csv', import.meta.url)));

    // Assess
    const profiles = records.filter((record) => record.profile);
    const errors = records.filter((record) => record.error);
    expect(records).toHaveLength(16_300);
    expect(profiles).toHaveLength(16_295);
    expect(errors.map((record) => record.line)).toEqual([3916, 7043, 10156, 13377, 15691]);
    expect(errors.every((record) => record.error?.includes('expected 11 fields, found 21'))).toBe(true);
    expect(new Set(profiles.map((record) => record.profile?.companyNumber)).size).toBe(16_295);
  });

  it('maps the first data row to register facts and demo blocks', async () => {
    const records = await readText(
      `${HEADER}\r\nCPA GATES LTD,15380840,Active,Private limited company,,,2024-01-02,,,71129,Dean Cottage Arbour Lane Standish Wigan WN6 0YJ England\r\n`,
    );

    const profile = profileOf(records[0]);
    expect(records[0]?.line).toBe(2);
    expect(profile).toMatchObject({
      jurisdiction: 'GB',
      companyNumber: '15380840',
      name: 'CPA GATES LTD',
      dataSource: 'demo',
      overview: {
        companyType: 'ltd',
        companySubtype: null,
        incorporatedOn: '2024-01-02',
        dissolvedOn: null,
        sicCodes: ['71129'],
        registeredOffice: 'Dean Cottage Arbour Lane Standish Wigan WN6 0YJ England',
      },
      tradingStatus: { status: 'active', registerStatus: 'Active', since: '2024-01-02' },
    });
    expect(profile.creditCapacity.creditLimit?.currency).toBe('GBP');
  });
});

describe('readRegisterCsv over damaged input', () => {
  const damaged = [
    `\uFEFF${HEADER}`,
    'GOOD ONE LTD,15380001,Active,Private limited company,,,2024-01-02,,,71129,1 High Street London',
    'BAD DATE LTD,15380002,Active,Private limited company,,,2024-02-30,,,71129,1 High Street London',
    'BAD NUMBER LTD,XX380003,Active,Private limited company,,,2024-01-02,,,71129,1 High Street London',
    ',15380004,Active,Private limited company,,,2024-01-02,,,71129,1 High Street London',
    'BAD SIC LTD,15380005,Active,Private limited company,,,2024-01-02,,,7112X,1 High Street London',
    'SHORT ROW LTD,15380006,Active',
    '',
    '"MULTI, LINE LTD",15380007,Active,Private limited company,,,2024-01-02,,,71129,"1 High Street',
    'London"',
    'RUN ON LTD,15380008,Active,Private limited company,,,2024-01-02,,,71129,"1 High Street "NEXT LTD,15380009,Active,Private limited company,,,2024-01-02,,,71129,2 High Street',
    'UNCLOSED LTD,15380010,Active,Private limited company,,,2024-01-02,,,71129,"1 High Street',
    'AFTER UNCLOSED LTD,15380011,Active,Private limited company,,,2024-01-02,,,71129,3 High Street',
  ].join('\r\n');

  it('reports each bad row with its line and reads every good one', async () => {
    // Act
    const records = await readText(damaged);

    // Assess
    const summary = records.map((record) => [record.line, record.profile?.companyNumber ?? record.error]);
    expect(summary).toEqual([
      [2, '15380001'],
      [3, 'incorporation_date "2024-02-30" is not a date in the form YYYY-MM-DD'],
      [4, expect.stringContaining('company_number: "XX" is not a Companies House company number prefix')],
      [5, 'company_name is empty'],
      [6, 'nature_of_business "7112X" is not a 5-digit SIC code'],
      [7, 'expected 11 fields, found 3'],
      [9, '15380007'],
      [11, 'expected 11 fields, found 21 (two records run together?)'],
      [12, 'malformed CSV: a quoted field is never closed'],
      [13, '15380011'],
    ]);
    expect(profileOf(records[6]).overview.registeredOffice).toBe('1 High Street London');
  });

  it('stops at a header that lacks columns, saying which', async () => {
    const records = await readText('company_name,company_number\r\nACME LTD,15380001\r\n');

    expect(records).toEqual([{ line: 1, error: expect.stringContaining('company_status') }]);
  });

  it('reads nothing from an empty stream', async () => {
    expect(await readText('')).toEqual([]);
  });
});

describe('register labels', () => {
  it.each([
    ['Active', 'active'],
    ['Open', 'active'],
    ['Registered', 'active'],
    ['Active - Proposal to Strike off', 'active'],
    ['Dissolved', 'dissolved'],
    ['Liquidation', 'liquidation'],
    ['In Administration', 'administration'],
    ['Administrative Receiver', 'administration'],
    ['Receiver Action', 'receivership'],
    ['Voluntary Arrangement', 'voluntary_arrangement'],
    ['Insolvency Proceedings', 'insolvency_proceedings'],
    ['Converted / Closed', 'converted'],
    ['Closed', 'closed'],
    ['Removed', 'removed'],
    ['Something New', 'other'],
  ])('status %j → %s', (label, code) => {
    expect(tradingStatusCode(label)).toBe(code);
  });

  it.each([
    ['Private limited company', 'ltd'],
    ['Private limited by guarantee without share capital', 'private-limited-guarant-nsc'],
    [
      "Private Limited Company by guarantee without share capital, use of 'Limited' exemption",
      'private-limited-guarant-nsc-limited-exemption',
    ],
    ['Limited liability partnership', 'llp'],
    ['UK establishment company', 'uk-establishment'],
    ['Overseas company', 'oversea-company'],
    ['Overseas entity', 'registered-overseas-entity'],
    ['Limited partnership', 'limited-partnership'],
    ['Public limited company', 'plc'],
    ['Private unlimited company', 'private-unlimited'],
    ['A type nobody has seen', 'other'],
  ])('type %j → %s', (label, code) => {
    expect(companyTypeCode(label)).toBe(code);
  });

  it('marks an active company whose only SIC code is 99999 as dormant, keeping the register label', async () => {
    const records = await readText(`${HEADER}\nSLEEPY LTD,15380001,Active,Private limited company,,,2024-01-02,,,99999,1 High Street\n`);

    expect(profileOf(records[0]).tradingStatus).toEqual({ status: 'dormant', registerStatus: 'Active', since: '2024-01-02' });
  });

  it('dates a dissolved company from its dissolution, and an overseas entity from its registration', async () => {
    const records = await readText(
      [
        HEADER,
        'GONE LTD,15380001,Dissolved,Private limited company,,2024-05-07,2024-01-02,,,71129,1 High Street',
        'FAR AWAY HOLDINGS INC,OE012345,Registered,Overseas entity,,,,,2024-01-03, ,Somewhere Abroad',
        'GOOD CAUSE CIC,15380002,Active,Private limited company,Community Interest Company (CIC),,2024-01-02,,,88990,1 High Street',
      ].join('\n'),
    );

    expect(profileOf(records[0]).tradingStatus).toEqual({ status: 'dissolved', registerStatus: 'Dissolved', since: '2024-05-07' });
    expect(profileOf(records[0]).overview.dissolvedOn).toBe('2024-05-07');
    expect(profileOf(records[1]).overview).toMatchObject({
      companyType: 'registered-overseas-entity',
      incorporatedOn: '2024-01-03',
      sicCodes: [],
    });
    expect(profileOf(records[2]).overview.companySubtype).toBe('community-interest-company');
  });
});
