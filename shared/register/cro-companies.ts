import type { TradingStatus } from '../companies/profile';
import { addDays } from './calendar';
import { isoDate } from './dates';
import { labelMap } from './labels';
import { companyNameOf, companyNumberOf, type PublishedRow, RowError, requiredField, type SnapshotFacts } from './snapshot-facts';

/**
 * The Companies Registration Office's companies dataset (open data, CC BY 4.0): every company on
 * the Irish register, live or not, with ISO dates. Statuses carry stray spaces ("Normal ").
 */

export const CRO_COLUMNS: readonly string[] = [
  'company_num',
  'company_name',
  'company_status_code',
  'company_status',
  'company_type_code',
  'company_type',
  'company_reg_date',
  'last_ar_date',
  'company_address_1',
  'company_address_2',
  'company_address_3',
  'company_address_4',
  'comp_dissolved_date',
  'nard',
  'last_accounts_date',
  'company_status_date',
  'nace_v2_code',
  'eircode',
  'company_name_eff_date',
  'company_type_eff_date',
  'princ_object_code',
];

export const ADDRESS_COLUMNS = ['company_address_1', 'company_address_2', 'company_address_3', 'company_address_4', 'eircode'];

/** Companies Act 2014 s. 343: the annual return, with the accounts annexed, is due within 56 days of its date. */
export const ANNUAL_RETURN_FILING_DAYS = 56;

const STATUSES = labelMap<TradingStatus['status']>([
  ['Normal', 'active'],
  ['Strike Off Listed', 'active'],
  ['Liquidation', 'liquidation'],
  ['Receivership', 'receivership'],
  ['Examinership', 'administration'],
  ['Dissolved', 'dissolved'],
  ['Deregistered', 'removed'],
  ['Converted', 'converted'],
  ['Closed', 'closed'],
]);

/** CRO type labels, by the legal form they name; the Companies Act 2014 forms and their older names. */
const TYPE_RULES: readonly (readonly [RegExp, string])[] = [
  [/designated activity/i, 'dac'],
  [/guarantee/i, 'clg'],
  [/unlimited/i, 'ulc'],
  [/public limited|\bplc\b/i, 'plc'],
  [/private.*limited|limited by shares|\bltd\b/i, 'ltd'],
];

function companyType(label: string): string | undefined {
  return TYPE_RULES.find(([pattern]) => pattern.test(label))?.[1];
}

/** NACE Rev. 2 as published, "4741.0" or "111.0" (01.11): four digits. */
function naceCode(value: string): string[] {
  const text = value.trim();
  if (text === '' || /^0+(\.0+)?$/.test(text)) return [];
  const match = /^(\d{1,4})(?:\.0+)?$/.exec(text);
  if (!match?.[1]) throw new RowError(`nace_v2_code "${text}" is not a NACE Rev. 2 code`);
  return [match[1].padStart(4, '0')];
}

/** One CRO row, by column name, as the facts of a snapshot. */
export function croFacts(row: PublishedRow): SnapshotFacts {
  const name = companyNameOf(row, 'company_name');
  const companyNumber = companyNumberOf(row, 'company_num', 'IE');
  const unknownValues: { field: string; value: string }[] = [];
  const registerStatus = requiredField(row, 'company_status');
  const status = STATUSES(registerStatus) ?? 'other';
  if (status === 'other') unknownValues.push({ field: 'company_status', value: registerStatus });
  const typeLabel = row.get('company_type') ?? '';
  const type = companyType(typeLabel);
  if (!type) unknownValues.push({ field: 'company_type', value: typeLabel });

  const nard = isoDate('nard', row.get('nard'));
  const ended = status === 'dissolved' || status === 'removed' || status === 'closed' || status === 'converted';
  const statementDue = nard && !ended ? addDays(nard, ANNUAL_RETURN_FILING_DAYS) : null;
  const address: string[] = [];
  for (const column of ADDRESS_COLUMNS) {
    const part = row.get(column);
    if (part !== null) address.push(part.replace(/\s+/g, ' '));
  }

  return {
    source: 'cro-companies',
    jurisdiction: 'IE',
    companyNumber,
    name,
    companyType: type ?? 'other',
    companySubtype: null,
    status: { status, registerStatus, since: isoDate('company_status_date', row.get('company_status_date')) },
    incorporatedOn: isoDate('company_reg_date', row.get('company_reg_date')),
    dissolvedOn: isoDate('comp_dissolved_date', row.get('comp_dissolved_date')),
    sicCodes: naceCode(row.get('nace_v2_code') ?? ''),
    registeredOffice: address.length === 0 ? null : address.join(', '),
    // Irish accounts are annexed to the annual return: they fall due with it.
    accounts: {
      category: null,
      nextDueOn: statementDue,
      lastMadeUpTo: isoDate('last_accounts_date', row.get('last_accounts_date')),
      referenceDate: null,
    },
    statement: { nextDueOn: statementDue, lastMadeUpTo: isoDate('last_ar_date', row.get('last_ar_date')) },
    charges: null,
    previousNames: [],
    nameSince: isoDate('company_name_eff_date', row.get('company_name_eff_date')),
    published: row,
    unknownValues,
  };
}
