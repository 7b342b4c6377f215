import type { Provenance } from '../../companies/profile';
import { ADDRESS_COLUMNS, PREVIOUS_NAME_COLUMNS, SIC_COLUMNS } from '../companies-house-bulk';
import { ADDRESS_COLUMNS as CRO_ADDRESS_COLUMNS } from '../cro-companies';
import { STREAM_COLUMNS } from '../facts-as-of';
import type { SnapshotFacts } from '../snapshot-facts';

/** The columns each block's rule reads, per register file, by their published names. */
export type FactColumns = Readonly<Record<SnapshotFacts['source'], readonly string[]>>;

/**
 * A block's provenance: the register facts its rule read, empty ones as null (except the former-name
 * slots, listed only when filled: most companies have none of the ten) and any facts kept from
 * earlier snapshots or taken from other blocks.
 */
export function provenanceOf(
  facts: SnapshotFacts,
  asOf: string,
  rule: string,
  columns: FactColumns,
  extra: Readonly<Record<string, string | null>> = {},
): Provenance {
  const read = facts.published.pick(columns[facts.source]);
  for (const name in extra) read[name] = extra[name] ?? null;
  return { source: facts.via ?? facts.source, asOf, rule, facts: read };
}

const ADDRESS_GB = ADDRESS_COLUMNS;
const ADDRESS_IE = CRO_ADDRESS_COLUMNS;
const SIC_GB = SIC_COLUMNS;
const PREVIOUS_NAMES_GB = PREVIOUS_NAME_COLUMNS.flatMap((columns) => [columns.changedOn, columns.name]);

/** What each kind of event is seen in: a change of these between two snapshots. */
export const EVENT_COLUMNS = {
  registered_office_changed: { 'companies-house-basic-company-data': ADDRESS_GB, 'cro-companies': ADDRESS_IE },
  name_changed: { 'companies-house-basic-company-data': ['CompanyName'], 'cro-companies': ['company_name'] },
  accounting_reference_date_changed: {
    'companies-house-basic-company-data': ['Accounts.AccountRefDay', 'Accounts.AccountRefMonth'],
    'cro-companies': [],
  },
  sic_codes_changed: { 'companies-house-basic-company-data': SIC_GB, 'cro-companies': ['nace_v2_code'] },
  charge_registered: { 'companies-house-basic-company-data': ['Mortgages.NumMortCharges'], 'cro-companies': [] },
  charge_satisfied: {
    'companies-house-basic-company-data': ['Mortgages.NumMortSatisfied', 'Mortgages.NumMortPartSatisfied'],
    'cro-companies': [],
  },
  // What only the Streaming API tells: the GB columns Bureau fills from it (docs/profile.md, "Live changes").
  director_appointed: { 'companies-house-basic-company-data': [STREAM_COLUMNS.officerAppointed], 'cro-companies': [] },
  director_resigned: { 'companies-house-basic-company-data': [STREAM_COLUMNS.officerResigned], 'cro-companies': [] },
  psc_changed: { 'companies-house-basic-company-data': [STREAM_COLUMNS.psc], 'cro-companies': [] },
  insolvency_case: { 'companies-house-basic-company-data': [STREAM_COLUMNS.insolvency], 'cro-companies': [] },
} as const satisfies Readonly<Record<string, FactColumns>>;

/**
 * Event kinds whose facts only the stream gives: each of those facts is the latest news of its
 * kind (the applier writes it only when the register newly tells something), so a new value is an
 * event, the first one included.
 */
export const STREAM_EVENT_KINDS: ReadonlySet<string> = new Set([
  'director_appointed',
  'director_resigned',
  'psc_changed',
  'insolvency_case',
]);

/** What the stream tells the conditions and summaries: the latest strike-off notice, the open insolvency cases, the latest charge news. */
const STREAM_CONDITIONS_GB = [STREAM_COLUMNS.gazette, STREAM_COLUMNS.insolvencyOpen, STREAM_COLUMNS.chargeNews];

const STATUS_GB = ['CompanyStatus'];
const STATUS_IE = ['company_status', 'company_status_date'];
const ACCOUNTS_DUE_GB = ['Accounts.NextDueDate', 'Accounts.LastMadeUpDate'];
const STATEMENT_GB = ['ConfStmtNextDueDate', 'ConfStmtLastMadeUpDate', 'Returns.NextDueDate', 'Returns.LastMadeUpDate'];
const FILING_IE = ['nard', 'last_ar_date', 'last_accounts_date'];

export const BLOCK_COLUMNS = {
  overview: {
    'companies-house-basic-company-data': [
      'CompanyCategory',
      'IncorporationDate',
      'DissolutionDate',
      ...SIC_GB,
      ...ADDRESS_GB,
      'Accounts.AccountCategory',
      'Mortgages.NumMortOutstanding',
      ...PREVIOUS_NAMES_GB,
    ],
    'cro-companies': ['company_type', 'company_reg_date', 'comp_dissolved_date', 'nace_v2_code', ...ADDRESS_IE],
  },
  tradingStatus: {
    'companies-house-basic-company-data': [...STATUS_GB, 'IncorporationDate', 'DissolutionDate', 'Accounts.AccountCategory', ...SIC_GB],
    'cro-companies': STATUS_IE,
  },
  filingBehaviour: {
    'companies-house-basic-company-data': [
      ...STATUS_GB,
      ...ACCOUNTS_DUE_GB,
      ...STATEMENT_GB,
      STREAM_COLUMNS.lateFilings,
      STREAM_COLUMNS.accountsFiledOn,
      STREAM_COLUMNS.accountsFiledMadeUpTo,
    ],
    'cro-companies': [...STATUS_IE, ...FILING_IE],
  },
  riskOfFailure: {
    'companies-house-basic-company-data': [
      ...STATUS_GB,
      'IncorporationDate',
      'Accounts.NextDueDate',
      'ConfStmtNextDueDate',
      'Accounts.AccountCategory',
      STREAM_COLUMNS.insolvencyOpen,
    ],
    'cro-companies': [...STATUS_IE, 'company_reg_date', 'nard'],
  },
  creditCapacity: {
    'companies-house-basic-company-data': ['Accounts.AccountCategory', ...STATUS_GB],
    'cro-companies': ['company_status'],
  },
  earlySignals: {
    'companies-house-basic-company-data': [
      ...STATUS_GB,
      'DissolutionDate',
      'Accounts.NextDueDate',
      'ConfStmtNextDueDate',
      'Returns.NextDueDate',
      ...new Set(Object.values(EVENT_COLUMNS).flatMap((columns) => columns['companies-house-basic-company-data'])),
      STREAM_COLUMNS.charges,
      ...STREAM_CONDITIONS_GB,
    ],
    'cro-companies': [
      ...STATUS_IE,
      'comp_dissolved_date',
      'nard',
      ...new Set(Object.values(EVENT_COLUMNS).flatMap((columns) => columns['cro-companies'])),
    ],
  },
} as const satisfies Readonly<Record<string, FactColumns>>;
