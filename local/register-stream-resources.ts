import type { Random } from '../demo/random';
import { laterOf, referenceDate, statementDue } from './register-calendar';
import type { StreamEventBody } from './register-stream-emulator';

/**
 * What the demo holds of each company it tells of, and the resources the Companies House streams
 * publish about it, in the shapes the register uses: the company profile, a filing, an appointment,
 * a person with significant control, a charge, the company's insolvency cases.
 */

export interface DemoStreamCompany {
  readonly number: string;
  readonly name: string;
  readonly type: string;
  readonly createdOn: string;
  readonly sicCodes: readonly string[];
  readonly office: Record<string, string>;
}

export interface Period {
  /** The day the period ends: an accounting reference date. */
  readonly end: string;
  readonly due: string;
  /** When the company will deliver its accounts for it: mostly before the deadline, now and then after. */
  readonly deliverOn: string;
}

export interface Statement {
  readonly madeUpTo: string;
  readonly deliverOn: string;
}

export interface Officer {
  readonly id: string;
  readonly name: string;
  readonly role: string;
  readonly appointedOn: string;
  resignedOn?: string;
  address: Record<string, string>;
}

export interface Charge {
  readonly id: string;
  readonly number: number;
  readonly createdOn: string;
  readonly lender: string;
  readonly floating: boolean;
  satisfiedOn?: string;
}

export interface InsolvencyCase {
  readonly number: number;
  readonly type: string;
  readonly dates: Array<{ type: string; date: string }>;
  readonly practitioner: string;
  endedOn?: string;
}

export interface Fate {
  readonly type: 'creditors-voluntary-liquidation' | 'members-voluntary-liquidation' | 'in-administration';
  /** Not before this day. */
  readonly from: string;
}

/** What the register holds of one company, as far as the demo tells it: the facts every event must agree with. */
export interface CompanyState {
  readonly company: DemoStreamCompany;
  readonly random: Random;
  status: 'active' | 'liquidation' | 'administration' | 'dissolved';
  /** The day a first Gazette notice proposed striking the company off, while the proposal stands. */
  proposedOn?: string;
  dissolvedOn?: string;
  office: Record<string, string>;
  movedOn?: string;
  accountsType: string;
  lastAccounts?: { madeUpTo: string; type: string };
  period: Period;
  firstPeriod: boolean;
  lastStatement?: string;
  statement: Statement;
  officers: Officer[];
  backfilled: number;
  charges: Charge[];
  cases: InsolvencyCase[];
  fate?: Fate;
  pscs: Array<{ id: string; name: string; notifiedOn: string; ceasedOn?: string; nature: string }>;
  pscStatement: boolean;
  disqualification: boolean;
  exemption: boolean;
  capitalOn?: string;
  /** Filings that may yet be withdrawn as made in error, as published. */
  withdrawable: StreamEventBody[];
  /** The last profile published, and its day: the stream repeats a profile only while it still holds. */
  lastProfile?: StreamEventBody;
  lastProfileOn?: string;
  etag: number;
}

export const jurisdictionOf = (number: string) =>
  /^S[CLO]/.test(number) ? 'scotland' : /^N[ICL]/.test(number) ? 'northern-ireland' : 'england-wales';

export const accountsOverdue = (state: CompanyState, today: string) => state.period.due < today;
export const statementOverdue = (state: CompanyState, today: string) => statementDue(state.statement.madeUpTo) < today;

/** The register's etag changes whenever the resource does. */
export function nextEtag(state: CompanyState): string {
  state.etag += 1;
  return `${state.etag.toString(16).padStart(8, '0')}${state.company.number}`;
}

export function profileResource(state: CompanyState, fieldsChanged: readonly string[], today: string): StreamEventBody {
  const { company } = state;
  return {
    resource_kind: 'company-profile',
    resource_uri: `/company/${company.number}`,
    resource_id: company.number,
    data: {
      company_name: company.name,
      company_number: company.number,
      company_status: state.status,
      ...(state.proposedOn ? { company_status_detail: 'active-proposal-to-strike-off' } : {}),
      type: company.type,
      jurisdiction: jurisdictionOf(company.number),
      date_of_creation: company.createdOn,
      ...(state.dissolvedOn ? { date_of_cessation: state.dissolvedOn } : {}),
      registered_office_address: state.office,
      sic_codes: company.sicCodes,
      accounts: {
        accounting_reference_date: referenceDate(state.period.end),
        ...(state.lastAccounts
          ? {
              last_accounts: {
                made_up_to: state.lastAccounts.madeUpTo,
                period_end_on: state.lastAccounts.madeUpTo,
                type: state.lastAccounts.type,
              },
            }
          : {}),
        next_made_up_to: state.period.end,
        next_due: state.period.due,
        overdue: accountsOverdue(state, today),
      },
      confirmation_statement: {
        ...(state.lastStatement ? { last_made_up_to: state.lastStatement } : {}),
        next_made_up_to: state.statement.madeUpTo,
        next_due: statementDue(state.statement.madeUpTo),
        overdue: statementOverdue(state, today),
      },
      has_charges: state.charges.length > 0,
      has_insolvency_history: state.cases.length > 0,
      can_file: state.status === 'active',
      etag: fieldsChanged.length > 0 ? nextEtag(state) : `${state.etag.toString(16).padStart(8, '0')}${company.number}`,
      links: { self: `/company/${company.number}`, filing_history: `/company/${company.number}/filing-history` },
    },
    ...(fieldsChanged.length > 0 ? { event: { fields_changed: fieldsChanged } } : {}),
  };
}

export function filingResource(
  state: CompanyState,
  id: string,
  category: string,
  type: string,
  description: string,
  values: Record<string, unknown>,
  today: string,
): StreamEventBody {
  return {
    resource_kind: 'filing-history',
    resource_uri: `/company/${state.company.number}/filing-history/${id}`,
    resource_id: id,
    data: {
      transaction_id: id,
      category,
      type,
      description,
      ...(Object.keys(values).length > 0 ? { description_values: values } : {}),
      // When the register processed it.
      date: today,
      barcode: `X${id.slice(0, 7).toUpperCase()}`,
      links: { self: `/company/${state.company.number}/filing-history/${id}` },
    },
  };
}

export function officerResource(state: CompanyState, officer: Officer): StreamEventBody {
  return {
    resource_kind: 'company-officers',
    resource_uri: `/company/${state.company.number}/appointments/${officer.id}`,
    resource_id: officer.id,
    data: {
      name: officer.name,
      officer_role: officer.role,
      appointed_on: officer.appointedOn,
      ...(officer.resignedOn ? { resigned_on: officer.resignedOn } : {}),
      nationality: 'British',
      country_of_residence: 'England',
      occupation: 'Director',
      address: officer.address,
      links: { self: `/company/${state.company.number}/appointments/${officer.id}` },
    },
  };
}

export function pscResource(state: CompanyState, psc: CompanyState['pscs'][number]): StreamEventBody {
  return {
    resource_kind: 'company-psc-individual',
    resource_uri: `/company/${state.company.number}/persons-with-significant-control/individual/${psc.id}`,
    resource_id: psc.id,
    data: {
      kind: 'individual-person-with-significant-control',
      name: psc.name,
      notified_on: psc.notifiedOn,
      ...(psc.ceasedOn ? { ceased_on: psc.ceasedOn } : {}),
      natures_of_control: [psc.nature],
      nationality: 'British',
      country_of_residence: 'England',
      etag: nextEtag(state),
      links: { self: `/company/${state.company.number}/persons-with-significant-control/individual/${psc.id}` },
    },
  };
}

export function chargeResource(state: CompanyState, charge: Charge, today: string): StreamEventBody {
  return {
    resource_kind: 'company-charges',
    resource_uri: `/company/${state.company.number}/charges/${charge.id}`,
    resource_id: charge.id,
    data: {
      charge_code: `${state.company.number}${String(charge.number).padStart(4, '0')}`,
      charge_number: charge.number,
      classification: { type: 'charge-description', description: 'A registered charge' },
      created_on: charge.createdOn,
      delivered_on: laterOf(charge.createdOn, charge.satisfiedOn ? charge.createdOn : today),
      status: charge.satisfiedOn ? 'fully-satisfied' : 'outstanding',
      ...(charge.satisfiedOn ? { satisfied_on: charge.satisfiedOn } : {}),
      persons_entitled: [{ name: charge.lender }],
      particulars: { type: 'brief-description', contains_floating_charge: charge.floating, contains_negative_pledge: true },
      etag: nextEtag(state),
      links: { self: `/company/${state.company.number}/charges/${charge.id}` },
    },
  };
}

export function insolvencyResource(state: CompanyState): StreamEventBody {
  const { number } = state.company;
  return {
    resource_kind: 'company-insolvency',
    resource_uri: `/company/${number}/insolvency`,
    resource_id: number,
    data: {
      etag: nextEtag(state),
      status: state.status,
      cases: state.cases.map((found) => ({
        type: found.type,
        number: String(found.number),
        dates: found.dates,
        practitioners: [
          {
            name: found.practitioner,
            role: found.type === 'in-administration' ? 'practitioner' : 'appointed-liquidator',
            appointed_on: found.dates[found.dates.length - 1]?.date,
            address: { address_line_1: found.practitioner },
          },
        ],
        links: { charge: `/company/${number}/insolvency` },
      })),
    },
  };
}
