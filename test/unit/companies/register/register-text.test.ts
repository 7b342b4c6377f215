import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { companiesHouseFacts } from '../../../../shared/register/companies-house-bulk';
import { croFacts } from '../../../../shared/register/cro-companies';
import { readRegisterCsv } from '../../../../shared/register/register-csv';
import { cleanText, TEXT_LIMITS } from '../../../../shared/register/register-text';
import { FieldRow, Header } from '../../../../shared/register/snapshot-facts';
import { eventFacts } from '../../../../shared/register/stream/event-facts';
import type { StreamEvent } from '../../../../shared/register/stream/stream-events';

const ESC = '\u001b';
const RLO = '\u202e';
/** What a terminal or a page would act on, or that steers how text reads. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: what must never be stored is control characters
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

const rowOf = (fields: Record<string, string>) =>
  new FieldRow(new Header(new Map(Object.keys(fields).map((column, at) => [column, at]))), Object.values(fields));

const companyEvent = (data: Record<string, unknown>): StreamEvent => ({
  stream: 'companies',
  resourceKind: 'company-profile',
  resourceUri: '/company/09446231',
  resourceId: '09446231',
  data,
  timepoint: 1,
  publishedAt: '2026-11-25T08:30:12',
  type: 'changed',
});

describe('cleaning a register text before it is stored', () => {
  it('removes escape sequences, control characters and bidirectional overrides, keeping the words', () => {
    expect(cleanText(`${ESC}[31mACME${ESC}[0m ${RLO}WIDGETS\u2066 LIMITED\u200b\ufeff`)).toBe('ACME WIDGETS LIMITED');
    expect(cleanText(`A${ESC}]0;title\u0007B${ESC}]8;;http://x${ESC}\\C\u009b2JD`)).toBe('ABCD');
    expect(cleanText('LINE ONE\r\n\tLINE\u0000 TWO\u2028THREE')).toBe('LINE ONE LINE TWO THREE');
  });

  it('bounds a text by what it is, never cutting a character in two', () => {
    expect(cleanText('N'.repeat(5_000), 'name')).toHaveLength(TEXT_LIMITS.name);
    expect(cleanText('A'.repeat(5_000), 'addressLine')).toHaveLength(TEXT_LIMITS.addressLine);
    const emoji = `${'x'.repeat(159)}😀`;
    expect(cleanText(emoji, 'name')).toBe('x'.repeat(159));
    expect(cleanText('plain text', 'name')).toBe('plain text');
  });

  it('leaves a whole line of escapes and controls empty', () => {
    expect(cleanText(`${ESC}[2J${ESC}[H\u0007 \u202e`)).toBe('');
  });
});

describe('the stream and the bulk readers store only cleaned, bounded texts', () => {
  it('cleans and bounds the names and address lines of a company-profile event', () => {
    const found = eventFacts(
      companyEvent({
        company_name: `${ESC}[31m${RLO}EVIL ${'N'.repeat(5_000)}`,
        company_status: 'active',
        registered_office_address: { premises: `${ESC}[1m12${ESC}[0m`, address_line_1: `High Street${RLO}${'A'.repeat(300)}` },
        previous_company_names: [{ name: `OLD\u2067 ${'P'.repeat(300_000)}`, ceased_on: '2020-01-01' }],
      }),
    );

    expect(found.ok).toBe(true);
    if (!found.ok) return;
    const { columns } = found.facts;
    expect(columns.CompanyName).toMatch(/^EVIL N+$/);
    expect(columns.CompanyName).toHaveLength(TEXT_LIMITS.name);
    expect(columns['RegAddress.AddressLine1']?.startsWith('12 High Street')).toBe(true);
    expect(columns['RegAddress.AddressLine1']?.length).toBeLessThanOrEqual(TEXT_LIMITS.addressLine);
    expect(columns['PreviousName_1.CompanyName']).toHaveLength(TEXT_LIMITS.name);
    for (const value of Object.values(columns)) expect(value ?? '').not.toMatch(UNSAFE);
  });

  it('cleans the Companies House bulk file and CRO rows, provenance included', () => {
    const gb = companiesHouseFacts(
      rowOf({
        CompanyName: `${ESC}[31mACME${RLO} WIDGETS LIMITED`,
        CompanyNumber: '09446231',
        'RegAddress.AddressLine1': `12 Foundry Lane${ESC}[0m${'X'.repeat(400)}`,
        CompanyCategory: 'Private Limited Company',
        CompanyStatus: 'Active',
        IncorporationDate: '20/02/2015',
        'PreviousName_1.CompanyName': `OLD\u202a ${'P'.repeat(1_000)}`,
        'PreviousName_1.CONDATE': '01/01/2020',
      }),
    );
    const ie = croFacts(
      rowOf({
        company_num: '123456',
        company_name: `HARBOUR\u2066 LIGHTS${ESC}[2J LIMITED`,
        company_status: 'Normal',
        company_type: 'LTD - Private Company Limited by Shares',
        company_address_1: `1 Quay${RLO} Street`,
      }),
    );

    expect(gb.name).toBe('ACME WIDGETS LIMITED');
    expect(gb.registeredOffice?.length).toBeLessThanOrEqual(TEXT_LIMITS.addressLine);
    expect(gb.previousNames[0]?.name).toHaveLength(TEXT_LIMITS.name);
    expect(gb.published.get('CompanyName')).toBe('ACME WIDGETS LIMITED');
    expect(JSON.stringify(gb.published.pick(['CompanyName', 'RegAddress.AddressLine1']))).not.toMatch(UNSAFE);
    expect(ie.name).toBe('HARBOUR LIGHTS LIMITED');
    expect(ie.registeredOffice).toBe('1 Quay Street');
  });

  it('cleans the search export', async () => {
    const header =
      'company_name,company_number,company_status,company_type,company_subtype,dissolution_date,incorporation_date,removed_date,registered_date,nature_of_business,registered_office_address';
    const row = `"${ESC}[31mACME${RLO} WIDGETS LIMITED",09446231,active,ltd,,,2015-02-20,,,25990,"12 Foundry Lane\u2067, Sheffield"`;

    const records = [];
    for await (const record of readRegisterCsv(Readable.from([`${header}\n${row}\n`]))) records.push(record);

    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ facts: { name: 'ACME WIDGETS LIMITED', registeredOffice: '12 Foundry Lane, Sheffield' } });
  });
});
