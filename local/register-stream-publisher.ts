import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { type Random, seededRandom } from '../demo/random';
import type { StreamName } from '../shared/register/stream/stream-events';
import {
  accountsDue,
  addDays,
  addMonths,
  dayOf,
  daysBetween,
  firstPeriodEnd,
  laterOf,
  nextPeriodEnd,
  statementDue,
} from './register-calendar';
import type { RegisterStreamEmulator, StreamEventBody } from './register-stream-emulator';
import {
  accountsOverdue,
  type Charge,
  type CompanyState,
  chargeResource,
  type DemoStreamCompany,
  type Fate,
  filingResource,
  insolvencyResource,
  jurisdictionOf,
  nextEtag,
  type Officer,
  officerResource,
  type Period,
  profileResource,
  pscResource,
  type Statement,
  statementOverdue,
} from './register-stream-resources';

export type { DemoStreamCompany } from './register-stream-resources';

/**
 * Plausible register activity for the demo's GB companies, in the shapes the Companies House
 * streams use: a company's profile as its accounts, confirmation statements, address and status
 * move on, the filings that go with them, charges registered and satisfied, insolvency cases,
 * officers and PSCs coming and going. Demo data: invented events about real company numbers.
 */

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

const ACCOUNT_TYPES: ReadonlyArray<readonly [string, number]> = [
  ['micro-entity', 50],
  ['total-exemption-full', 20],
  ['unaudited-abridged', 12],
  ['small', 8],
  ['dormant', 10],
];
const PREMISES = ['Unit 4', 'Suite 2', 'Flat 3', 'Office 12', 'The Old Mill', 'Ground Floor', 'Unit 17', 'First Floor'];
const STREETS = ['High Street', 'Station Road', 'Church Lane', 'Mill Road', 'Victoria Street', 'King Street', 'Park Avenue', 'Queens Road'];
const ESTATES = ['Harbour Park', 'Riverside Business Centre', 'Enterprise Way', 'Kingsway Business Park', 'Canal Wharf'];
/** A registered office moves only within the company's jurisdiction. */
const TOWNS: Readonly<Record<string, ReadonlyArray<readonly [string, string, string]>>> = {
  'england-wales': [
    ['London', 'EC1V 2NX', 'England'],
    ['Manchester', 'M1 3HU', 'England'],
    ['Leeds', 'LS1 4AP', 'England'],
    ['Bristol', 'BS1 5TR', 'England'],
    ['Birmingham', 'B3 3HN', 'England'],
    ['Cardiff', 'CF10 1EP', 'Wales'],
    ['Norwich', 'NR2 1NE', 'England'],
  ],
  scotland: [
    ['Edinburgh', 'EH2 4AD', 'Scotland'],
    ['Glasgow', 'G2 1DY', 'Scotland'],
  ],
  'northern-ireland': [['Belfast', 'BT1 5GS', 'Northern Ireland']],
};
const NATURES = ['ownership-of-shares-25-to-50-percent', 'ownership-of-shares-75-to-100-percent'];
const FORENAMES = ['Amelia', 'Oliver', 'Priya', 'James', 'Sophie', 'Mohammed', 'Grace', 'Thomas', 'Chloe', 'Daniel', 'Aisha', 'Harry'];
const SURNAMES = ['Smith', 'Patel', 'Jones', 'Williams', 'Khan', 'Brown', 'Taylor', 'Evans', 'Walker', 'Wright', 'Hughes', 'Clarke'];
const LENDERS = ['Barclays Bank UK PLC', 'Lloyds Bank PLC', 'HSBC UK Bank PLC', 'National Westminster Bank PLC', 'Funding Circle Ltd'];
const PRACTITIONERS = ['Begbies Traynor (Central) LLP', 'Interpath Ltd', 'FRP Advisory Trading Ltd', 'Leonard Curtis Ltd'];
const NAME_WORDS = ['Northgate', 'Bluebell', 'Harbourside', 'Kestrel', 'Ashdown', 'Lumen', 'Oakridge', 'Meridian', 'Copperfield', 'Alder'];
const NAME_TRADES = ['Consulting', 'Properties', 'Logistics', 'Digital', 'Builders', 'Care Services', 'Trading', 'Studio', 'Engineering'];
const NEW_SIC_CODES = ['62020', '68209', '70229', '41202', '56101', '96090', '74909', '49410', '86900', '47910'];

type Step =
  | 'profile-repeat'
  | 'profile-unchanged'
  | 'office-resplit'
  | 'office-move'
  | 'accounts'
  | 'confirmation'
  | 'confirmation-early'
  | 'strike-off'
  | 'dissolution'
  | 'officer-appoint'
  | 'officer-resign'
  | 'officer-republish'
  | 'officer-backfill'
  | 'charge-create'
  | 'charge-satisfy'
  | 'psc-notify'
  | 'psc-cease'
  | 'psc-statement'
  | 'insolvency-open'
  | 'insolvency-end'
  | 'capital'
  | 'withdrawal'
  | 'disqualification'
  | 'exemption';

/** A share of steps that tell of a company incorporated that day (the register sees thousands a day). */
const INCORPORATIONS = 0.005;
/** Looked back from the first day told: what the company was due to deliver within it is still to arrive. */
const ARRIVING_DAYS = 30;
const SERVING_AT_MOST = 4;
/** New company numbers: after the sample's, and one more every ten seconds since this instant. */
const NUMBERS_FROM = 16_000_000;
const NUMBERS_SINCE = Date.UTC(2026, 10, 1);

/** Told of what the activity made happen, beside the events it published. */
export interface RegisterActivityObserver {
  /** The company filed accounts made up to this date (its profile event says so once applied). */
  readonly onAccountsFiled?: (companyNumber: string, madeUpTo: string) => void;
}

export interface PublishedStep {
  readonly stream: StreamName;
  readonly timepoint: number;
}

const serving = (state: CompanyState) => state.officers.filter((officer) => !officer.resignedOn);
const openCases = (state: CompanyState) => state.cases.filter((found) => !found.endedOn);
const overdue = (state: CompanyState, today: string) => accountsOverdue(state, today) || statementOverdue(state, today);

/** An appointment, a control or a charge ends a month or more after it began, never on its first day. */
const lasted = (began: string, today: string) => addMonths(began, 1) <= today;

/** The same office with its first line cut elsewhere between premises and street: the same words, not a move. */
function resplit(office: Record<string, string>): Record<string, string> | undefined {
  const { premises, address_line_1: line, ...rest } = office;
  if (premises && line) return { address_line_1: `${premises} ${line}`, ...rest };
  const words = (line ?? '').split(' ');
  if (words.length < 3) return undefined;
  const cut = /^\d+[A-Za-z]?$/.test(words[0] as string) ? 1 : 2;
  return { premises: words.slice(0, cut).join(' '), address_line_1: words.slice(cut).join(' '), ...rest };
}

/**
 * Publishes demo activity into an emulator: each step is one thing happening at the register
 * (accounts filed: the filing and the profile that now shows them), so one to four events. What
 * happens obeys the register's rules against what the demo holds of each company, as of the
 * injected clock's day: nothing dated after its event; accounts only for a period that has ended,
 * most by their deadline; striking off only for a company overdue, settled when it files or
 * dissolved two months on; an appointment, a control or a charge ended a month or more after it
 * began, never on its first day. About half the steps
 * concern the first 25 companies of the sample, so a demo that watches a few of them sees changes
 * within seconds; when a company has nothing new left to tell that day, it is republished as the
 * register republishes (a correspondence address, an office split into other lines).
 */
export class DemoRegisterActivity {
  private readonly random: Random;
  private readonly states = new Map<string, CompanyState>();
  private readonly pool: DemoStreamCompany[];
  private readonly hot: number;
  private nextNumber: number;
  private sequence = 0;

  constructor(
    private readonly emulator: Pick<RegisterStreamEmulator, 'publish'>,
    companies: readonly DemoStreamCompany[],
    private readonly now: () => number = Date.now,
    seed = `register-stream-${Date.now()}`,
    private readonly observer: RegisterActivityObserver = {},
  ) {
    if (companies.length === 0) throw new Error('Demo register activity needs at least one company');
    this.random = seededRandom(seed);
    this.pool = [...companies];
    this.hot = Math.min(25, companies.length);
    const highest = companies.reduce(
      (most, company) => (/^\d{8}$/.test(company.number) ? Math.max(most, Number(company.number)) : most),
      0,
    );
    this.nextNumber = Math.max(NUMBERS_FROM, highest + 1);
  }

  step(): PublishedStep[] {
    const today = dayOf(this.now());
    const out: PublishedStep[] = [];
    const publish = (stream: StreamName, body: StreamEventBody) => out.push({ stream, timepoint: this.emulator.publish(stream, body) });
    if (this.nextNumber < 99_999_999 && this.random.chance(INCORPORATIONS)) {
      this.incorporate(today, publish);
      return out;
    }
    const state = this.pick(today);
    const kind = this.random.weighted(this.choices(state, today));
    this.tell(state, kind, today, publish);
    return out;
  }

  /** What may happen to the company today, by weight: a step for which the register's rules leave no room is not offered. */
  private choices(state: CompanyState, today: string): Array<readonly [Step, number]> {
    const choices: Array<readonly [Step, number]> = [['profile-unchanged', 3]];
    if (state.lastProfile && state.lastProfileOn === today) choices.push(['profile-repeat', 2]);
    if (state.status === 'dissolved') return choices;
    if (resplit(state.office)) choices.push(['office-resplit', 2]);
    if (serving(state).length > 0) choices.push(['officer-republish', 12]);
    const cases = openCases(state);
    if (cases.some((found) => addMonths(found.dates[found.dates.length - 1]?.date ?? today, 1) <= today))
      choices.push(['insolvency-end', 6]);
    if (state.charges.some((charge) => !charge.satisfiedOn && lasted(charge.createdOn, today))) choices.push(['charge-satisfy', 3]);
    if (state.withdrawable.length > 0) choices.push(['withdrawal', 2]);
    if (state.status !== 'active') return choices;
    // A company files what it owes on a day after any proposal to strike it off: the Gazette tells one thing a day.
    if (state.proposedOn !== today) {
      if (state.period.end < today && state.period.deliverOn <= today) choices.push(['accounts', 20]);
      if (state.statement.madeUpTo <= today && state.statement.deliverOn <= today) choices.push(['confirmation', 16]);
      // A statement may be delivered before its date, made up to the day it is delivered; the next is a year on.
      else if (!state.lastStatement || state.lastStatement <= addMonths(today, -6)) choices.push(['confirmation-early', 2]);
    }
    if (state.proposedOn) {
      if (state.proposedOn <= addMonths(today, -2) && overdue(state, today)) choices.push(['dissolution', 10]);
      return choices;
    }
    if (overdue(state, today)) choices.push(['strike-off', 6]);
    if (state.fate && state.fate.from <= today && cases.length === 0) choices.push(['insolvency-open', 6]);
    if (!state.movedOn || state.movedOn <= addMonths(today, -6)) choices.push(['office-move', 4]);
    const directors = serving(state);
    if (directors.length < SERVING_AT_MOST) choices.push(['officer-appoint', 3]);
    if (directors.length > 1 && directors.some((officer) => lasted(officer.appointedOn, today))) choices.push(['officer-resign', 3]);
    if (state.backfilled < 2 && state.company.createdOn <= addMonths(today, -12)) choices.push(['officer-backfill', 2]);
    const outstanding = state.charges.filter((charge) => !charge.satisfiedOn).length;
    if (outstanding < 3 && state.charges.length < 6) choices.push(['charge-create', 3]);
    const current = state.pscs.filter((psc) => !psc.ceasedOn);
    if (current.length < 3) choices.push(['psc-notify', 2]);
    if (current.length > 1 && current.some((psc) => lasted(psc.notifiedOn, today))) choices.push(['psc-cease', 2]);
    if (!state.pscStatement) choices.push(['psc-statement', 0.5]);
    if (!state.capitalOn || state.capitalOn <= addMonths(today, -1)) choices.push(['capital', 2]);
    if (!state.disqualification) choices.push(['disqualification', 0.3]);
    if (!state.exemption && state.company.type === 'plc') choices.push(['exemption', 2]);
    return choices;
  }

  private tell(state: CompanyState, kind: Step, today: string, publish: (stream: StreamName, body: StreamEventBody) => void): void {
    const { random } = this;
    const profileChanged = (fields: string[]) => publish('companies', this.profile(state, fields, today));
    const file = (category: string, type: string, description: string, values: Record<string, unknown> = {}) => {
      const body = this.filing(state, category, type, description, values, today);
      publish('filings', body);
      return body;
    };
    switch (kind) {
      case 'profile-repeat':
        // The companies stream repeats itself now and then.
        publish('companies', state.lastProfile as StreamEventBody);
        return;
      case 'profile-unchanged':
        // And sends a profile no field of which changed.
        profileChanged([]);
        return;
      case 'office-resplit':
        state.office = resplit(state.office) as Record<string, string>;
        profileChanged(['registered_office_address.premises', 'registered_office_address.address_line_1']);
        return;
      case 'office-move': {
        const old = state.office;
        const [town, postcode, country] = this.town(state);
        state.office = random.chance(0.5)
          ? { premises: random.pick(PREMISES), address_line_1: random.pick(ESTATES), locality: town, postal_code: postcode, country }
          : { premises: String(random.int(1, 240)), address_line_1: random.pick(STREETS), locality: town, postal_code: postcode, country };
        state.movedOn = today;
        file('address', 'AD01', 'change-registered-office-address-company-with-date-old-address-new-address', {
          change_date: today,
          old_address: Object.values(old).join(', '),
          new_address: Object.values(state.office).join(', '),
        });
        profileChanged(['registered_office_address']);
        return;
      }
      case 'accounts': {
        const { period } = state;
        state.lastAccounts = { madeUpTo: period.end, type: state.accountsType };
        state.firstPeriod = false;
        state.period = this.period(state, nextPeriodEnd(period.end), false);
        file('accounts', 'AA', `accounts-with-accounts-type-${state.accountsType}`, { made_up_date: period.end });
        const settled = this.settleProposal(state, today, file);
        profileChanged([
          'accounts.last_accounts.made_up_to',
          'accounts.next_due',
          'accounts.next_made_up_to',
          'accounts.overdue',
          ...(settled ? ['company_status_detail'] : []),
        ]);
        this.observer.onAccountsFiled?.(state.company.number, period.end);
        return;
      }
      case 'confirmation':
      case 'confirmation-early': {
        const madeUpTo = kind === 'confirmation' ? state.statement.madeUpTo : today;
        state.lastStatement = madeUpTo;
        state.statement = this.statement(state, addMonths(madeUpTo, 12));
        file(
          'confirmation-statement',
          'CS01',
          random.chance(0.8) ? 'confirmation-statement-with-no-updates' : 'confirmation-statement-with-updates',
          { made_up_date: madeUpTo },
        );
        const settled = this.settleProposal(state, today, file);
        profileChanged([
          'confirmation_statement.last_made_up_to',
          'confirmation_statement.next_due',
          'confirmation_statement.next_made_up_to',
          ...(settled ? ['company_status_detail'] : []),
        ]);
        return;
      }
      case 'strike-off':
        state.proposedOn = today;
        file('gazette', 'GAZ1', 'gazette-notice-compulsory');
        profileChanged(['company_status_detail']);
        return;
      case 'dissolution':
        state.proposedOn = undefined;
        state.status = 'dissolved';
        state.dissolvedOn = today;
        file('gazette', 'GAZ2', 'gazette-dissolved-compulsory');
        profileChanged(['company_status', 'company_status_detail', 'date_of_cessation']);
        return;
      case 'officer-appoint': {
        const officer = this.newOfficer(state, this.recent(state, today, 14));
        file('officers', 'AP01', 'appoint-person-director-company-with-name-date', {
          appointment_date: officer.appointedOn,
          officer_name: officer.name,
        });
        publish('officers', officerResource(state, officer));
        return;
      }
      case 'officer-resign': {
        const leaving = random.pick(serving(state).filter((officer) => lasted(officer.appointedOn, today)));
        leaving.resignedOn = laterOf(addDays(leaving.appointedOn, 1), addDays(today, -random.int(0, 7)));
        file('officers', 'TM01', 'termination-director-company-with-name-termination-date', {
          termination_date: leaving.resignedOn,
          officer_name: leaving.name,
        });
        publish('officers', officerResource(state, leaving));
        return;
      }
      case 'officer-republish': {
        // Mostly what the officers stream carries: the same appointment again, now and then with a new correspondence address.
        const officer = random.pick(serving(state));
        if (random.chance(0.35)) {
          const [town, postcode] = this.town(state);
          officer.address = {
            premises: String(random.int(1, 200)),
            address_line_1: random.pick(STREETS),
            locality: town,
            postal_code: postcode,
          };
          if (random.chance(0.4)) {
            file('officers', 'CH01', 'change-person-director-company-with-change-date', { change_date: today, officer_name: officer.name });
          }
          publish('officers', { ...officerResource(state, officer), event: { fields_changed: ['address'] } });
        } else {
          publish('officers', officerResource(state, officer));
        }
        return;
      }
      case 'officer-backfill': {
        // The register backfills: an appointment of years ago the stream never told of.
        state.backfilled += 1;
        const latest = addMonths(today, -12);
        const appointedOn = addDays(state.company.createdOn, random.int(0, Math.max(0, daysBetween(state.company.createdOn, latest))));
        const officer = this.newOfficer(state, appointedOn);
        const gone = daysBetween(appointedOn, latest);
        if (gone > 60 && random.chance(0.5)) officer.resignedOn = addDays(appointedOn, random.int(30, gone));
        publish('officers', officerResource(state, officer));
        return;
      }
      case 'charge-create': {
        const charge: Charge = {
          id: this.id(),
          number: state.charges.length + 1,
          createdOn: this.recent(state, today, 20),
          lender: random.pick(LENDERS),
          floating: random.chance(0.7),
        };
        state.charges.push(charge);
        file('mortgage', 'MR01', 'mortgage-create-with-deed-with-charge-number-charge-creation-date', {
          charge_number: `${state.company.number}${String(charge.number).padStart(4, '0')}`,
          charge_creation_date: charge.createdOn,
        });
        publish('charges', chargeResource(state, charge, today));
        if (state.charges.length === 1) profileChanged(['has_charges']);
        return;
      }
      case 'charge-satisfy': {
        const charge = random.pick(state.charges.filter((found) => !found.satisfiedOn && lasted(found.createdOn, today)));
        charge.satisfiedOn = laterOf(addDays(charge.createdOn, 1), addDays(today, -random.int(0, 5)));
        file('mortgage', 'MR04', 'mortgage-satisfy-charge-full', {
          charge_number: `${state.company.number}${String(charge.number).padStart(4, '0')}`,
        });
        publish('charges', chargeResource(state, charge, today));
        return;
      }
      case 'psc-notify':
      case 'psc-cease': {
        let psc: CompanyState['pscs'][number];
        if (kind === 'psc-cease') {
          psc = random.pick(state.pscs.filter((found) => !found.ceasedOn && lasted(found.notifiedOn, today)));
          psc.ceasedOn = laterOf(addDays(psc.notifiedOn, 1), addDays(today, -random.int(0, 7)));
        } else {
          psc = { id: this.id(), name: this.personName(), notifiedOn: this.recent(state, today, 14), nature: random.pick(NATURES) };
          state.pscs.push(psc);
        }
        publish('persons-with-significant-control', pscResource(state, psc));
        return;
      }
      case 'psc-statement': {
        state.pscStatement = true;
        const id = this.id();
        publish('persons-with-significant-control-statements', {
          resource_kind: 'company-psc-statement',
          resource_uri: `/company/${state.company.number}/persons-with-significant-control-statements/${id}`,
          resource_id: id,
          data: {
            kind: 'persons-with-significant-control-statement',
            statement: 'psc-details-not-confirmed',
            notified_on: today,
            etag: nextEtag(state),
            links: { self: `/company/${state.company.number}/persons-with-significant-control-statements/${id}` },
          },
        });
        return;
      }
      case 'insolvency-open': {
        const fate = state.fate as Fate;
        state.fate = undefined;
        this.openCase(state, fate.type, today, file);
        publish('insolvency-cases', insolvencyResource(state));
        profileChanged(['company_status', 'has_insolvency_history']);
        return;
      }
      case 'insolvency-end': {
        const found = random.pick(
          openCases(state).filter((open) => addMonths(open.dates[open.dates.length - 1]?.date as string, 1) <= today),
        );
        found.endedOn = today;
        if (found.type === 'in-administration') {
          // An administration that ends with the company moved into creditors' voluntary liquidation.
          found.dates.push({ type: 'administration-ended-on', date: today });
          this.openCase(state, 'creditors-voluntary-liquidation', today, file);
          publish('insolvency-cases', insolvencyResource(state));
          profileChanged(['company_status']);
        } else {
          found.dates.push({ type: 'dissolved-on', date: today });
          state.status = 'dissolved';
          state.dissolvedOn = today;
          file('gazette', 'GAZ2', 'gazette-dissolved-liquidation');
          publish('insolvency-cases', insolvencyResource(state));
          profileChanged(['company_status', 'date_of_cessation']);
        }
        return;
      }
      case 'capital': {
        state.capitalOn = today;
        state.withdrawable.push(
          file('capital', 'SH01', 'capital-allotment-shares', {
            date: this.recent(state, today, 10),
            capital: [{ figure: String(random.int(2, 500) * 100), currency: 'GBP' }],
          }),
        );
        return;
      }
      case 'withdrawal': {
        // A filing made in error, taken off the register.
        const withdrawn = state.withdrawable.splice(random.int(0, state.withdrawable.length - 1), 1)[0] as StreamEventBody;
        publish('filings', { ...withdrawn, type: 'deleted' });
        return;
      }
      case 'disqualification': {
        state.disqualification = true;
        const id = this.id();
        const [forename, surname] = [random.pick(FORENAMES), random.pick(SURNAMES)];
        const from = addDays(today, -random.int(0, 21));
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
                disqualified_from: from,
                disqualified_until: addMonths(from, 12 * random.int(2, 8)),
                disqualification_type: 'undertaking',
                undertaken_on: addDays(from, -21),
                company_names: [state.company.name],
                reason: { description_identifier: 'misconduct', act: 'company-directors-disqualification-act-1986', section: '7' },
              },
            ],
            etag: nextEtag(state),
            links: { self: `/disqualified-officers/natural/${id}` },
          },
        });
        return;
      }
      case 'exemption': {
        state.exemption = true;
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
            etag: nextEtag(state),
            links: { self: `/company/${state.company.number}/exemptions` },
          },
        });
        return;
      }
    }
  }

  /** A proposal to strike off is discontinued once the company has delivered what it owed (DISS40). */
  private settleProposal(
    state: CompanyState,
    today: string,
    file: (category: string, type: string, description: string) => StreamEventBody,
  ): boolean {
    if (!state.proposedOn || state.proposedOn >= today || overdue(state, today)) return false;
    state.proposedOn = undefined;
    file('gazette', 'DISS40', 'gazette-filings-brought-up-to-date');
    return true;
  }

  private openCase(
    state: CompanyState,
    type: Fate['type'],
    today: string,
    file: (category: string, type: string, description: string, values?: Record<string, unknown>) => StreamEventBody,
  ): void {
    const dates =
      type === 'in-administration'
        ? [{ type: 'administration-started-on', date: today }]
        : type === 'members-voluntary-liquidation'
          ? [
              { type: 'declaration-solvent-on', date: laterOf(state.company.createdOn, addDays(today, -this.random.int(1, 5))) },
              { type: 'wound-up-on', date: today },
            ]
          : [{ type: 'wound-up-on', date: today }];
    state.cases.push({ number: state.cases.length + 1, type, dates, practitioner: this.random.pick(PRACTITIONERS) });
    state.status = type === 'in-administration' ? 'administration' : 'liquidation';
    if (type === 'in-administration') file('insolvency', 'AM01', 'liquidation-in-administration-appointment-of-administrator');
    else if (type === 'members-voluntary-liquidation') file('insolvency', 'LIQ01', 'liquidation-voluntary-declaration-of-solvency');
    else file('insolvency', 'LIQ02', 'liquidation-voluntary-statement-of-affairs');
  }

  /** A company incorporated today: a number after the sample's, its first filings and deadlines worked out from today. */
  private incorporate(today: string, publish: (stream: StreamName, body: StreamEventBody) => void): void {
    // Numbers grow with time, as the register's do, so a restarted runtime never numbers a second company alike.
    this.nextNumber = Math.max(this.nextNumber + this.random.int(1, 40), NUMBERS_FROM + Math.floor((this.now() - NUMBERS_SINCE) / 10_000));
    const [town, postcode] = this.random.pick(TOWNS['england-wales'] ?? []);
    const company: DemoStreamCompany = {
      number: String(this.nextNumber),
      name: `${this.random.pick(NAME_WORDS).toUpperCase()} ${this.random.pick(NAME_TRADES).toUpperCase()} ${this.random.chance(0.7) ? 'LTD' : 'LIMITED'}`,
      type: 'ltd',
      createdOn: today,
      sicCodes: [this.random.pick(NEW_SIC_CODES)],
      office: {
        premises: String(this.random.int(1, 240)),
        address_line_1: this.random.pick(STREETS),
        locality: town,
        postal_code: postcode,
        country: 'England',
      },
    };
    this.pool.push(company);
    const state = this.stateOf(company, today);
    publish('filings', this.filing(state, 'incorporation', 'NEWINC', 'incorporation-company', {}, today));
    publish('companies', this.profile(state, [], today));
    publish('officers', officerResource(state, state.officers[0] as Officer));
    publish('persons-with-significant-control', pscResource(state, state.pscs[0] as CompanyState['pscs'][number]));
  }

  private pick(today: string): CompanyState {
    const index = this.random.chance(0.5) ? this.random.int(0, this.hot - 1) : this.random.int(0, this.pool.length - 1);
    return this.stateOf(this.pool[index] as DemoStreamCompany, today);
  }

  /**
   * What the register held of a company when the demo first tells of it, worked out from its
   * incorporation: each period's accounts and each year's statement delivered on a day drawn for
   * it (most by the deadline, some after), those drawn for the last month still to arrive. Drawn
   * from the company's number alone, so neither the seed nor the order companies are met in changes it.
   */
  private stateOf(company: DemoStreamCompany, today: string): CompanyState {
    const known = this.states.get(company.number);
    if (known) return known;
    // Keyed by the number alone: a restarted runtime (with another seed) tells the same history of each company.
    const random = seededRandom(`register-history:${company.number}`);
    const fateRoll = random.next();
    const fateType: Fate['type'] | undefined =
      fateRoll < 0.03
        ? 'creditors-voluntary-liquidation'
        : fateRoll < 0.05
          ? 'members-voluntary-liquidation'
          : fateRoll < 0.065
            ? 'in-administration'
            : undefined;
    const state: CompanyState = {
      company,
      random,
      status: 'active',
      office: company.office,
      accountsType: company.type === 'plc' ? 'full' : random.weighted(ACCOUNT_TYPES),
      period: { end: '', due: '', deliverOn: '' },
      firstPeriod: true,
      statement: { madeUpTo: '', deliverOn: '' },
      officers: [],
      backfilled: 0,
      charges: [],
      cases: [],
      ...(fateType ? { fate: { type: fateType, from: random.chance(0.5) ? today : addDays(today, random.int(1, 180)) } } : {}),
      pscs: [{ id: this.stableId(random), name: this.personName(random), notifiedOn: company.createdOn, nature: random.pick(NATURES) }],
      pscStatement: false,
      disqualification: false,
      exemption: false,
      withdrawable: [],
      etag: 0,
    };
    // Some borrowed before the demo began: charges the stream has not told of, which may be satisfied now.
    const borrowedBy = addMonths(today, -3);
    for (let n = random.chance(0.4) ? random.int(1, 2) : 0; n > 0 && company.createdOn < borrowedBy; n--) {
      state.charges.push({
        id: this.stableId(random),
        number: state.charges.length + 1,
        createdOn: addDays(company.createdOn, random.int(0, daysBetween(company.createdOn, borrowedBy))),
        lender: random.pick(LENDERS),
        floating: random.chance(0.7),
      });
    }
    state.officers.push({
      id: this.stableId(random),
      name: this.personName(random),
      role: 'director',
      appointedOn: company.createdOn,
      address: company.office,
    });
    // Most companies keep the first period of a year; some shortened or lengthened it, and their deadlines fall in other months.
    const firstMonths = company.createdOn >= today || random.chance(0.5) ? 12 : random.int(6, 17);
    state.period = this.period(state, firstPeriodEnd(company.createdOn, firstMonths), true);
    const arrived = addDays(today, -ARRIVING_DAYS);
    while (state.period.deliverOn < arrived && state.period.end < arrived) {
      state.lastAccounts = { madeUpTo: state.period.end, type: state.accountsType };
      state.firstPeriod = false;
      state.period = this.period(state, nextPeriodEnd(state.period.end), false);
    }
    state.statement = this.statement(state, addMonths(company.createdOn, 12));
    while (state.statement.deliverOn < arrived) {
      state.lastStatement = state.statement.madeUpTo;
      state.statement = this.statement(state, addMonths(state.statement.madeUpTo, 12));
    }
    this.states.set(company.number, state);
    return state;
  }

  private period(state: CompanyState, end: string, first: boolean): Period {
    const due = accountsDue(end, { incorporatedOn: state.company.createdOn, first, publicCompany: state.company.type === 'plc' });
    const deliverOn = state.random.chance(0.88)
      ? addDays(end, state.random.int(1, Math.max(1, daysBetween(end, due))))
      : addDays(due, state.random.int(1, 240));
    return { end, due, deliverOn };
  }

  private statement(state: CompanyState, madeUpTo: string): Statement {
    const deliverOn = state.random.chance(0.9)
      ? addDays(madeUpTo, state.random.int(0, 14))
      : addDays(statementDue(madeUpTo), state.random.int(1, 200));
    return { madeUpTo, deliverOn };
  }

  /** A day within the last few, never before the company existed. */
  private recent(state: CompanyState, today: string, days: number): string {
    return laterOf(state.company.createdOn, addDays(today, -this.random.int(0, days)));
  }

  private newOfficer(state: CompanyState, appointedOn: string): Officer {
    const officer: Officer = {
      id: this.id(),
      name: this.personName(),
      role: this.random.chance(0.85) ? 'director' : 'secretary',
      appointedOn,
      address: state.office,
    };
    state.officers.push(officer);
    return officer;
  }

  private profile(state: CompanyState, fieldsChanged: string[], today: string): StreamEventBody {
    const body = profileResource(state, fieldsChanged, today);
    state.lastProfile = body;
    state.lastProfileOn = today;
    return body;
  }

  private filing(
    state: CompanyState,
    category: string,
    type: string,
    description: string,
    values: Record<string, unknown>,
    today: string,
  ): StreamEventBody {
    return filingResource(state, this.id(), category, type, description, values, today);
  }

  private town(state: CompanyState): readonly [string, string, string] {
    return this.random.pick(TOWNS[jurisdictionOf(state.company.number)] ?? []);
  }

  private personName(random: Random = this.random): string {
    return `${random.pick(SURNAMES).toUpperCase()}, ${random.pick(FORENAMES)}`;
  }

  private stableId(random: Random): string {
    return `${Math.floor(random.next() * 0xffffffff)
      .toString(36)
      .padStart(7, '0')}0`;
  }

  private id(random: Random = this.random): string {
    this.sequence += 1;
    return `${Math.floor(random.next() * 0xffffffff)
      .toString(36)
      .padStart(7, '0')}${this.sequence.toString(36)}`;
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
