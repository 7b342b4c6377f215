import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { type Random, seededRandom } from '../demo/random';
import type { StreamName } from '../shared/register/stream/stream-events';
import type { RegisterStreamEmulator, StreamEventBody } from './register-stream-emulator';

/**
 * Plausible register activity for the demo's GB companies, in the shapes the Companies House
 * streams use: a company's profile as its accounts, confirmation statements, address and status
 * move on, the filings that go with them, charges registered and satisfied, insolvency cases,
 * officers and PSCs coming and going. Demo data: invented events about real company numbers.
 */

export interface DemoStreamCompany {
  readonly number: string;
  readonly name: string;
  readonly type: string;
  readonly createdOn: string;
  readonly sicCodes: readonly string[];
  readonly office: Record<string, string>;
}

const TYPES: Readonly<Record<string, string>> = {
  'private limited company': 'ltd',
  'private limited by guarantee without share capital': 'private-limited-guarant-nsc',
  "private limited company by guarantee without share capital, use of 'limited' exemption": 'private-limited-guarant-nsc-limited-exemption',
  'limited liability partnership': 'llp',
  'public limited company': 'plc',
  'private unlimited company': 'private-unlimited',
};

const POSTCODE = /\s([A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2})\s*(England|Wales|Scotland|Northern Ireland|United Kingdom)?\s*$/;

/** A one-line published address in the parts the register's profile uses. */
export function officeOf(text: string): Record<string, string> {
  const match = POSTCODE.exec(text.trim());
  if (!match) return { address_line_1: text.trim() };
  const before = text.trim().slice(0, match.index).trim();
  const words = before.split(/\s+/);
  const locality = words.length > 1 ? (words.pop() as string) : '';
  return {
    address_line_1: words.join(' '),
    ...(locality ? { locality } : {}),
    postal_code: match[1] as string,
    ...(match[2] ? { country: match[2] } : {}),
  };
}

/** The live GB companies of the demo sample with a type the streams describe, first rows first. */
export function readDemoStreamCompanies(csvFile: string, limit = 20_000): DemoStreamCompany[] {
  const rows = parse(readFileSync(csvFile), {
    columns: true,
    skip_empty_lines: true,
    relax_column_count: true,
    relax_quotes: true,
  }) as Record<string, string>[];
  const companies: DemoStreamCompany[] = [];
  for (const row of rows) {
    if (companies.length >= limit) break;
    const type = TYPES[(row.company_type ?? '').trim().toLowerCase()];
    if (!type || (row.company_status ?? '').trim().toLowerCase() !== 'active' || !row.company_number) continue;
    companies.push({
      number: row.company_number.trim(),
      name: (row.company_name ?? '').trim(),
      type,
      createdOn: (row.incorporation_date ?? '').trim() || '2024-01-01',
      sicCodes: (row.nature_of_business ?? '').trim().split(/\s+/).filter(Boolean),
      office: officeOf(row.registered_office_address ?? ''),
    });
  }
  return companies;
}

interface CompanyState {
  readonly company: DemoStreamCompany;
  name: string;
  status: string;
  office: Record<string, string>;
  accountsLastMadeUpTo?: string;
  accountsNextMadeUpTo: string;
  confirmationLast?: string;
  confirmationNext: string;
  charges: Array<{ id: string; number: number; createdOn: string; status: string; satisfiedOn?: string }>;
  insolvency: boolean;
  officers: Array<{ id: string; name: string; role: string; appointedOn: string; resignedOn?: string }>;
  pscs: Array<{ id: string; name: string; notifiedOn: string; ceasedOn?: string }>;
  etag: number;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const addMonths = (date: string, months: number) => {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.toISOString().slice(0, 10);
};
const addDays = (date: string, days: number) => day(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000);
const monthEnd = (date: string) => {
  const d = new Date(`${date}T00:00:00Z`);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).toISOString().slice(0, 10);
};

const STREETS = ['High Street', 'Station Road', 'Church Lane', 'Mill Road', 'Victoria Street', 'King Street', 'Park Avenue', 'Queens Road'];
const TOWNS: ReadonlyArray<readonly [string, string]> = [
  ['London', 'EC1V 2NX'],
  ['Manchester', 'M1 3HU'],
  ['Leeds', 'LS1 4AP'],
  ['Bristol', 'BS1 5TR'],
  ['Birmingham', 'B3 3HN'],
  ['Cardiff', 'CF10 1EP'],
  ['Edinburgh', 'EH2 4AD'],
  ['Norwich', 'NR2 1NE'],
];
const FORENAMES = ['Amelia', 'Oliver', 'Priya', 'James', 'Sophie', 'Mohammed', 'Grace', 'Thomas', 'Chloe', 'Daniel', 'Aisha', 'Harry'];
const SURNAMES = ['Smith', 'Patel', 'Jones', 'Williams', 'Khan', 'Brown', 'Taylor', 'Evans', 'Walker', 'Wright', 'Hughes', 'Clarke'];
const LENDERS = ['Barclays Bank UK PLC', 'Lloyds Bank PLC', 'HSBC UK Bank PLC', 'National Westminster Bank PLC', 'Funding Circle Ltd'];
const PRACTITIONERS = ['Begbies Traynor (Central) LLP', 'Interpath Ltd', 'FRP Advisory Trading Ltd', 'Leonard Curtis Ltd'];

const STREAM_WEIGHTS: ReadonlyArray<readonly [Step, number]> = [
  ['profile', 30],
  ['accounts', 14],
  ['confirmation', 10],
  ['officer', 14],
  ['charge', 9],
  ['psc', 6],
  ['psc-statement', 3],
  ['insolvency', 2],
  ['disqualification', 2],
  ['exemption', 1],
];
type Step =
  | 'profile'
  | 'accounts'
  | 'confirmation'
  | 'officer'
  | 'charge'
  | 'psc'
  | 'psc-statement'
  | 'insolvency'
  | 'disqualification'
  | 'exemption';

export interface PublishedStep {
  readonly stream: StreamName;
  readonly timepoint: number;
}

/**
 * Publishes demo activity into an emulator: each step is one thing happening at the register
 * (accounts filed: the filing and the profile that now shows them), so one to three events.
 * About half the steps concern the first 25 companies of the sample, so a demo that watches
 * a few of them sees changes within seconds.
 */
export class DemoRegisterActivity {
  private readonly random: Random;
  private readonly states = new Map<string, CompanyState>();
  private lastProfile?: StreamEventBody;
  private sequence = 0;

  constructor(
    private readonly emulator: Pick<RegisterStreamEmulator, 'publish'>,
    private readonly companies: readonly DemoStreamCompany[],
    private readonly now: () => number = Date.now,
    seed = `register-stream-${Date.now()}`,
  ) {
    if (companies.length === 0) throw new Error('Demo register activity needs at least one company');
    this.random = seededRandom(seed);
  }

  step(): PublishedStep[] {
    const state = this.pick();
    const today = day(this.now());
    const out: PublishedStep[] = [];
    const publish = (stream: StreamName, body: StreamEventBody) => out.push({ stream, timepoint: this.emulator.publish(stream, body) });
    const profileChanged = (fields: string[]) => publish('companies', this.profile(state, fields));
    const kind = this.random.weighted(STREAM_WEIGHTS);
    switch (kind) {
      case 'profile': {
        const roll = this.random.next();
        if (roll < 0.1 && this.lastProfile) {
          // The companies stream repeats itself now and then.
          publish('companies', this.lastProfile);
        } else if (roll < 0.25) {
          // And sends a profile no field of which changed.
          profileChanged([]);
        } else if (roll < 0.65) {
          const [town, postcode] = this.random.pick(TOWNS);
          state.office = {
            address_line_1: `${this.random.int(1, 240)} ${this.random.pick(STREETS)}`,
            locality: town,
            postal_code: postcode,
            country: 'England',
          };
          publish(
            'filings',
            this.filing(state, 'address', 'AD01', 'change-registered-office-address-company-with-date-old-address-new-address', {}),
          );
          profileChanged(['registered_office_address']);
        } else {
          state.status = state.status === 'active' ? 'active-proposal-to-strike-off' : 'active';
          if (state.status === 'active-proposal-to-strike-off') {
            publish('filings', this.filing(state, 'gazette', 'GAZ1', 'gazette-notice-compulsory', {}));
          }
          profileChanged(['company_status']);
        }
        break;
      }
      case 'accounts': {
        state.accountsLastMadeUpTo = state.accountsNextMadeUpTo;
        state.accountsNextMadeUpTo = addMonths(state.accountsNextMadeUpTo, 12);
        const accountsType = this.random.pick(['micro-entity', 'total-exemption-full', 'small', 'dormant']);
        publish(
          'filings',
          this.filing(state, 'accounts', 'AA', `accounts-with-accounts-type-${accountsType}`, { made_up_date: state.accountsLastMadeUpTo }),
        );
        profileChanged(['accounts.last_accounts.made_up_to', 'accounts.next_due', 'accounts.next_made_up_to']);
        break;
      }
      case 'confirmation': {
        state.confirmationLast = state.confirmationNext;
        state.confirmationNext = addMonths(state.confirmationNext, 12);
        publish(
          'filings',
          this.filing(state, 'confirmation-statement', 'CS01', 'confirmation-statement-with-no-updates', {
            made_up_date: state.confirmationLast,
          }),
        );
        profileChanged(['confirmation_statement.last_made_up_to', 'confirmation_statement.next_due']);
        break;
      }
      case 'officer': {
        const serving = state.officers.filter((officer) => !officer.resignedOn);
        if (serving.length > 1 && this.random.chance(0.35)) {
          const leaving = this.random.pick(serving);
          leaving.resignedOn = today;
          publish('filings', this.filing(state, 'officers', 'TM01', 'termination-director-company-with-name-termination-date', {}));
          publish('officers', this.officer(state, leaving));
        } else {
          const officer = {
            id: this.id(),
            name: this.personName(),
            role: this.random.chance(0.85) ? 'director' : 'secretary',
            appointedOn: today,
          };
          state.officers.push(officer);
          publish('filings', this.filing(state, 'officers', 'AP01', 'appoint-person-director-company-with-name-date', {}));
          publish('officers', this.officer(state, officer));
        }
        break;
      }
      case 'charge': {
        const outstanding = state.charges.filter((charge) => charge.status === 'outstanding');
        if (outstanding.length > 0 && this.random.chance(0.4)) {
          const charge = this.random.pick(outstanding);
          charge.status = 'fully-satisfied';
          charge.satisfiedOn = today;
          publish('filings', this.filing(state, 'mortgage', 'MR04', 'mortgage-satisfy-charge-full', {}));
          publish('charges', this.charge(state, charge));
        } else {
          const charge = { id: this.id(), number: state.charges.length + 1, createdOn: today, status: 'outstanding' };
          state.charges.push(charge);
          publish(
            'filings',
            this.filing(state, 'mortgage', 'MR01', 'mortgage-create-with-deed-with-charge-number-charge-creation-date', {}),
          );
          publish('charges', this.charge(state, charge));
        }
        profileChanged(['has_charges']);
        break;
      }
      case 'insolvency': {
        state.insolvency = true;
        state.status = 'liquidation';
        publish('insolvency-cases', {
          resource_kind: 'company-insolvency',
          resource_uri: `/company/${state.company.number}/insolvency`,
          resource_id: state.company.number,
          data: {
            etag: this.etag(state),
            cases: [
              {
                type: 'creditors-voluntary-liquidation',
                number: '1',
                dates: [{ type: 'wound-up-on', date: today }],
                practitioners: [
                  { name: this.personName(), role: 'proposed-liquidator', address: { address_line_1: this.random.pick(PRACTITIONERS) } },
                ],
                links: { charge: `/company/${state.company.number}/insolvency` },
              },
            ],
          },
        });
        publish('filings', this.filing(state, 'insolvency', 'LIQ02', 'liquidation-voluntary-statement-of-affairs', {}));
        profileChanged(['company_status', 'has_insolvency_history']);
        break;
      }
      case 'psc': {
        const current = state.pscs.filter((psc) => !psc.ceasedOn);
        let psc: CompanyState['pscs'][number];
        if (current.length > 0 && this.random.chance(0.3)) {
          psc = this.random.pick(current);
          psc.ceasedOn = today;
        } else {
          psc = { id: this.id(), name: this.personName(), notifiedOn: today };
        }
        if (!state.pscs.includes(psc)) state.pscs.push(psc);
        publish('persons-with-significant-control', {
          resource_kind: 'company-psc-individual',
          resource_uri: `/company/${state.company.number}/persons-with-significant-control/individual/${psc.id}`,
          resource_id: psc.id,
          data: {
            kind: 'individual-person-with-significant-control',
            name: psc.name,
            notified_on: psc.notifiedOn,
            ...(psc.ceasedOn ? { ceased_on: psc.ceasedOn } : {}),
            natures_of_control: [this.random.pick(['ownership-of-shares-25-to-50-percent', 'ownership-of-shares-75-to-100-percent'])],
            nationality: 'British',
            country_of_residence: 'England',
            etag: this.etag(state),
            links: { self: `/company/${state.company.number}/persons-with-significant-control/individual/${psc.id}` },
          },
        });
        break;
      }
      case 'psc-statement': {
        const id = this.id();
        publish('persons-with-significant-control-statements', {
          resource_kind: 'company-psc-statement',
          resource_uri: `/company/${state.company.number}/persons-with-significant-control-statements/${id}`,
          resource_id: id,
          data: {
            kind: 'persons-with-significant-control-statement',
            statement: 'no-individual-or-entity-with-signficant-control',
            notified_on: today,
            etag: this.etag(state),
            links: { self: `/company/${state.company.number}/persons-with-significant-control-statements/${id}` },
          },
        });
        break;
      }
      case 'disqualification': {
        const id = this.id();
        const [forename, surname] = [this.random.pick(FORENAMES), this.random.pick(SURNAMES)];
        publish('disqualified-officers', {
          resource_kind: 'disqualified-officer-natural',
          resource_uri: `/disqualified-officers/natural/${id}`,
          resource_id: id,
          data: {
            forename,
            surname,
            kind: 'natural-disqualification',
            disqualifications: [
              {
                disqualified_from: today,
                disqualified_until: addMonths(today, 12 * this.random.int(2, 8)),
                disqualification_type: 'undertaking',
                company_names: [state.name],
                reason: { description_identifier: 'misconduct', act: 'company-directors-disqualification-act-1986', section: '7' },
              },
            ],
            etag: this.etag(state),
            links: { self: `/disqualified-officers/natural/${id}` },
          },
        });
        break;
      }
      case 'exemption': {
        publish('company-exemptions', {
          resource_kind: 'company-exemptions',
          resource_uri: `/company/${state.company.number}/exemptions`,
          resource_id: state.company.number,
          data: {
            kind: 'exemptions',
            exemptions: {
              psc_exempt_as_trading_on_regulated_market: {
                exemption_type: 'psc-exempt-as-trading-on-regulated-market',
                items: [{ exempt_from: today }],
              },
            },
            etag: this.etag(state),
            links: { self: `/company/${state.company.number}/exemptions` },
          },
        });
        break;
      }
    }
    return out;
  }

  private pick(): CompanyState {
    const hot = Math.min(25, this.companies.length);
    const index = this.random.chance(0.5) ? this.random.int(0, hot - 1) : this.random.int(0, this.companies.length - 1);
    const company = this.companies[index] as DemoStreamCompany;
    let state = this.states.get(company.number);
    if (!state) {
      // A first accounting period ends at the end of the month a year after incorporation.
      const firstEnd = monthEnd(addMonths(company.createdOn, 12));
      let accountsNext = firstEnd;
      let accountsLast: string | undefined;
      const today = day(this.now());
      while (addMonths(accountsNext, 9) < today) {
        accountsLast = accountsNext;
        accountsNext = addMonths(accountsNext, 12);
      }
      let confirmationNext = addMonths(company.createdOn, 12);
      let confirmationLast: string | undefined;
      while (confirmationNext < today) {
        confirmationLast = confirmationNext;
        confirmationNext = addMonths(confirmationNext, 12);
      }
      state = {
        company,
        name: company.name,
        status: 'active',
        office: company.office,
        accountsNextMadeUpTo: accountsNext,
        ...(accountsLast ? { accountsLastMadeUpTo: accountsLast } : {}),
        confirmationNext,
        ...(confirmationLast ? { confirmationLast } : {}),
        charges: [],
        insolvency: false,
        officers: [{ id: this.id(), name: this.personName(), role: 'director', appointedOn: company.createdOn }],
        pscs: [],
        etag: 0,
      };
      this.states.set(company.number, state);
    }
    return state;
  }

  private profile(state: CompanyState, fieldsChanged: string[]): StreamEventBody {
    const { company } = state;
    const accountsDue = addMonths(state.accountsNextMadeUpTo, 9);
    const today = day(this.now());
    const body: StreamEventBody = {
      resource_kind: 'company-profile',
      resource_uri: `/company/${company.number}`,
      resource_id: company.number,
      data: {
        company_name: state.name,
        company_number: company.number,
        company_status: state.status,
        type: company.type,
        jurisdiction: 'england-wales',
        date_of_creation: company.createdOn,
        registered_office_address: state.office,
        sic_codes: company.sicCodes,
        accounts: {
          accounting_reference_date: { day: state.accountsNextMadeUpTo.slice(8, 10), month: state.accountsNextMadeUpTo.slice(5, 7) },
          ...(state.accountsLastMadeUpTo ? { last_accounts: { made_up_to: state.accountsLastMadeUpTo, type: 'micro-entity' } } : {}),
          next_made_up_to: state.accountsNextMadeUpTo,
          next_due: accountsDue,
          overdue: accountsDue < today,
        },
        confirmation_statement: {
          ...(state.confirmationLast ? { last_made_up_to: state.confirmationLast } : {}),
          next_made_up_to: state.confirmationNext,
          // A confirmation statement is due 14 days after the date it is made up to.
          next_due: addDays(state.confirmationNext, 14),
          overdue: state.confirmationNext < today,
        },
        has_charges: state.charges.length > 0,
        has_insolvency_history: state.insolvency,
        can_file: state.status === 'active',
        etag: fieldsChanged.length > 0 ? this.etag(state) : `${state.etag.toString(16).padStart(8, '0')}${company.number}`,
        links: { self: `/company/${company.number}`, filing_history: `/company/${company.number}/filing-history` },
      },
      ...(fieldsChanged.length > 0 ? { event: { fields_changed: fieldsChanged } } : {}),
    };
    this.lastProfile = body;
    return body;
  }

  private filing(
    state: CompanyState,
    category: string,
    type: string,
    description: string,
    values: Record<string, string>,
  ): StreamEventBody {
    const id = this.id();
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
        date: day(this.now()),
        barcode: `X${id.slice(0, 7).toUpperCase()}`,
        links: { self: `/company/${state.company.number}/filing-history/${id}` },
      },
    };
  }

  private officer(state: CompanyState, officer: CompanyState['officers'][number]): StreamEventBody {
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
        address: state.office,
        links: { self: `/company/${state.company.number}/appointments/${officer.id}` },
      },
    };
  }

  private charge(state: CompanyState, charge: CompanyState['charges'][number]): StreamEventBody {
    return {
      resource_kind: 'company-charges',
      resource_uri: `/company/${state.company.number}/charges/${charge.id}`,
      resource_id: charge.id,
      data: {
        charge_code: `${state.company.number}${String(charge.number).padStart(4, '0')}`,
        charge_number: charge.number,
        classification: { type: 'charge-description', description: 'A registered charge' },
        created_on: charge.createdOn,
        delivered_on: charge.createdOn,
        status: charge.status,
        ...(charge.satisfiedOn ? { satisfied_on: charge.satisfiedOn } : {}),
        persons_entitled: [{ name: this.random.pick(LENDERS) }],
        particulars: { type: 'brief-description', contains_floating_charge: true, contains_negative_pledge: true },
        etag: this.etag(state),
        links: { self: `/company/${state.company.number}/charges/${charge.id}` },
      },
    };
  }

  private personName(): string {
    return `${this.random.pick(SURNAMES).toUpperCase()}, ${this.random.pick(FORENAMES)}`;
  }

  private id(): string {
    this.sequence += 1;
    return `${Math.floor(this.random.next() * 0xffffffff)
      .toString(36)
      .padStart(7, '0')}${this.sequence.toString(36)}`;
  }

  private etag(state: CompanyState): string {
    state.etag += 1;
    return `${state.etag.toString(16).padStart(8, '0')}${state.company.number}`;
  }
}

/**
 * About `eventsPerSecond` events a second in all: a step that published three events is paid for
 * by the ticks after it. Stops with the returned function.
 */
export function publishDemoActivity(
  activity: DemoRegisterActivity,
  eventsPerSecond: number,
  onError: (error: unknown) => void,
): () => void {
  if (eventsPerSecond <= 0) return () => {};
  let owed = 0;
  const timer = setInterval(
    () => {
      owed = Math.min(owed + 1, 10);
      if (owed <= 0) return;
      try {
        owed -= activity.step().length;
      } catch (error) {
        onError(error);
      }
    },
    Math.max(5, 1000 / eventsPerSecond),
  );
  timer.unref?.();
  return () => clearInterval(timer);
}
