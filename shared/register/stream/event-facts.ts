import { InvalidCompanyNumberError, parseCompanyNumber } from '../../companies/numbers';
import { firstLineOf } from '../addresses';
import { ADDRESS_COLUMNS, SIC_COLUMNS } from '../companies-house-bulk';
import { type Notice, noticeMeaning } from '../gazette-notices';
import { CASE_END_DATES, CASE_START_DATES } from '../insolvency-cases';
import { cleanText, type TextKind } from '../register-text';
import type { CaseTold, TermTold } from './known-resources';
import { companyNumberOf, type StreamEvent } from './stream-events';

/**
 * A Streaming API event as the facts the bulk import reads: the bulk file's own columns, with the
 * values spelt as the bulk file spells them (DD/MM/YYYY dates, its status and category labels), so
 * the same rules derive the same blocks whichever source told us. What the bulk file has no column
 * for (officers, persons with significant control, gazette notices, insolvency cases, delivery
 * dates) goes into `stream.` columns the rules read beside them. Nothing here reads storage: what
 * depends on the stored facts (charge counts, whether a filing was late) and what depends on what
 * the stream told before (whether an appointment, a person with significant control, a case or a
 * notice is news) is carried as what the resource says, by its identity, for the applier to work
 * out against them.
 */

export interface ChargeChange {
  /** The charge's number within the company, or its resource id where the register gives none. */
  readonly id: string;
  readonly status: ChargeStatus;
  /** When it was created or delivered: a charge created before a snapshot is already in its counts. */
  readonly createdOn: string | null;
  /** When it was satisfied, or when the register said so. */
  readonly satisfiedOn: string | null;
  /** Whom it secures (`persons_entitled[].name`), the first named; null where the register names none. */
  readonly lender?: string | null;
  /** What it charges: a floating charge over all the company's property, a floating charge, or neither. */
  readonly floating?: 'all' | 'some' | 'none';
}

export type ChargeStatus = 'outstanding' | 'part-satisfied' | 'satisfied';

export interface FilingDelivered {
  readonly kind: 'accounts' | 'statement';
  /** ISO date of delivery. */
  readonly filedOn: string;
  /** ISO date the accounts or statement are made up to, when the filing says. */
  readonly madeUpTo: string | null;
}

export interface EventFacts {
  readonly companyNumber: string;
  /** When the facts were true: the event's published_at as `YYYY-MM-DDTHH:MM:SS`. */
  readonly asOf: string;
  /** Columns the event sets, by the bulk file's names (and `stream.` names), as the bulk file spells them. */
  readonly columns: Readonly<Record<string, string | null>>;
  readonly charge?: ChargeChange;
  readonly filing?: FilingDelivered;
  /** A board appointment (director, LLP member): its id, appointed_on and resigned_on. */
  readonly appointment?: TermTold;
  /** A person with significant control or registrable beneficial owner: its id, notified_on and ceased_on. */
  readonly control?: TermTold;
  /** Every insolvency case of the company, as its insolvency resource states them. */
  readonly cases?: readonly CaseTold[];
  /** A strike-off or dissolution notice of the filing history. */
  readonly notice?: Notice;
  /** The profile's flags, read for completeness; no rule reads them, since the counts and statuses say more. */
  readonly flags?: { readonly hasCharges?: boolean; readonly hasInsolvencyHistory?: boolean };
}

export type EventFactsResult =
  | { readonly ok: true; readonly facts: EventFacts }
  /** The event is well formed but carries nothing Bureau reads (a deletion, a filing of another category). */
  | { readonly ok: false; readonly reason: 'no-facts'; readonly companyNumber?: string }
  | { readonly ok: false; readonly reason: 'malformed' | 'unknown-company-number'; readonly detail: string };

class Malformed extends Error {}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isoDate(value: unknown, field: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || !ISO_DATE.test(value)) throw new Malformed(`${field} ${JSON.stringify(value)} is not a date`);
  return value;
}

/** As the bulk file writes a date. */
const ukDate = (iso: string | null) => (iso === null ? null : `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`);

/** A text of the resource, cleaned and bounded as every register text is before storage (register-text.ts). */
function text(value: unknown, field: string, kind: TextKind = 'text'): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw new Malformed(`${field} is not text`);
  return cleanText(value, kind) || null;
}

function record(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new Malformed(`${field} is not an object`);
  return value as Record<string, unknown>;
}

/** The API's status codes as the bulk file labels them; a detail says what the code alone does not. */
const STATUS_LABELS: Readonly<Record<string, string>> = {
  active: 'Active',
  dissolved: 'Dissolved',
  liquidation: 'Liquidation',
  receivership: 'Receiver Action',
  administration: 'In Administration',
  'voluntary-arrangement': 'Voluntary Arrangement',
  'converted-closed': 'Converted / Closed',
  'insolvency-proceedings': 'Insolvency Proceedings',
  removed: 'Removed',
  closed: 'Closed',
  open: 'Open',
  registered: 'Registered',
};

const STRIKE_OFF_PROPOSED = 'active-proposal-to-strike-off';

/** The API's company types as the bulk file's CompanyCategory labels; a type missing here leaves the category as stored. */
const CATEGORY_LABELS: Readonly<Record<string, string>> = {
  ltd: 'Private Limited Company',
  plc: 'Public Limited Company',
  'private-limited-guarant-nsc': 'PRI/LTD BY GUAR/NSC (Private, limited by guarantee, no share capital)',
  'private-limited-guarant-nsc-limited-exemption':
    "PRI/LBG/NSC (Private, Limited by guarantee, no share capital, use of 'Limited' exemption)",
  'private-limited-shares-section-30-exemption': 'PRIV LTD SECT. 30 (Private limited company, section 30 of the Companies Act)',
  llp: 'Limited Liability Partnership',
  'limited-partnership': 'Limited Partnership',
  'scottish-partnership': 'Scottish Partnership',
  'private-unlimited': 'Private Unlimited Company',
  'old-public-company': 'Old Public Company',
  'registered-overseas-entity': 'Overseas Entity',
  'charitable-incorporated-organisation': 'Charitable Incorporated Organisation',
  'scottish-charitable-incorporated-organisation': 'Scottish Charitable Incorporated Organisation',
  'investment-company-with-variable-capital': 'Investment Company with Variable Capital',
  'royal-charter': 'Royal Charter Company',
  'industrial-and-provident-society': 'Industrial and Provident Society',
  'registered-society-non-jurisdictional': 'Registered Society',
  'further-education-or-sixth-form-college-corporation': 'Further Education and Sixth Form College Corps',
  'european-public-limited-liability-company-se': 'European Public Limited-Liability Company (SE)',
  'protected-cell-company': 'Protected Cell Company',
  'unregistered-company': 'Unregistered Company',
  other: 'Other company type',
};

/** The bulk file's account categories are the API's last_accounts.type in capitals with spaces. */
const accountCategory = (type: string | null) =>
  type === null ? null : type === 'no-accounts-type-available' ? 'ACCOUNTS TYPE NOT AVAILABLE' : type.replace(/-/g, ' ').toUpperCase();

function companyProfileColumns(data: Record<string, unknown>): {
  columns: Record<string, string | null>;
  flags: NonNullable<EventFacts['flags']>;
} {
  const columns: Record<string, string | null> = {};
  const name = text(data.company_name, 'company_name', 'name');
  if (name !== null) columns.CompanyName = name;

  const status = text(data.company_status, 'company_status');
  if (status !== null) {
    // A proposal to strike off is a detail of an active company: the status stays "active".
    const detail = text(data.company_status_detail, 'company_status_detail');
    const proposed = status === STRIKE_OFF_PROPOSED || (status === 'active' && detail === STRIKE_OFF_PROPOSED);
    columns.CompanyStatus = proposed ? 'Active - Proposal to Strike off' : (STATUS_LABELS[status] ?? status);
    columns.DissolutionDate = ukDate(isoDate(data.date_of_cessation, 'date_of_cessation'));
  }
  const type = text(data.type, 'type');
  // The bulk file files a CIC under its own category, whatever its form.
  const category =
    data.subtype === 'community-interest-company' ? 'Community Interest Company' : type === null ? undefined : CATEGORY_LABELS[type];
  if (category !== undefined) columns.CompanyCategory = category;
  if (data.date_of_creation !== undefined) columns.IncorporationDate = ukDate(isoDate(data.date_of_creation, 'date_of_creation'));

  const address = record(data.registered_office_address, 'registered_office_address');
  if (address) {
    const parts: Record<(typeof ADDRESS_COLUMNS)[number], unknown> = {
      'RegAddress.CareOf': address.care_of,
      'RegAddress.POBox': address.po_box,
      // The bulk file's first line holds the premises and the API's first line together.
      'RegAddress.AddressLine1': firstLineOf(
        text(address.premises, 'registered_office_address.premises', 'addressLine'),
        text(address.address_line_1, 'registered_office_address.address_line_1', 'addressLine'),
      ),
      'RegAddress.AddressLine2': address.address_line_2,
      'RegAddress.PostTown': address.locality,
      'RegAddress.County': address.region,
      'RegAddress.Country': address.country,
      'RegAddress.PostCode': address.postal_code,
    };
    for (const column of ADDRESS_COLUMNS) columns[column] = text(parts[column], `registered_office_address.${column}`, 'addressLine');
  }

  if (data.sic_codes !== undefined) {
    if (!Array.isArray(data.sic_codes) || data.sic_codes.some((code) => typeof code !== 'string' || !/^\d{4,5}$/.test(code))) {
      throw new Malformed('sic_codes is not a list of SIC codes');
    }
    // The bulk file spells a slot "code - description"; the rules read the code, and the API sends no description.
    SIC_COLUMNS.forEach((column, slot) => {
      const code = (data.sic_codes as string[])[slot];
      columns[column] = code === undefined ? null : code.padStart(5, '0');
    });
  }

  const accounts = record(data.accounts, 'accounts');
  if (accounts) {
    const last = record(accounts.last_accounts, 'accounts.last_accounts');
    columns['Accounts.NextDueDate'] = ukDate(isoDate(accounts.next_due, 'accounts.next_due'));
    columns['Accounts.LastMadeUpDate'] = ukDate(isoDate(last?.made_up_to, 'accounts.last_accounts.made_up_to'));
    const category = accountCategory(text(last?.type, 'accounts.last_accounts.type'));
    // "null" is how the API says no accounts yet; the bulk file says "NO ACCOUNTS FILED".
    columns['Accounts.AccountCategory'] = category === null || category === 'NULL' ? 'NO ACCOUNTS FILED' : category;
    const reference = record(accounts.accounting_reference_date, 'accounts.accounting_reference_date');
    if (reference) {
      const day = text(reference.day, 'accounts.accounting_reference_date.day');
      const month = text(reference.month, 'accounts.accounting_reference_date.month');
      if ((day !== null && !/^\d{1,2}$/.test(day)) || (month !== null && !/^\d{1,2}$/.test(month))) {
        throw new Malformed('accounts.accounting_reference_date is not a day and a month');
      }
      columns['Accounts.AccountRefDay'] = day === null ? null : String(Number(day));
      columns['Accounts.AccountRefMonth'] = month === null ? null : String(Number(month));
    }
  }
  const statement = record(data.confirmation_statement, 'confirmation_statement');
  if (statement) {
    columns.ConfStmtNextDueDate = ukDate(isoDate(statement.next_due, 'confirmation_statement.next_due'));
    columns.ConfStmtLastMadeUpDate = ukDate(isoDate(statement.last_made_up_to, 'confirmation_statement.last_made_up_to'));
  }

  if (data.previous_company_names !== undefined) {
    if (!Array.isArray(data.previous_company_names)) throw new Malformed('previous_company_names is not a list');
    // Most recent first, as the bulk file's slots are.
    const names = (data.previous_company_names as unknown[])
      .map((entry, index) => {
        const previous = record(entry, `previous_company_names[${index}]`) ?? {};
        return {
          name: text(previous.name, 'previous_company_names.name', 'name'),
          on: isoDate(previous.ceased_on, 'previous_company_names.ceased_on'),
        };
      })
      .filter((entry) => entry.name !== null)
      .sort((a, b) => ((a.on ?? '') < (b.on ?? '') ? 1 : (a.on ?? '') > (b.on ?? '') ? -1 : 0));
    for (let slot = 0; slot < 10; slot++) {
      const entry = names[slot];
      columns[`PreviousName_${slot + 1}.CompanyName`] = entry?.name ?? null;
      columns[`PreviousName_${slot + 1}.CONDATE`] = ukDate(entry?.on ?? null);
    }
  }

  const flags: { hasCharges?: boolean; hasInsolvencyHistory?: boolean } = {};
  if (typeof data.has_charges === 'boolean') flags.hasCharges = data.has_charges;
  if (typeof data.has_insolvency_history === 'boolean') flags.hasInsolvencyHistory = data.has_insolvency_history;
  return { columns, flags };
}

function filingFacts(data: Record<string, unknown>): Pick<EventFacts, 'columns' | 'filing' | 'notice'> | undefined {
  const category = text(data.category, 'category');
  const filedOn = isoDate(data.date, 'date');
  if (filedOn === null) throw new Malformed('date is absent');
  const values = record(data.description_values, 'description_values');
  const madeUpTo = isoDate(values?.made_up_date, 'description_values.made_up_date');
  if (category === 'accounts') return { columns: {}, filing: { kind: 'accounts', filedOn, madeUpTo } };
  if (category === 'confirmation-statement' || category === 'annual-return') {
    return { columns: {}, filing: { kind: 'statement', filedOn, madeUpTo } };
  }
  // Read by the form's type whatever its category: a company's withdrawal of its application (DS02) is filed under "dissolution".
  const type = text(data.type, 'type');
  if (type !== null && noticeMeaning(type) !== undefined) return { columns: {}, notice: { type: type.toUpperCase(), date: filedOn } };
  return undefined;
}

const CHARGE_STATUSES: Readonly<Record<string, ChargeStatus>> = {
  outstanding: 'outstanding',
  'part-satisfied': 'part-satisfied',
  satisfied: 'satisfied',
  'fully-satisfied': 'satisfied',
};

function chargeFacts(data: Record<string, unknown>, resourceId: string): ChargeChange {
  const status = text(data.status, 'status');
  const known = status === null ? undefined : CHARGE_STATUSES[status];
  if (!known) throw new Malformed(`status ${JSON.stringify(data.status)} is not a charge status`);
  const number = data.charge_number;
  const particulars = record(data.particulars, 'particulars');
  const floating =
    particulars?.floating_charge_covers_all === true ? 'all' : particulars?.contains_floating_charge === true ? 'some' : 'none';
  return {
    id: typeof number === 'number' && Number.isSafeInteger(number) ? String(number) : cleanText(resourceId.slice(-10)).replace(/ /g, '_'),
    status: known,
    createdOn: isoDate(data.delivered_on, 'delivered_on') ?? isoDate(data.created_on, 'created_on'),
    satisfiedOn: isoDate(data.satisfied_on, 'satisfied_on'),
    lender: lenderOf(data.persons_entitled, data.more_than_four_persons_entitled === true),
    floating,
  };
}

/** The first person entitled, "and others" when the register names more. */
function lenderOf(value: unknown, moreThanFour: boolean): string | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw new Malformed('persons_entitled is not a list');
  const names = value.flatMap((entry, index) => {
    const name = text(record(entry, `persons_entitled[${index}]`)?.name, `persons_entitled[${index}].name`);
    return name === null ? [] : [name];
  });
  const first = names[0];
  if (first === undefined) return null;
  // Bounded: the lender is told in a fact and a signal's summary.
  return `${first.slice(0, 160)}${names.length > 1 || moreThanFour ? ' and others' : ''}`;
}

/** The earlier of two ISO dates, either possibly absent. */
const earlier = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a < b ? a : b);

/** Bounded: a case type is told in facts and in the memory of cases. */
const CASE_TYPE = /^[a-z][a-z-]{0,63}$/;

function insolvencyFacts(data: Record<string, unknown>): CaseTold[] {
  if (!Array.isArray(data.cases)) throw new Malformed('cases is not a list');
  return (data.cases as unknown[]).map((entry, index) => {
    const found = record(entry, `cases[${index}]`) ?? {};
    const type = text(found.type, `cases[${index}].type`);
    if (type === null) throw new Malformed(`cases[${index}].type is absent`);
    if (!CASE_TYPE.test(type)) throw new Malformed(`cases[${index}].type ${JSON.stringify(type)} is not a case type`);
    let startedOn: string | null = null;
    let endedOn: string | null = null;
    let anyDate: string | null = null;
    if (found.dates !== undefined) {
      if (!Array.isArray(found.dates)) throw new Malformed(`cases[${index}].dates is not a list`);
      for (const date of found.dates as unknown[]) {
        const dated = record(date, `cases[${index}].dates`) ?? {};
        const on = isoDate(dated.date, `cases[${index}].dates.date`);
        const kind = typeof dated.type === 'string' ? dated.type : '';
        if (CASE_START_DATES.has(kind)) startedOn = earlier(startedOn, on);
        else if (CASE_END_DATES.has(kind)) endedOn = earlier(endedOn, on);
        anyDate = earlier(anyDate, on);
      }
    }
    // A case with no date the list knows as its start began no later than its first date.
    startedOn ??= anyDate;
    const number = typeof found.number === 'number' || typeof found.number === 'string' ? String(found.number).trim() : '';
    const key = /^[A-Za-z0-9]{1,8}$/.test(number) ? number : `${type}-${startedOn ?? index}`;
    return { key, type, startedOn, endedOn };
  });
}

const BOARD_ROLES = /director|member/i;

/** The last part of the resource's own link: the id the register gives the appointment or notification. */
function idOf(data: Record<string, unknown>, event: StreamEvent): string {
  const links = record(data.links, 'links');
  const self = typeof links?.self === 'string' ? links.self : event.resourceUri;
  const last = self.split('/').filter(Boolean).pop();
  // Kept in the memory of resources, whose entries are separated by spaces.
  return cleanText(last && last.length <= 200 ? last : event.resourceId.slice(0, 200)).replace(/ /g, '_');
}

function officerFacts(data: Record<string, unknown>, event: StreamEvent): TermTold | undefined {
  const role = text(data.officer_role, 'officer_role');
  if (role === null) throw new Malformed('officer_role is absent');
  if (!BOARD_ROLES.test(role)) return undefined;
  const from = isoDate(data.appointed_on, 'appointed_on');
  const to = isoDate(data.resigned_on, 'resigned_on');
  return from === null && to === null ? undefined : { id: idOf(data, event), from, to };
}

function pscFacts(data: Record<string, unknown>, event: StreamEvent): TermTold | undefined {
  const from = isoDate(data.notified_on, 'notified_on');
  const to = isoDate(data.ceased_on, 'ceased_on');
  return from === null && to === null ? undefined : { id: idOf(data, event), from, to };
}

const hasIdentityFacts = (found: Omit<EventFacts, 'companyNumber' | 'asOf'>) =>
  Boolean(found.charge || found.filing || found.appointment || found.control || found.cases || found.notice);

/** `published_at` as `YYYY-MM-DDTHH:MM:SS`, so two instants compare as text; undefined when it is no instant. */
export function asOfInstant(publishedAt: string): string | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?))?/.exec(publishedAt);
  if (!match?.[1]) return undefined;
  const time = match[2] ?? '00:00:00';
  return `${match[1]}T${time.length === 5 ? `${time}:00` : time}`;
}

/** One event's facts, or why it has none. Never throws: a malformed resource is named, not raised. */
export function eventFacts(event: StreamEvent): EventFactsResult {
  const raw = companyNumberOf(event.resourceUri);
  let companyNumber: string;
  try {
    if (raw === undefined) throw new InvalidCompanyNumberError(event.resourceUri, 'GB');
    companyNumber = parseCompanyNumber(raw, 'GB').companyNumber;
  } catch (error) {
    if (error instanceof InvalidCompanyNumberError)
      return { ok: false, reason: 'unknown-company-number', detail: `${event.resourceUri} names no GB company number` };
    throw error;
  }
  const asOf = asOfInstant(event.publishedAt);
  if (asOf === undefined) return { ok: false, reason: 'malformed', detail: `published_at ${event.publishedAt} is not an instant` };
  // A deleted resource is one the register withdrew (a filing made in error): what it said before no longer holds, and nothing new does.
  if (event.type === 'deleted') return { ok: false, reason: 'no-facts', companyNumber };
  try {
    const data = event.data;
    let found: Omit<EventFacts, 'companyNumber' | 'asOf'> | undefined;
    switch (event.stream) {
      case 'companies': {
        const { columns, flags } = companyProfileColumns(data);
        found = { columns, flags };
        break;
      }
      case 'filings':
        found = filingFacts(data);
        break;
      case 'charges':
        found = { columns: {}, charge: chargeFacts(data, event.resourceId) };
        break;
      case 'insolvency-cases':
        found = { columns: {}, cases: insolvencyFacts(data) };
        break;
      case 'officers': {
        const appointment = officerFacts(data, event);
        found = appointment && { columns: {}, appointment };
        break;
      }
      case 'persons-with-significant-control': {
        const control = pscFacts(data, event);
        found = control && { columns: {}, control };
        break;
      }
      default:
        found = undefined;
    }
    if (!found || (Object.keys(found.columns).length === 0 && !hasIdentityFacts(found))) {
      return { ok: false, reason: 'no-facts', companyNumber };
    }
    return { ok: true, facts: { companyNumber, asOf, ...found } };
  } catch (error) {
    if (error instanceof Malformed) return { ok: false, reason: 'malformed', detail: error.message };
    throw error;
  }
}
