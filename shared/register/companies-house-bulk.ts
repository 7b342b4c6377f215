import type { PreviousName, TradingStatus } from '../companies/profile';
import { ukDate } from './dates';
import { labelMap, remembered } from './labels';
import { companyTypeCode, tradingStatusCode } from './register-csv';
import {
  collapsed,
  companyNameOf,
  companyNumberOf,
  type PublishedRow,
  RowError,
  requiredField,
  type SnapshotFacts,
} from './snapshot-facts';

/**
 * Companies House's Free Company Data Product (BasicCompanyData): one row per live company, 55
 * columns, every field quoted, dates DD/MM/YYYY. Column names are matched trimmed, since some are
 * published with a leading space (" CompanyNumber", " RegAddress.AddressLine2").
 */

const PREVIOUS_NAME_SLOTS = 10;

export const ADDRESS_COLUMNS = [
  'RegAddress.CareOf',
  'RegAddress.POBox',
  'RegAddress.AddressLine1',
  'RegAddress.AddressLine2',
  'RegAddress.PostTown',
  'RegAddress.County',
  'RegAddress.Country',
  'RegAddress.PostCode',
] as const;

export const SIC_COLUMNS = ['SICCode.SicText_1', 'SICCode.SicText_2', 'SICCode.SicText_3', 'SICCode.SicText_4'];
export const PREVIOUS_NAME_COLUMNS = Array.from({ length: PREVIOUS_NAME_SLOTS }, (_, slot) => ({
  name: `PreviousName_${slot + 1}.CompanyName`,
  changedOn: `PreviousName_${slot + 1}.CONDATE`,
}));

/** The columns as published, trimmed; the published header puts a space before these. */
export const SPACED_COLUMNS: ReadonlySet<string> = new Set([
  'CompanyNumber',
  'RegAddress.AddressLine2',
  ...PREVIOUS_NAME_COLUMNS.map((columns) => columns.name),
  'ConfStmtLastMadeUpDate',
]);

export const COMPANIES_HOUSE_BULK_COLUMNS: readonly string[] = [
  'CompanyName',
  'CompanyNumber',
  ...ADDRESS_COLUMNS,
  'CompanyCategory',
  'CompanyStatus',
  'CountryOfOrigin',
  'DissolutionDate',
  'IncorporationDate',
  'Accounts.AccountRefDay',
  'Accounts.AccountRefMonth',
  'Accounts.NextDueDate',
  'Accounts.LastMadeUpDate',
  'Accounts.AccountCategory',
  'Returns.NextDueDate',
  'Returns.LastMadeUpDate',
  'Mortgages.NumMortCharges',
  'Mortgages.NumMortOutstanding',
  'Mortgages.NumMortPartSatisfied',
  'Mortgages.NumMortSatisfied',
  ...SIC_COLUMNS,
  'LimitedPartnerships.NumGenPartners',
  'LimitedPartnerships.NumLimPartners',
  'URI',
  ...PREVIOUS_NAME_COLUMNS.flatMap((columns) => [columns.changedOn, columns.name]),
  'ConfStmtNextDueDate',
  'ConfStmtLastMadeUpDate',
];

/** The bulk file's CompanyCategory labels, which differ from the search export's type labels. */
const CATEGORIES = labelMap<{ type: string; subtype?: string }>([
  ['Private Limited Company', { type: 'ltd' }],
  ['Public Limited Company', { type: 'plc' }],
  ['PRI/LTD BY GUAR/NSC (Private, limited by guarantee, no share capital)', { type: 'private-limited-guarant-nsc' }],
  [
    "PRI/LBG/NSC (Private, Limited by guarantee, no share capital, use of 'Limited' exemption)",
    { type: 'private-limited-guarant-nsc-limited-exemption' },
  ],
  ['PRIV LTD SECT. 30 (Private limited company, section 30 of the Companies Act)', { type: 'private-limited-shares-section-30-exemption' }],
  ['Limited Liability Partnership', { type: 'llp' }],
  ['Limited Partnership', { type: 'limited-partnership' }],
  ['Scottish Partnership', { type: 'scottish-partnership' }],
  // The bulk file does not say whether a CIC is limited by shares or by guarantee.
  ['Community Interest Company', { type: 'other', subtype: 'community-interest-company' }],
  ['Private Unlimited Company', { type: 'private-unlimited' }],
  ['Private Unlimited', { type: 'private-unlimited' }],
  ['Old Public Company', { type: 'old-public-company' }],
  ['Overseas Entity', { type: 'registered-overseas-entity' }],
  ['Other company type', { type: 'other' }],
  ['Charitable Incorporated Organisation', { type: 'charitable-incorporated-organisation' }],
  ['Scottish Charitable Incorporated Organisation', { type: 'scottish-charitable-incorporated-organisation' }],
  ['Investment Company with Variable Capital', { type: 'investment-company-with-variable-capital' }],
  ['Investment Company with Variable Capital(Umbrella)', { type: 'investment-company-with-variable-capital' }],
  ['Investment Company with Variable Capital (Securities)', { type: 'investment-company-with-variable-capital' }],
  ['Royal Charter Company', { type: 'royal-charter' }],
  ['Industrial and Provident Society', { type: 'industrial-and-provident-society' }],
  ['Registered Society', { type: 'registered-society-non-jurisdictional' }],
  ['Further Education and Sixth Form College Corps', { type: 'further-education-or-sixth-form-college-corporation' }],
  ['European Public Limited-Liability Company (SE)', { type: 'european-public-limited-liability-company-se' }],
  ['United Kingdom Economic Interest Grouping', { type: 'eeig' }],
  ['European Economic Interest Grouping', { type: 'eeig' }],
  ['Protected Cell Company', { type: 'protected-cell-company' }],
  ['Unregistered Company', { type: 'unregistered-company' }],
  ['Private Fund Limited Partnership', { type: 'limited-partnership', subtype: 'private-fund-limited-partnership' }],
]);

/** A company still live, but a receiver manager holds at least one of its charges: a signal, not insolvency of the company. */
const RECEIVER_ON_CHARGE = /receiver manager on at least one charge/i;

export const ACCOUNT_CATEGORIES = new Set([
  'NO ACCOUNTS FILED',
  'DORMANT',
  'MICRO ENTITY',
  'SMALL',
  'TOTAL EXEMPTION SMALL',
  'TOTAL EXEMPTION FULL',
  'UNAUDITED ABRIDGED',
  'AUDITED ABRIDGED',
  'PARTIAL EXEMPTION',
  'MEDIUM',
  'FULL',
  'GROUP',
  'AUDIT EXEMPTION SUBSIDIARY',
  'FILING EXEMPTION SUBSIDIARY',
  'ACCOUNTS TYPE NOT AVAILABLE',
  'INITIAL',
  'INTERIM',
]);

const typeOfLabel = remembered(companyTypeCode);
const statusOfLabel = remembered(tradingStatusCode);

const NONE_SUPPLIED = /^none supplied$/i;

function count(row: PublishedRow, column: string): number {
  const text = row.get(column) ?? '';
  if (text === '') return 0;
  if (!/^\d{1,6}$/.test(text)) throw new RowError(`${column} "${text}" is not a whole number`);
  return Number(text);
}

function sicCodes(row: PublishedRow): string[] {
  const codes: string[] = [];
  for (const column of SIC_COLUMNS) {
    const text = row.get(column);
    if (text === null || NONE_SUPPLIED.test(text)) continue;
    const code = /^(\d{5})\b/.exec(text)?.[1];
    if (!code) throw new RowError(`${column} "${text}" does not start with a 5-digit SIC code`);
    if (!codes.includes(code)) codes.push(code);
  }
  return codes;
}

function previousNames(row: PublishedRow): PreviousName[] {
  const names: PreviousName[] = [];
  for (const columns of PREVIOUS_NAME_COLUMNS) {
    const name = row.get(columns.name);
    if (name === null) continue;
    names.push({ name: collapsed(name), changedOn: ukDate(columns.changedOn, row.get(columns.changedOn)) });
  }
  return names;
}

function addressLine(row: PublishedRow): string | null {
  const parts: string[] = [];
  for (const column of ADDRESS_COLUMNS) {
    const part = row.get(column);
    if (part !== null) parts.push(collapsed(part));
  }
  const careOf = row.get('RegAddress.CareOf') ?? '';
  if (careOf !== '' && parts[0] === careOf) parts[0] = `C/O ${careOf}`;
  return parts.length === 0 ? null : parts.join(', ');
}

const DORMANT_SIC = '99999';

/** One bulk-file row, by trimmed column name, as the facts of a snapshot. */
export function companiesHouseFacts(row: PublishedRow): SnapshotFacts {
  const name = companyNameOf(row, 'CompanyName');
  const companyNumber = companyNumberOf(row, 'CompanyNumber', 'GB');
  const unknownValues: { field: string; value: string }[] = [];

  const categoryLabel = requiredField(row, 'CompanyCategory');
  let category = CATEGORIES(categoryLabel);
  if (!category) {
    const type = typeOfLabel(categoryLabel);
    category = { type };
    if (type === 'other') unknownValues.push({ field: 'CompanyCategory', value: categoryLabel });
  }

  const registerStatus = requiredField(row, 'CompanyStatus');
  const incorporatedOn = ukDate('IncorporationDate', row.get('IncorporationDate'));
  const dissolvedOn = ukDate('DissolutionDate', row.get('DissolutionDate'));
  const codes = sicCodes(row);
  const accountCategory = (row.get('Accounts.AccountCategory') ?? '').toUpperCase() || null;
  if (accountCategory && !ACCOUNT_CATEGORIES.has(accountCategory))
    unknownValues.push({ field: 'Accounts.AccountCategory', value: accountCategory });

  let status: TradingStatus['status'] = RECEIVER_ON_CHARGE.test(registerStatus) ? 'active' : statusOfLabel(registerStatus);
  if (status === 'other') unknownValues.push({ field: 'CompanyStatus', value: registerStatus });
  if (status === 'active' && (accountCategory === 'DORMANT' || (codes.length === 1 && codes[0] === DORMANT_SIC))) status = 'dormant';
  const since = status === 'dissolved' ? dissolvedOn : status === 'active' || status === 'dormant' ? incorporatedOn : null;

  const refDay = row.get('Accounts.AccountRefDay') ?? '';
  const refMonth = row.get('Accounts.AccountRefMonth') ?? '';
  if ((refDay !== '' && !/^\d{1,2}$/.test(refDay)) || (refMonth !== '' && !/^\d{1,2}$/.test(refMonth))) {
    throw new RowError(`Accounts.AccountRefDay/AccountRefMonth "${refDay}/${refMonth}" is not a day and a month`);
  }
  const confirmationDue = ukDate('ConfStmtNextDueDate', row.get('ConfStmtNextDueDate'));
  const confirmationMadeUp = ukDate('ConfStmtLastMadeUpDate', row.get('ConfStmtLastMadeUpDate'));
  const charges = {
    registered: count(row, 'Mortgages.NumMortCharges'),
    outstanding: count(row, 'Mortgages.NumMortOutstanding'),
    partSatisfied: count(row, 'Mortgages.NumMortPartSatisfied'),
    satisfied: count(row, 'Mortgages.NumMortSatisfied'),
  };

  return {
    source: 'companies-house-basic-company-data',
    jurisdiction: 'GB',
    companyNumber,
    name,
    companyType: category.type,
    companySubtype: category.subtype ?? null,
    status: { status, registerStatus, since },
    incorporatedOn,
    dissolvedOn,
    sicCodes: codes,
    registeredOffice: addressLine(row),
    accounts: {
      category: accountCategory,
      nextDueOn: ukDate('Accounts.NextDueDate', row.get('Accounts.NextDueDate')),
      lastMadeUpTo: ukDate('Accounts.LastMadeUpDate', row.get('Accounts.LastMadeUpDate')),
      referenceDate: refDay !== '' && refMonth !== '' ? `${Number(refDay)}/${Number(refMonth)}` : null,
    },
    // Returns.* is the annual return, replaced by the confirmation statement on 30 June 2016.
    statement:
      confirmationDue || confirmationMadeUp
        ? { nextDueOn: confirmationDue, lastMadeUpTo: confirmationMadeUp }
        : {
            nextDueOn: ukDate('Returns.NextDueDate', row.get('Returns.NextDueDate')),
            lastMadeUpTo: ukDate('Returns.LastMadeUpDate', row.get('Returns.LastMadeUpDate')),
          },
    charges,
    previousNames: previousNames(row),
    nameSince: null,
    published: row,
    unknownValues,
  };
}

export const isReceiverOnCharge = (registerStatus: string) => RECEIVER_ON_CHARGE.test(registerStatus);
