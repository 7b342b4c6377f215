import {
  appointment,
  charge,
  control,
  type Envelope,
  filing,
  insolvency,
} from '../../integration/register-stream/fixtures/companies-house-wire';

/**
 * A day of the Companies House streams for companies a client watches, in the register's wire
 * format, with what each company's events truly mean kept aside: which early signals a real change
 * justifies. Most of what the real streams carry is no news (a resource republished whole because
 * one field changed, an old appointment told for the first time, a profile restated), so most of
 * the day is that.
 *
 * The proportions are Bureau's estimate, not a measurement: no recorded day of the real streams can
 * be read on this machine. They follow what the streams are known to do: the officers stream is
 * dominated by republications (a service address, an identity verification, a link changed), the
 * companies stream restates whole profiles, and news (appointments, charges, moves, insolvency) is
 * a small share. Change them here and the bench says what they were.
 */

export const DAY = '2026-11-27';
const BEFORE = '2026-11-20';

/** Kinds of event in the day, with their weight per 1,000 events about watched companies. */
export const DAY_MIX = {
  // No news.
  'officer republished (known appointment, another field changed)': 340,
  'PSC republished (known, another field changed)': 80,
  'old appointment told for the first time (appointed years ago)': 80,
  'profile restated, nothing changed': 100,
  'profile restated with premises split from the first line': 60,
  'charge republished, status unchanged': 40,
  'confirmation statement filed on time': 60,
  'filing withdrawn (deleted event)': 20,
  'event repeated by the stream': 40,
  // News.
  'director appointed': 60,
  'director resigned': 40,
  'charge registered': 30,
  'charge satisfied': 20,
  'registered office moved': 20,
  'strike-off proposed (GAZ1)': 10,
  "creditors' voluntary liquidation opened": 5,
  "members' voluntary liquidation opened": 5,
  'insolvency case closed': 10,
} as const;

export type DayKind = keyof typeof DAY_MIX;

/** The early-signal kinds a kind of news justifies being announced as detected. */
const JUSTIFIES: Partial<Record<DayKind, readonly string[]>> = {
  'director appointed': ['director_appointed'],
  'director resigned': ['director_resigned'],
  'charge registered': ['charge_registered'],
  'charge satisfied': ['charge_satisfied'],
  'registered office moved': ['registered_office_changed'],
  'strike-off proposed (GAZ1)': ['strike_off_proposed'],
  "creditors' voluntary liquidation opened": ['insolvency_case', 'insolvency'],
  "members' voluntary liquidation opened": ['members_voluntary_liquidation'],
};

export interface WatchedTruth {
  /** The one piece of news the company had today, if any. */
  readonly news?: DayKind;
  /** Signal kinds whose detection that news justifies. */
  readonly detected: readonly string[];
  /** True when a signal already held may justly change state today (superseded, expired). */
  readonly updates: boolean;
}

export interface RegisterDay {
  /** What the register told before the client watched: the companies, their officers, PSCs, charges, open cases. */
  readonly before: readonly string[];
  /** The day itself. */
  readonly day: readonly string[];
  readonly truth: ReadonlyMap<string, WatchedTruth>;
  readonly counts: Readonly<Record<DayKind, number>>;
  readonly companies: readonly string[];
}

function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const NEWS = new Set<DayKind>(Object.keys(JUSTIFIES) as DayKind[]);

interface CompanyState {
  readonly number: string;
  readonly officers: string[];
  readonly psc: string;
  readonly charge?: string;
  readonly openCase: boolean;
  news?: DayKind;
  closed: boolean;
}

/** The two appointments told before the day: the first director at incorporation, the second later. */
const appointedOn = (id: string) => (id.endsWith('A') ? '2019-09-10' : '2021-04-01');

const office = (unit: number, joined: boolean) =>
  joined
    ? { address_line_1: `Unit ${unit} Harbour Park`, locality: 'Bristol', country: 'England', postal_code: 'BS1 6XN' }
    : { premises: `Unit ${unit}`, address_line_1: 'Harbour Park', locality: 'Bristol', country: 'England', postal_code: 'BS1 6XN' };

function profile(number: string, overrides: Record<string, unknown> = {}): Envelope {
  const unit = Number(number.slice(-3)) % 40;
  return {
    resource_kind: 'company-profile',
    resource_uri: `/company/${number}`,
    resource_id: number,
    data: {
      company_name: `HARBOUR TRADING ${number} LIMITED`,
      company_number: number,
      company_status: 'active',
      type: 'ltd',
      jurisdiction: 'england-wales',
      date_of_creation: '2019-09-10',
      registered_office_address: office(unit, false),
      sic_codes: ['46900'],
      accounts: {
        accounting_reference_date: { day: '30', month: '09' },
        last_accounts: { made_up_to: '2025-09-30', type: 'micro-entity' },
        next_made_up_to: '2026-09-30',
        next_due: '2027-06-30',
        overdue: false,
      },
      confirmation_statement: { last_made_up_to: '2026-09-10', next_made_up_to: '2027-09-10', next_due: '2027-09-24', overdue: false },
      has_charges: false,
      has_insolvency_history: false,
      can_file: true,
      etag: `e${number}`,
      links: { self: `/company/${number}` },
      ...overrides,
    },
  };
}

/**
 * `watched` companies and about `eventsPerCompany` events each for the day, at most one piece of
 * news per company (so that what each webhook answers for is plain), deterministic for a seed.
 */
export function registerDay(watched: number, eventsPerCompany: number, seed = 7): RegisterDay {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
  const timepoints = new Map<string, number>();
  const lineOf = (stream: string, body: Envelope, publishedAt: string, type: 'changed' | 'deleted' = 'changed') => {
    const timepoint = (timepoints.get(stream) ?? 9_000_000) + 1 + Math.floor(random() * 4);
    timepoints.set(stream, timepoint);
    return JSON.stringify({ ...body, event: { timepoint, published_at: publishedAt, type } });
  };

  const states: CompanyState[] = [];
  const before: string[] = [];
  for (let index = 0; index < watched; index++) {
    const number = String(17_000_000 + index * 7);
    const state: CompanyState = {
      number,
      officers: [`OFF${number}A`, `OFF${number}B`],
      psc: `PSC${number}`,
      ...(random() < 0.4 ? { charge: `CHG${number}` } : {}),
      openCase: random() < 0.02,
      closed: false,
    };
    states.push(state);
    const at = `${BEFORE}T09:${String(index % 60).padStart(2, '0')}:00`;
    before.push(lineOf('companies', profile(number, state.openCase ? { company_status: 'liquidation' } : {}), at));
    before.push(lineOf('officers', appointment(number, state.officers[0] as string, { appointedOn: '2019-09-10' }), at));
    before.push(lineOf('officers', appointment(number, state.officers[1] as string, { appointedOn: '2021-04-01' }), at));
    before.push(lineOf('persons-with-significant-control', control(number, state.psc, { notifiedOn: '2019-09-10' }), at));
    if (state.charge) {
      before.push(lineOf('charges', charge(number, state.charge, { number: 1, status: 'outstanding', createdOn: '2022-03-14' }), at));
    }
    if (state.openCase) {
      before.push(
        lineOf(
          'insolvency-cases',
          insolvency(number, [
            { type: 'creditors-voluntary-liquidation', number: 1, dates: [{ type: 'wound-up-on', date: '2026-11-02' }] },
          ]),
          at,
        ),
      );
    }
  }

  const weights = Object.entries(DAY_MIX) as Array<[DayKind, number]>;
  const total = weights.reduce((sum, [, weight]) => sum + weight, 0);
  const draw = (): DayKind => {
    let roll = random() * total;
    for (const [kind, weight] of weights) {
      roll -= weight;
      if (roll < 0) return kind;
    }
    return weights[0]?.[0] as DayKind;
  };

  const counts = Object.fromEntries(weights.map(([kind]) => [kind, 0])) as Record<DayKind, number>;
  type Told = readonly [stream: string, body: Envelope, type?: 'changed' | 'deleted'];
  const timed: Array<{ at: string; told: readonly Told[] }> = [];
  const sent: Told[] = [];
  const events = watched * eventsPerCompany;
  for (let made = 0; made < events; ) {
    let kind = draw();
    // A case closes only where one was open: such a company is picked for it while one is left.
    const open = kind === 'insolvency case closed' ? states.filter((candidate) => candidate.openCase && !candidate.closed) : [];
    const state = open.length > 0 ? pick(open) : pick(states);
    // One piece of news per company, and only the news its state allows; anything else is a republication.
    const allowed =
      !NEWS.has(kind) ||
      (!state.news &&
        !state.openCase &&
        (kind !== 'charge satisfied' || state.charge !== undefined) &&
        (kind !== 'director resigned' || state.officers.length > 0));
    if (kind === 'insolvency case closed' && (!state.openCase || state.closed))
      kind = 'officer republished (known appointment, another field changed)';
    if (kind === 'charge republished, status unchanged' && !state.charge) kind = 'PSC republished (known, another field changed)';
    if (kind === 'event repeated by the stream' && sent.length === 0) kind = 'profile restated, nothing changed';
    if (!allowed) kind = 'officer republished (known appointment, another field changed)';
    const minute = Math.floor(random() * 600);
    const at = `${DAY}T${String(8 + Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}:${String(Math.floor(random() * 60)).padStart(2, '0')}`;
    const n = state.number;
    const lines: Told[] = [];
    switch (kind) {
      case 'officer republished (known appointment, another field changed)': {
        const republished = pick(state.officers);
        lines.push([
          'officers',
          appointment(n, republished, {
            appointedOn: appointedOn(republished),
            address: {
              premises: String(1 + Math.floor(random() * 90)),
              address_line_1: 'Queen Square',
              locality: 'Bristol',
              postal_code: 'BS1 4JQ',
            },
          }),
        ]);
        break;
      }
      case 'PSC republished (known, another field changed)':
        lines.push(['persons-with-significant-control', control(n, state.psc, { notifiedOn: '2019-09-10' })]);
        break;
      case 'old appointment told for the first time (appointed years ago)':
        lines.push(['officers', appointment(n, `OLD${n}${made}`, { appointedOn: '2012-09-11', resignedOn: '2016-01-31' })]);
        break;
      case 'profile restated, nothing changed':
        lines.push(['companies', profile(n, state.openCase ? { company_status: 'liquidation' } : {})]);
        break;
      case 'profile restated with premises split from the first line':
        lines.push([
          'companies',
          profile(n, {
            registered_office_address: office(Number(n.slice(-3)) % 40, true),
            ...(state.openCase ? { company_status: 'liquidation' } : {}),
          }),
        ]);
        break;
      case 'charge republished, status unchanged':
        lines.push(['charges', charge(n, state.charge as string, { number: 1, status: 'outstanding', createdOn: '2022-03-14' })]);
        break;
      case 'confirmation statement filed on time':
        lines.push([
          'filings',
          filing(n, `CS${n}${made}`, {
            category: 'confirmation-statement',
            type: 'CS01',
            date: DAY,
            description: 'confirmation-statement-with-no-updates',
          }),
        ]);
        break;
      case 'filing withdrawn (deleted event)':
        lines.push([
          'filings',
          filing(n, `DEL${n}${made}`, {
            category: 'officers',
            type: 'AP01',
            date: DAY,
            description: 'appoint-person-director-company-with-name-date',
          }),
          'deleted',
        ]);
        break;
      case 'event repeated by the stream':
        timed.push({ at, told: [pick(sent)] });
        break;
      case 'director appointed':
        lines.push(['officers', appointment(n, `NEW${n}`, { appointedOn: '2026-11-24' })]);
        break;
      case 'director resigned': {
        const leaving = state.officers.pop() as string;
        lines.push(['officers', appointment(n, leaving, { appointedOn: appointedOn(leaving), resignedOn: '2026-11-25' })]);
        break;
      }
      case 'charge registered':
        lines.push(['charges', charge(n, `CHG${n}N`, { number: state.charge ? 2 : 1, status: 'outstanding', createdOn: '2026-11-25' })]);
        break;
      case 'charge satisfied':
        lines.push([
          'charges',
          charge(n, state.charge as string, { number: 1, status: 'fully-satisfied', createdOn: '2022-03-14', satisfiedOn: '2026-11-26' }),
        ]);
        break;
      case 'registered office moved':
        lines.push([
          'companies',
          profile(n, {
            registered_office_address: {
              premises: '2',
              address_line_1: 'Temple Way',
              locality: 'Bristol',
              postal_code: 'BS2 0BY',
              country: 'England',
            },
          }),
        ]);
        break;
      case 'strike-off proposed (GAZ1)':
        lines.push([
          'filings',
          filing(n, `GAZ${n}`, { category: 'gazette', type: 'GAZ1', date: DAY, description: 'gazette-notice-compulsory' }),
        ]);
        break;
      case "creditors' voluntary liquidation opened":
      case "members' voluntary liquidation opened": {
        const type = kind.startsWith('creditors') ? 'creditors-voluntary-liquidation' : 'members-voluntary-liquidation';
        lines.push(['insolvency-cases', insolvency(n, [{ type, number: 1, dates: [{ type: 'wound-up-on', date: '2026-11-25' }] }])]);
        lines.push(['companies', profile(n, { company_status: 'liquidation' })]);
        break;
      }
      case 'insolvency case closed':
        state.closed = true;
        lines.push([
          'insolvency-cases',
          insolvency(n, [
            {
              type: 'creditors-voluntary-liquidation',
              number: 1,
              dates: [
                { type: 'wound-up-on', date: '2026-11-02' },
                { type: 'concluded-winding-up-on', date: '2026-11-26' },
              ],
            },
          ]),
        ]);
        break;
    }
    if (NEWS.has(kind)) state.news = kind;
    if (lines.length > 0) {
      sent.push(...lines);
      timed.push({ at, told: lines });
    }
    counts[kind] += Math.max(1, lines.length);
    made += Math.max(1, lines.length);
  }
  // In the order the register published them, each stream's timepoints rising; the lines of one change stay together.
  timed.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const day = timed.flatMap((entry) => entry.told.map(([stream, body, type]) => lineOf(stream, body, entry.at, type)));
  const truth = new Map<string, WatchedTruth>(
    states.map((state) => [
      state.number,
      {
        ...(state.news ? { news: state.news } : {}),
        detected: state.news ? (JUSTIFIES[state.news] ?? []) : [],
        updates: state.closed || state.news !== undefined,
      },
    ]),
  );
  return { before, day, truth, counts, companies: states.map((state) => state.number) };
}
