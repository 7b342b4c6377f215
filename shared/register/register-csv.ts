import type { Readable } from 'node:stream';
import { foldName } from '../companies/names';
import { InvalidCompanyNumberError, parseCompanyNumber } from '../companies/numbers';
import type { TradingStatus } from '../companies/profile';
import { fieldsOf, logicalRecords } from './csv-lines';
import type { RegisterFacts } from './register-facts';
import { cleanField } from './register-text';

/**
 * Streaming reader of the Companies House register export (the columns of
 * data/gb-companies-2024-01.csv). Each line becomes one company's register facts (demo/ derives demo
 * blocks from them), or an error naming the line: one bad row never stops the file.
 * Records are read line by line (csv-lines.ts): the export has rows that run on into the next.
 */

export const REGISTER_COLUMNS = [
  'company_name',
  'company_number',
  'company_status',
  'company_type',
  'company_subtype',
  'dissolution_date',
  'incorporation_date',
  'removed_date',
  'registered_date',
  'nature_of_business',
  'registered_office_address',
] as const;
type RegisterColumn = (typeof REGISTER_COLUMNS)[number];
type RegisterRow = Readonly<Record<RegisterColumn, string>>;

export interface RegisterCsvRecord {
  /** 1-based physical line where the record starts (the header is line 1). */
  readonly line: number;
  readonly facts?: RegisterFacts;
  readonly error?: string;
}

const MAX_NAME_LENGTH = 160;
/** SIC 99999: "Dormant Company". */
const DORMANT_SIC = '99999';

class RowError extends Error {}

// ---------------------------------------------------------------------------------------------
// Register labels → model codes

/** Companies House company type descriptions, folded, to the Companies House API codes. */
const COMPANY_TYPE_CODES: Readonly<Record<string, string>> = {
  'private limited company': 'ltd',
  'public limited company': 'plc',
  'limited liability partnership': 'llp',
  'limited partnership': 'limited-partnership',
  'private limited by guarantee without share capital': 'private-limited-guarant-nsc',
  'private limited company by guarantee without share capital use of limited exemption': 'private-limited-guarant-nsc-limited-exemption',
  'private limited company use of limited exemption': 'private-limited-shares-section-30-exemption',
  'private unlimited company': 'private-unlimited',
  'private unlimited company without share capital': 'private-unlimited-nsc',
  'uk establishment company': 'uk-establishment',
  'overseas company': 'oversea-company',
  'overseas entity': 'registered-overseas-entity',
  'royal charter company': 'royal-charter',
  'charitable incorporated organisation': 'charitable-incorporated-organisation',
  'scottish charitable incorporated organisation': 'scottish-charitable-incorporated-organisation',
  'scottish qualifying partnership': 'scottish-partnership',
  'investment company with variable capital': 'investment-company-with-variable-capital',
  'industrial and provident society': 'industrial-and-provident-society',
  'registered society': 'registered-society-non-jurisdictional',
  'assurance company': 'assurance-company',
  'european economic interest grouping': 'eeig',
  'european public limited liability company se': 'european-public-limited-liability-company-se',
  'unregistered company': 'unregistered-company',
  'protected cell company': 'protected-cell-company',
  'further education or sixth form college corporation': 'further-education-or-sixth-form-college-corporation',
  'old public company': 'old-public-company',
  'converted closed': 'converted-or-closed',
  'other company type': 'other',
};

/** Every company type code a profile may carry: the GB codes above and the CRO types. */
export const COMPANY_TYPES: readonly string[] = [...new Set([...Object.values(COMPANY_TYPE_CODES), 'dac', 'clg', 'ulc', 'other'])];

const COMPANY_SUBTYPE_CODES: Readonly<Record<string, string>> = {
  'community interest company cic': 'community-interest-company',
  'private fund limited partnership pflp': 'private-fund-limited-partnership',
};

const STATUS_CODES: Readonly<Record<string, TradingStatus['status']>> = {
  active: 'active',
  open: 'active',
  registered: 'active',
  live: 'active',
  normal: 'active',
  dormant: 'dormant',
  dissolved: 'dissolved',
  liquidation: 'liquidation',
  'in administration': 'administration',
  administration: 'administration',
  'receiver action': 'receivership',
  receivership: 'receivership',
  'voluntary arrangement': 'voluntary_arrangement',
  'insolvency proceedings': 'insolvency_proceedings',
  'converted closed': 'converted',
  converted: 'converted',
  closed: 'closed',
  removed: 'removed',
  ceased: 'ceased',
};

/** Labels outside the table, by what they mention, most serious first. */
const STATUS_KEYWORDS: readonly (readonly [RegExp, TradingStatus['status']])[] = [
  [/dissolved/, 'dissolved'],
  [/liquidation/, 'liquidation'],
  [/administrat/, 'administration'],
  [/receiver/, 'receivership'],
  [/voluntary arrangement/, 'voluntary_arrangement'],
  [/insolvency/, 'insolvency_proceedings'],
  [/strike off|active/, 'active'],
];

/** Maps a register status label ("Active - Proposal to Strike off", "Receiver Action", …). */
export function tradingStatusCode(label: string): TradingStatus['status'] {
  const folded = foldName(label);
  return STATUS_CODES[folded] ?? STATUS_KEYWORDS.find(([pattern]) => pattern.test(folded))?.[1] ?? 'other';
}

/** Maps a register company type label ("Private limited company", …) to its code. */
export function companyTypeCode(label: string): string {
  return COMPANY_TYPE_CODES[foldName(label)] ?? 'other';
}

function companySubtypeCode(label: string): string | null {
  const folded = foldName(label);
  if (folded === '') return null;
  return COMPANY_SUBTYPE_CODES[folded] ?? folded.replace(/ /g, '-');
}

// ---------------------------------------------------------------------------------------------
// Row → profile

function isoDate(row: RegisterRow, column: RegisterColumn): string | null {
  const value = row[column].trim();
  if (value === '') return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const date = match ? new Date(`${value}T00:00:00Z`) : undefined;
  if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
    throw new RowError(`${column} "${value}" is not a date in the form YYYY-MM-DD`);
  }
  return value;
}

function required(row: RegisterRow, column: RegisterColumn): string {
  const value = row[column].trim();
  if (value === '') throw new RowError(`${column} is empty`);
  return value;
}

function registerFacts(row: RegisterRow): RegisterFacts {
  const name = required(row, 'company_name').replace(/\s+/g, ' ');
  if (name.length > MAX_NAME_LENGTH) throw new RowError(`company_name is longer than ${MAX_NAME_LENGTH} characters`);
  let companyNumber: string;
  try {
    companyNumber = parseCompanyNumber(required(row, 'company_number'), 'GB').companyNumber;
  } catch (error) {
    if (error instanceof InvalidCompanyNumberError) throw new RowError(`company_number: ${error.message}`);
    throw error;
  }
  const registerStatus = required(row, 'company_status');
  const companyType = companyTypeCode(required(row, 'company_type'));
  const dissolvedOn = isoDate(row, 'dissolution_date');
  const incorporatedOn = isoDate(row, 'incorporation_date') ?? isoDate(row, 'registered_date');
  const removedOn = isoDate(row, 'removed_date');
  const sicCodes = row.nature_of_business.split(/\s+/).filter((code) => code !== '');
  const badSic = sicCodes.find((code) => !/^\d{5}$/.test(code));
  if (badSic !== undefined) throw new RowError(`nature_of_business "${badSic}" is not a 5-digit SIC code`);
  const address = row.registered_office_address.trim().replace(/\s+/g, ' ');

  let status = tradingStatusCode(registerStatus);
  if (status === 'active' && sicCodes.length === 1 && sicCodes[0] === DORMANT_SIC) status = 'dormant';
  const since =
    status === 'dissolved'
      ? dissolvedOn
      : status === 'removed'
        ? removedOn
        : status === 'active' || status === 'dormant'
          ? incorporatedOn
          : null;

  return {
    jurisdiction: 'GB',
    companyNumber,
    name,
    companyType,
    companySubtype: companySubtypeCode(row.company_subtype),
    incorporatedOn,
    dissolvedOn,
    sicCodes,
    registeredOffice: address === '' ? null : address,
    tradingStatus: { status, registerStatus, since },
  };
}

// ---------------------------------------------------------------------------------------------
// Lines → records

function parseFields(text: string): string[] {
  const fields = fieldsOf(text, undefined, { relaxQuotes: true });
  if ('error' in fields) throw new RowError(fields.error);
  return fields;
}

/**
 * Reads the register CSV. Yields one record per data row, in file order: its facts, or an error
 * that says what is wrong with the row. A missing column in the header yields one error for line
 * 1 and ends the file.
 */
export async function* readRegisterCsv(stream: Readable): AsyncGenerator<RegisterCsvRecord> {
  let columns: string[] | undefined;
  for await (const record of logicalRecords(stream)) {
    if (record.error !== undefined || record.text === undefined) {
      yield { line: record.line, error: record.error ?? 'malformed CSV' };
      continue;
    }
    try {
      const fields = parseFields(record.text);
      if (!columns) {
        columns = fields.map((field) => field.trim());
        const missing = REGISTER_COLUMNS.filter((column) => !columns?.includes(column));
        if (missing.length > 0) {
          yield { line: record.line, error: `the header lacks the column(s) ${missing.join(', ')}` };
          return;
        }
        continue;
      }
      if (fields.length !== columns.length) {
        throw new RowError(
          `expected ${columns.length} fields, found ${fields.length}${fields.length > columns.length ? ' (two records run together?)' : ''}`,
        );
      }
      const row = Object.fromEntries(columns.map((column, index) => [column, cleanField(column, fields[index] ?? '')])) as RegisterRow;
      yield { line: record.line, facts: registerFacts(row) };
    } catch (error) {
      if (!(error instanceof RowError)) throw error;
      yield { line: record.line, error: error.message };
    }
  }
}
