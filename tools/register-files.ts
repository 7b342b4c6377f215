import { createReadStream } from 'node:fs';
import { seededRandom } from '../demo/random';
import { addDays, addMonths } from '../shared/register/calendar';
import { COMPANIES_HOUSE_BULK_COLUMNS, SPACED_COLUMNS } from '../shared/register/companies-house-bulk';
import { readRegisterCsv } from '../shared/register/register-csv';

/**
 * Files in the registers' bulk layouts, exactly as published (the header's leading spaces, every
 * data field quoted, DD/MM/YYYY dates, "None Supplied" SIC slots): for fixtures, for the
 * conversion of the search-export sample into the bulk layout, and for large synthetic files that
 * benchmarks read. No real bulk file can be downloaded where the tests run.
 */

/** The Companies House BasicCompanyData header, as published: unquoted, some names after a space. */
export const BULK_HEADER = COMPANIES_HOUSE_BULK_COLUMNS.map((column) => (SPACED_COLUMNS.has(column) ? ` ${column}` : column)).join(',');

export interface BulkCompany {
  readonly name: string;
  readonly number: string;
  readonly careOf?: string;
  readonly poBox?: string;
  readonly addressLine1?: string;
  readonly addressLine2?: string;
  readonly postTown?: string;
  readonly county?: string;
  readonly country?: string;
  readonly postCode?: string;
  readonly category: string;
  readonly status: string;
  readonly countryOfOrigin?: string;
  /** ISO dates throughout; written as DD/MM/YYYY. */
  readonly dissolvedOn?: string;
  readonly incorporatedOn?: string;
  readonly accountRefDay?: number;
  readonly accountRefMonth?: number;
  readonly accountsNextDue?: string;
  readonly accountsLastMadeUp?: string;
  readonly accountCategory?: string;
  readonly returnsNextDue?: string;
  readonly returnsLastMadeUp?: string;
  readonly charges?: number;
  readonly outstanding?: number;
  readonly partSatisfied?: number;
  readonly satisfied?: number;
  /** Full SIC texts, "70229 - Management consultancy activities other than financial management". */
  readonly sicTexts?: readonly string[];
  readonly previousNames?: readonly { readonly changedOn: string; readonly name: string }[];
  readonly confirmationNextDue?: string;
  readonly confirmationLastMadeUp?: string;
}

const ukDate = (iso: string | undefined) => (iso ? `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}` : '');
const quoted = (value: string | number | undefined) => `"${String(value ?? '').replace(/"/g, '""')}"`;

/** One data row of the bulk file, every field quoted. */
export function bulkRow(company: BulkCompany): string {
  const sic = [...(company.sicTexts ?? ['None Supplied'])];
  while (sic.length < 4) sic.push('');
  const previous = Array.from({ length: 10 }, (_, slot) => {
    const name = company.previousNames?.[slot];
    return [ukDate(name?.changedOn), name?.name ?? ''];
  }).flat();
  return [
    company.name,
    company.number,
    company.careOf,
    company.poBox,
    company.addressLine1,
    company.addressLine2,
    company.postTown,
    company.county,
    company.country,
    company.postCode,
    company.category,
    company.status,
    company.countryOfOrigin ?? 'United Kingdom',
    ukDate(company.dissolvedOn),
    ukDate(company.incorporatedOn),
    company.accountRefDay,
    company.accountRefMonth,
    ukDate(company.accountsNextDue),
    ukDate(company.accountsLastMadeUp),
    company.accountCategory ?? 'NO ACCOUNTS FILED',
    ukDate(company.returnsNextDue),
    ukDate(company.returnsLastMadeUp),
    company.charges ?? 0,
    company.outstanding ?? 0,
    company.partSatisfied ?? 0,
    company.satisfied ?? 0,
    ...sic,
    0,
    0,
    `http://business.data.gov.uk/id/company/${company.number}`,
    ...previous,
    ukDate(company.confirmationNextDue),
    ukDate(company.confirmationLastMadeUp),
  ]
    .map(quoted)
    .join(',');
}

/** A whole bulk file of the given rows, lines ended as published (CRLF). */
export const bulkFile = (rows: readonly string[]) => `${[BULK_HEADER, ...rows].join('\r\n')}\r\n`;

/** The CRO companies header, as published. */
export const CRO_HEADER =
  'company_num,company_name,company_status_code,company_status,company_type_code,company_type,company_reg_date,last_ar_date,company_address_1,company_address_2,company_address_3,company_address_4,comp_dissolved_date,nard,last_accounts_date,company_status_date,nace_v2_code,eircode,company_name_eff_date,company_type_eff_date,princ_object_code';

export interface CroCompany {
  readonly number: number;
  readonly name: string;
  readonly statusCode: number;
  /** As published, stray spaces included ("Normal "). */
  readonly status: string;
  readonly typeCode: number;
  readonly type: string;
  readonly registeredOn: string;
  readonly lastAnnualReturn?: string;
  readonly address: readonly string[];
  readonly dissolvedOn?: string;
  readonly nextAnnualReturn?: string;
  readonly lastAccounts?: string;
  readonly statusSince?: string;
  /** As published, "4741.0". */
  readonly nace?: string;
  readonly eircode?: string;
  readonly nameSince?: string;
}

export function croRow(company: CroCompany): string {
  const address = [...company.address];
  while (address.length < 4) address.push('');
  return [
    company.number,
    company.name,
    company.statusCode,
    company.status,
    company.typeCode,
    company.type,
    company.registeredOn,
    company.lastAnnualReturn,
    ...address,
    company.dissolvedOn,
    company.nextAnnualReturn,
    company.lastAccounts,
    company.statusSince,
    company.nace,
    company.eircode,
    company.nameSince,
    company.registeredOn,
    '',
  ]
    .map(quoted)
    .join(',');
}

// ---------------------------------------------------------------------------------------------
// The search-export sample in the bulk layout

/** Bulk-file CompanyCategory labels for the search export's type codes, where the layouts overlap. */
const CATEGORY_OF_TYPE: Readonly<Record<string, string>> = {
  ltd: 'Private Limited Company',
  plc: 'Public Limited Company',
  llp: 'Limited Liability Partnership',
  'limited-partnership': 'Limited Partnership',
  'private-limited-guarant-nsc': 'PRI/LTD BY GUAR/NSC (Private, limited by guarantee, no share capital)',
  'private-limited-guarant-nsc-limited-exemption':
    "PRI/LBG/NSC (Private, Limited by guarantee, no share capital, use of 'Limited' exemption)",
  'private-unlimited': 'Private Unlimited Company',
  'private-unlimited-nsc': 'Private Unlimited Company',
  'registered-overseas-entity': 'Overseas Entity',
  'scottish-partnership': 'Scottish Partnership',
  'charitable-incorporated-organisation': 'Charitable Incorporated Organisation',
  'scottish-charitable-incorporated-organisation': 'Scottish Charitable Incorporated Organisation',
  'registered-society-non-jurisdictional': 'Registered Society',
};

const POSTCODE = /\b([A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2})\b/;

/**
 * The sample's companies (data/gb-companies-2024-01.csv) in the bulk layout, as a snapshot of
 * `asOf` would list them: live companies only; the columns the export has (name, number, type,
 * status, incorporation date, SIC codes, address) carried over, and the filing deadlines a company
 * incorporated then has by statute (first accounts 21 months after incorporation, the first
 * confirmation statement a year and 14 days after). SIC texts are not in the export: the code is
 * followed by a note saying so.
 */
export async function* sampleAsBulkRows(path: string): AsyncGenerator<string> {
  for await (const record of readRegisterCsv(createReadStream(path))) {
    const facts = record.facts;
    if (!facts || facts.tradingStatus.status === 'dissolved' || facts.tradingStatus.status === 'removed') continue;
    const incorporatedOn = facts.incorporatedOn ?? '2024-01-01';
    const address = facts.registeredOffice ?? '';
    const postCode = POSTCODE.exec(address)?.[1] ?? '';
    const yearEnd = addDays(addMonths(`${incorporatedOn.slice(0, 8)}01`, 13), -1);
    yield bulkRow({
      name: facts.name,
      number: facts.companyNumber,
      addressLine1: postCode ? address.slice(0, address.indexOf(postCode)).trim() : address,
      postCode,
      country: /\bScotland\b/i.test(address) ? 'Scotland' : /\bWales\b/i.test(address) ? 'Wales' : 'England',
      category: CATEGORY_OF_TYPE[facts.companyType] ?? 'Other company type',
      status: facts.tradingStatus.registerStatus,
      incorporatedOn,
      accountRefDay: Number(yearEnd.slice(8, 10)),
      accountRefMonth: Number(yearEnd.slice(5, 7)),
      accountsNextDue: addMonths(incorporatedOn, 21),
      accountCategory: 'NO ACCOUNTS FILED',
      sicTexts: facts.sicCodes.length > 0 ? facts.sicCodes.map((code) => `${code} - (activity text not in the search export)`) : undefined,
      confirmationNextDue: addDays(addMonths(incorporatedOn, 12), 14),
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Synthetic files for benchmarks

const SYNTHETIC_CATEGORIES = [
  ['Private Limited Company', 0.88],
  ['PRI/LTD BY GUAR/NSC (Private, limited by guarantee, no share capital)', 0.04],
  ['Limited Liability Partnership', 0.03],
  ['Community Interest Company', 0.02],
  ['Public Limited Company', 0.01],
  ['Limited Partnership', 0.02],
] as const;
const SYNTHETIC_STATUSES = [
  ['Active', 0.93],
  ['Active - Proposal to Strike off', 0.04],
  ['Liquidation', 0.015],
  ['In Administration', 0.005],
  ['Live but Receiver Manager on at least one charge', 0.005],
  ['Voluntary Arrangement', 0.005],
] as const;
const SYNTHETIC_ACCOUNTS = [
  ['MICRO ENTITY', 0.45],
  ['TOTAL EXEMPTION FULL', 0.2],
  ['UNAUDITED ABRIDGED', 0.1],
  ['DORMANT', 0.08],
  ['NO ACCOUNTS FILED', 0.1],
  ['SMALL', 0.03],
  ['MEDIUM', 0.01],
  ['FULL', 0.02],
  ['GROUP', 0.01],
] as const;
const SYNTHETIC_SIC = [
  '62012 - Business and domestic software development',
  '70229 - Management consultancy activities other than financial management',
  '68209 - Other letting and operating of own or leased real estate',
  '82990 - Other business support service activities n.e.c.',
  '47910 - Retail sale via mail order houses or via Internet',
  '56101 - Licensed restaurants',
  '43999 - Other specialised construction activities n.e.c.',
  '96090 - Other service activities n.e.c.',
];
const WORDS = [
  'NORTH',
  'STAR',
  'BRIDGE',
  'OAK',
  'RIVER',
  'HOLDINGS',
  'TRADING',
  'SERVICES',
  'DIGITAL',
  'HOMES',
  'CARE',
  'GREEN',
  'CAPITAL',
];
const SUFFIXES = ['LIMITED', 'LTD', 'CYFYNGEDIG', 'LIMITED'];

/**
 * `count` synthetic companies in the bulk layout, deterministic in `seed`: the published mix of
 * categories, statuses and account categories, roughly; for measuring, never for clients.
 */
export function* syntheticBulkRows(count: number, seed = 1, asOf = '2024-06-01'): Generator<string> {
  for (let index = 0; index < count; index++) {
    const random = seededRandom(`bulk#${seed}#${index}`);
    const incorporatedOn = addDays('1990-01-01', random.int(0, 12_500));
    const accountCategory = random.weighted(SYNTHETIC_ACCOUNTS);
    const yearEnd = addDays(addMonths(`${incorporatedOn.slice(0, 8)}01`, 13), -1);
    const lastMadeUp = accountCategory === 'NO ACCOUNTS FILED' ? undefined : addMonths(yearEnd, 12 * random.int(0, 2) - 24);
    const charges = random.chance(0.15) ? random.int(1, 6) : 0;
    yield bulkRow({
      name: `${random.pick(WORDS)} ${random.pick(WORDS)} ${index} ${random.pick(SUFFIXES)}`,
      number: String(20_000_000 + seed * 1_000_000 + index).padStart(8, '0'),
      addressLine1: `${random.int(1, 200)} High Street`,
      postTown: 'LONDON',
      country: 'ENGLAND',
      postCode: `E${random.int(1, 20)} ${random.int(1, 9)}AB`,
      category: random.weighted(SYNTHETIC_CATEGORIES),
      status: random.weighted(SYNTHETIC_STATUSES),
      incorporatedOn,
      accountRefDay: Number(yearEnd.slice(8, 10)),
      accountRefMonth: Number(yearEnd.slice(5, 7)),
      accountsNextDue: lastMadeUp ? addMonths(lastMadeUp, 21) : addMonths(incorporatedOn, 21),
      accountsLastMadeUp: lastMadeUp,
      accountCategory,
      charges,
      outstanding: charges > 0 ? random.int(0, charges) : 0,
      sicTexts: random.chance(0.05) ? undefined : [random.pick(SYNTHETIC_SIC)],
      previousNames: random.chance(0.1)
        ? [{ changedOn: addDays(incorporatedOn, 400), name: `${random.pick(WORDS)} ${index} LIMITED` }]
        : [],
      confirmationNextDue: addDays(asOf, random.int(-60, 360)),
      confirmationLastMadeUp: addDays(asOf, random.int(-370, -10)),
    });
  }
}
