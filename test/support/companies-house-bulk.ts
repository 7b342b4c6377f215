/** The Companies House bulk file's header, as published: leading spaces included. */
export const COMPANIES_HOUSE_BULK_HEADER = [
  'CompanyName',
  ' CompanyNumber',
  'RegAddress.CareOf',
  'RegAddress.POBox',
  'RegAddress.AddressLine1',
  ' RegAddress.AddressLine2',
  'RegAddress.PostTown',
  'RegAddress.County',
  'RegAddress.Country',
  'RegAddress.PostCode',
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
  'SICCode.SicText_1',
  'SICCode.SicText_2',
  'SICCode.SicText_3',
  'SICCode.SicText_4',
  'LimitedPartnerships.NumGenPartners',
  'LimitedPartnerships.NumLimPartners',
  'URI',
  ...Array.from({ length: 10 }, (_, slot) => [`PreviousName_${slot + 1}.CONDATE`, ` PreviousName_${slot + 1}.CompanyName`]).flat(),
  'ConfStmtNextDueDate',
  ' ConfStmtLastMadeUpDate',
].join(',');

export interface BulkCompany {
  readonly number: string;
  readonly name: string;
  readonly status?: string;
  /** Put in RegAddress.AddressLine1 as given: a line break makes the record span two lines. */
  readonly addressLine1?: string;
}

const quoted = (field: string) => `"${field.replaceAll('"', '""')}"`;

/** One row in the bulk layout: every field quoted, dates DD/MM/YYYY. */
export function bulkRow(company: BulkCompany): string {
  const fields = [
    company.name,
    company.number,
    '',
    '',
    company.addressLine1 ?? '1 HIGH STREET',
    '',
    'LONDON',
    '',
    'UNITED KINGDOM',
    'EC1A 1BB',
    'Private Limited Company',
    company.status ?? 'Active',
    'United Kingdom',
    '',
    '01/03/2015',
    '31',
    '3',
    '31/12/2024',
    '31/03/2023',
    'MICRO ENTITY',
    '',
    '',
    '0',
    '0',
    '0',
    '0',
    '62020 - Information technology consultancy activities',
    '',
    '',
    '',
    '0',
    '0',
    `http://business.data.gov.uk/id/company/${company.number}`,
    ...Array.from({ length: 20 }, () => ''),
    '15/03/2025',
    '01/03/2024',
  ];
  return fields.map(quoted).join(',');
}

export function bulkFile(rows: readonly string[]): string {
  return `${[COMPANIES_HOUSE_BULK_HEADER, ...rows].join('\n')}\n`;
}
