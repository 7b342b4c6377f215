import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerTimestamp } from '../../../local/register-stream-emulator';
import { DemoRegisterActivity, type DemoStreamCompany, officeOf, readDemoStreamCompanies } from '../../../local/register-stream-publisher';
import { addressKey } from '../../../shared/register/addresses';
import { parseStreamLine, STREAM_NAMES, type StreamEvent, type StreamName } from '../../../shared/register/stream/stream-events';

const sample = join(import.meta.dirname, '../../../data/gb-companies-2024-01.csv');
const START = Date.UTC(2026, 10, 28, 9);
const FIVE_MINUTES = 5 * 60_000;

interface Published {
  readonly step: number;
  /** The day of the event's published_at. */
  readonly today: string;
  readonly event: StreamEvent;
}

/** Runs the generator with a clock that moves on after every step, and reads every line back as the consumer does. */
function run(companies: readonly DemoStreamCompany[], steps: number, stepMs: number, seed = 'fixed-seed'): Published[] {
  let now = START;
  let step = 0;
  let timepoint = 0;
  const published: Published[] = [];
  const activity = new DemoRegisterActivity(
    {
      publish: (stream, body) => {
        timepoint += 1;
        const line = JSON.stringify({
          resource_kind: body.resource_kind,
          resource_uri: body.resource_uri,
          resource_id: body.resource_id,
          data: body.data,
          event: { ...body.event, timepoint, published_at: registerTimestamp(now), type: body.type ?? 'changed' },
        });
        const parsed = parseStreamLine(stream, line);
        if (!parsed.ok) throw new Error(`${stream} line refused (${parsed.reason}): ${line}`);
        published.push({ step, today: parsed.event.publishedAt.slice(0, 10), event: parsed.event });
        return timepoint;
      },
    },
    companies,
    () => now,
    seed,
  );
  for (; step < steps; step++) {
    activity.step();
    now += stepMs;
  }
  return published;
}

const numberOf = (event: StreamEvent) => /^\/company\/([^/]+)/.exec(event.resourceUri)?.[1] ?? '';
const monthEnd = (date: string) => {
  const [y, m] = date.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
};
const addMonths = (date: string, months: number) => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const last = new Date(Date.UTC(y, m - 1 + months + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m - 1 + months, Math.min(d, last))).toISOString().slice(0, 10);
};
/** The accounting reference date a period end stands for: the month's last day (February's is the 28th, leap year or not). */
const referenceOf = (periodEnd: string) => ({
  day: periodEnd.slice(5, 7) === '02' ? '28' : periodEnd.slice(8, 10),
  month: periodEnd.slice(5, 7),
});
const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

type Data = Record<string, unknown>;
const field = (data: Data, path: string): unknown =>
  path.split('.').reduce<unknown>((value, key) => (value as Data | undefined)?.[key], data);

/** Every date a resource carries, with where, except the deadlines and ends that lie ahead by nature. */
function datesIn(value: unknown, path = ''): Array<[string, string]> {
  if (typeof value === 'string') return /^\d{4}-\d{2}-\d{2}$/.test(value) ? [[path, value]] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => datesIn(item, `${path}[${index}]`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) =>
      ['next_due', 'next_made_up_to', 'disqualified_until'].includes(key) ? [] : datesIn(item, path ? `${path}.${key}` : key),
    );
  }
  return [];
}

const filings = (published: readonly Published[], type: string) =>
  published.filter(({ event }) => event.stream === 'filings' && event.type === 'changed' && event.data.type === type);

/** The company-profile event published in the same step as the given one, about the same company. */
const profileBeside = (published: readonly Published[], at: Published) =>
  published.find(({ step, event }) => step === at.step && event.stream === 'companies' && event.resourceId === numberOf(at.event))?.event
    .data;

describe('demo register activity, over months of register time', () => {
  let companies: DemoStreamCompany[];
  let published: Published[];
  beforeAll(() => {
    const all = readDemoStreamCompanies(sample);
    // The sample's first rows (the hot set among them), and its public company, which alone trades on a regulated market.
    companies = [...all.slice(0, 150), ...all.filter((company) => company.type === 'plc')];
    published = run(companies, 50_000, FIVE_MINUTES);
  });

  it('spans months of register time and publishes on every stream', () => {
    expect(published.at(-1)?.today).toBe('2027-05-20');
    expect(new Set(published.map(({ event }) => event.stream))).toEqual(new Set<StreamName>(STREAM_NAMES));
  });

  it('dates nothing after the event that carries it', () => {
    const later = published.flatMap(({ today, event }) =>
      datesIn(event.data)
        .filter(([, date]) => date > today)
        .map(([path, date]) => `${event.stream} ${event.resourceUri} ${path} ${date} published ${today}`),
    );
    expect(later.slice(0, 5)).toEqual([]);
  });

  it('files accounts only for a period that has ended, made up to its accounting reference date', () => {
    const accounts = published.filter(({ event }) => event.stream === 'filings' && event.data.category === 'accounts');
    expect(accounts.length).toBeGreaterThan(20);
    for (const filed of accounts) {
      const madeUp = field(filed.event.data, 'description_values.made_up_date') as string;
      expect(madeUp < filed.today, `${filed.event.resourceUri} made up to ${madeUp} filed ${filed.today}`).toBe(true);
      expect(madeUp).toBe(monthEnd(madeUp));
      const profile = profileBeside(published, filed) as Data;
      expect(field(profile, 'accounts.last_accounts.made_up_to')).toBe(madeUp);
      expect(field(profile, 'accounts.accounting_reference_date')).toEqual(referenceOf(madeUp));
    }
  });

  it('files most accounts by their deadline and some after it', () => {
    let onTime = 0;
    let late = 0;
    const dueOf = new Map<string, string>();
    for (const { today, event } of published) {
      if (event.stream === 'companies') dueOf.set(event.resourceId, field(event.data, 'accounts.next_due') as string);
      if (event.stream === 'filings' && event.data.category === 'accounts') {
        const due = dueOf.get(numberOf(event));
        if (due === undefined) continue;
        if (today <= due) onTime += 1;
        else late += 1;
      }
    }
    expect(late).toBeGreaterThan(0);
    expect(onTime).toBeGreaterThan(late);
  });

  it('keeps every profile’s deadlines consistent with what it filed', () => {
    for (const { today, event } of published.filter(({ event }) => event.stream === 'companies')) {
      const accounts = event.data.accounts as Data;
      const next = accounts.next_made_up_to as string;
      const last = field(accounts, 'last_accounts.made_up_to') as string | undefined;
      const where = `${event.resourceId} published ${today}`;
      expect(next, where).toBe(monthEnd(next));
      expect(accounts.accounting_reference_date, where).toEqual(referenceOf(next));
      if (last !== undefined) expect(next, where).toBe(monthEnd(addMonths(last, 12)));
      expect(accounts.overdue, where).toBe((accounts.next_due as string) < today);
      const statement = event.data.confirmation_statement as Data;
      const lastStatement = statement.last_made_up_to as string | undefined;
      if (lastStatement !== undefined) {
        expect(lastStatement <= today, where).toBe(true);
        expect(statement.next_made_up_to, where).toBe(addMonths(lastStatement, 12));
      }
      expect(statement.next_due, where).toBe(addDays(statement.next_made_up_to as string, 14));
      expect(statement.overdue, where).toBe((statement.next_due as string) < today);
    }
  });

  it('makes up a confirmation statement only to a date that has passed', () => {
    const statements = published.filter(({ event }) => event.stream === 'filings' && event.data.category === 'confirmation-statement');
    expect(statements.length).toBeGreaterThan(20);
    for (const { today, event } of statements) expect((field(event.data, 'description_values.made_up_date') as string) <= today).toBe(true);
  });

  it('proposes striking off only companies that are overdue, and settles or dissolves them later', () => {
    const proposals = filings(published, 'GAZ1');
    const discontinued = filings(published, 'DISS40');
    const dissolved = filings(published, 'GAZ2').filter(({ event }) => event.data.description === 'gazette-dissolved-compulsory');
    expect([proposals.length > 0, discontinued.length > 0, dissolved.length > 0]).toEqual([true, true, true]);
    for (const proposal of proposals) {
      expect(proposal.event.data.description).toBe('gazette-notice-compulsory');
      const profile = profileBeside(published, proposal) as Data;
      expect(field(profile, 'accounts.overdue') === true || field(profile, 'confirmation_statement.overdue') === true).toBe(true);
      expect([profile.company_status, profile.company_status_detail]).toEqual(['active', 'active-proposal-to-strike-off']);
    }
    const proposedOn = (number: string, before: number) =>
      proposals.filter(({ step, event }) => numberOf(event) === number && step < before).at(-1)?.today;
    for (const settled of discontinued) {
      const proposed = proposedOn(numberOf(settled.event), settled.step);
      expect(proposed).toBeDefined();
      expect(proposed, 'proposal and discontinuation on one day').not.toBe(settled.today);
      expect(settled.event.data.description).toBe('gazette-filings-brought-up-to-date');
      expect((profileBeside(published, settled) as Data).company_status_detail).toBeUndefined();
    }
    for (const end of dissolved) {
      const proposed = proposedOn(numberOf(end.event), end.step) as string;
      expect(proposed <= addMonths(end.today, -2)).toBe(true);
      const profile = profileBeside(published, end) as Data;
      expect([profile.company_status, profile.date_of_cessation]).toEqual(['dissolved', end.today]);
    }
  });

  it('never resigns an appointment on the day it was made, and republishes appointments with nothing new', () => {
    const seen = new Map<string, Data>();
    let republished = 0;
    let old = 0;
    for (const { today, event } of published.filter(({ event }) => event.stream === 'officers')) {
      const { appointed_on: appointed, resigned_on: resigned } = event.data as { appointed_on: string; resigned_on?: string };
      if (resigned !== undefined) expect(resigned > appointed, `${event.resourceUri} ${appointed} to ${resigned}`).toBe(true);
      const before = seen.get(event.resourceId);
      if (before) {
        expect(before.appointed_on).toBe(appointed);
        if (before.resigned_on === resigned) republished += 1;
      } else if (appointed <= addMonths(today, -12)) old += 1;
      seen.set(event.resourceId, event.data);
    }
    expect(republished).toBeGreaterThan(50);
    expect(old).toBeGreaterThan(0);
  });

  it('moves registered offices with premises apart, and republishes an office split otherwise without moving it', () => {
    const offices = new Map(companies.map((company) => [company.number, company.office as Data]));
    let moves = 0;
    let resplit = 0;
    for (const { event } of published.filter(({ event }) => event.stream === 'companies')) {
      const office = event.data.registered_office_address as Data;
      const before = offices.get(event.resourceId);
      const words = (address: Data) =>
        addressKey(['premises', 'address_line_1', 'address_line_2', 'locality', 'postal_code'].map((key) => address[key] as string));
      if (before && words(before) === words(office) && before.premises !== office.premises) resplit += 1;
      if (before && words(before) !== words(office)) {
        moves += 1;
        expect(typeof office.premises).toBe('string');
        expect(typeof office.address_line_1).toBe('string');
      }
      offices.set(event.resourceId, office);
    }
    expect(moves).toBeGreaterThan(0);
    expect(resplit).toBeGreaterThan(0);
  });

  it('opens creditors’ and members’ voluntary liquidations and administrations, and settles cases later', () => {
    const cases = published
      .filter(({ event }) => event.stream === 'insolvency-cases')
      .flatMap(({ today, event }) => (event.data.cases as Data[]).map((found) => ({ today, number: numberOf(event), found })));
    const types = new Set(cases.map(({ found }) => found.type));
    expect(types).toContain('creditors-voluntary-liquidation');
    expect(types).toContain('members-voluntary-liquidation');
    const ended = cases.filter(({ found }) =>
      (found.dates as Data[]).some((date) => ['dissolved-on', 'administration-ended-on'].includes(date.type as string)),
    );
    expect(ended.length).toBeGreaterThan(0);
    for (const { found } of ended) {
      const dates = found.dates as Array<{ type: string; date: string }>;
      const start = dates.find((date) => ['wound-up-on', 'administration-started-on'].includes(date.type))?.date as string;
      const end = dates.find((date) => ['dissolved-on', 'administration-ended-on'].includes(date.type))?.date as string;
      expect(end > start).toBe(true);
    }
    const statuses = new Set(
      published
        .filter(({ event }) => event.stream === 'companies' && cases.some(({ number }) => number === event.resourceId))
        .map(({ event }) => event.data.company_status),
    );
    expect(statuses).toContain('liquidation');
  });

  it('withdraws filings made in error', () => {
    const deleted = published.filter(({ event }) => event.type === 'deleted');
    expect(deleted.length).toBeGreaterThan(0);
    for (const { event } of deleted) {
      expect(event.stream).toBe('filings');
      expect(published.some((other) => other.event.resourceUri === event.resourceUri && other.event.type === 'changed')).toBe(true);
    }
  });

  it('tells of companies incorporated today, numbered after the sample', () => {
    const sampleNumbers = new Set(companies.map((company) => company.number));
    const highest = Math.max(
      ...readDemoStreamCompanies(sample).flatMap((company) => (/^\d{8}$/.test(company.number) ? [Number(company.number)] : [])),
    );
    const newcomers = published.filter(({ event }) => event.stream === 'companies' && !sampleNumbers.has(event.resourceId));
    const firsts = new Map<string, Published>();
    for (const newcomer of newcomers) if (!firsts.has(newcomer.event.resourceId)) firsts.set(newcomer.event.resourceId, newcomer);
    expect(firsts.size).toBeGreaterThan(0);
    for (const { today, event } of firsts.values()) {
      expect(event.resourceId).toMatch(/^\d{8}$/);
      expect(Number(event.resourceId)).toBeGreaterThan(highest);
      const data = event.data;
      expect([data.date_of_creation, data.type, data.company_status]).toEqual([today, 'ltd', 'active']);
      expect(data.company_name).toMatch(/ (LTD|LIMITED)$/);
      expect((data.sic_codes as string[]).length).toBeGreaterThan(0);
      expect(field(data, 'registered_office_address.postal_code')).toBeTruthy();
      expect(field(data, 'accounts.next_made_up_to')).toBe(monthEnd(addMonths(today, 12)));
      expect(field(data, 'confirmation_statement.next_made_up_to')).toBe(addMonths(today, 12));
    }
  });

  it('registers charges with their lender and satisfies them on a later day', () => {
    const charges = published.filter(({ event }) => event.stream === 'charges');
    const satisfied = charges.filter(({ event }) => event.data.satisfied_on !== undefined);
    expect(satisfied.length).toBeGreaterThan(0);
    for (const { event } of charges) {
      expect((event.data.persons_entitled as Data[])[0]?.name).toBeTruthy();
      expect(field(event.data, 'particulars.contains_floating_charge')).toBeTypeOf('boolean');
      if (event.data.satisfied_on !== undefined) expect((event.data.satisfied_on as string) > (event.data.created_on as string)).toBe(true);
    }
  });
});

describe('demo register activity, as a demo watches it', () => {
  it('concerns the first 25 companies in about half its steps, and is the same for the same seed and clock', () => {
    const companies = readDemoStreamCompanies(sample, 500);
    const hot = new Set(companies.slice(0, 25).map((company) => company.number));
    const published = run(companies, 3000, 300);
    const steps = new Map<number, string>();
    for (const { step, event } of published) steps.set(step, numberOf(event));
    const share = [...steps.values()].filter((number) => hot.has(number)).length / steps.size;
    expect(share).toBeGreaterThan(0.4);
    expect(share).toBeLessThan(0.6);
    expect(run(companies, 3000, 300)).toEqual(published);
  });

  it('tells the same history of a company whatever the seed, so a restarted runtime agrees with what it published before', () => {
    const companies = readDemoStreamCompanies(sample, 100);
    const firstProfiles = (published: readonly Published[]) => {
      const profiles = new Map<string, unknown>();
      for (const { event } of published) {
        if (event.stream === 'companies' && !profiles.has(event.resourceId)) {
          profiles.set(event.resourceId, [field(event.data, 'accounts.accounting_reference_date'), field(event.data, 'date_of_creation')]);
        }
      }
      return profiles;
    };
    const one = firstProfiles(run(companies, 2000, 300, 'one run'));
    const another = firstProfiles(run(companies, 2000, 300, 'another run'));
    const both = [...one.keys()].filter((number) => another.has(number));
    expect(both.length).toBeGreaterThan(20);
    for (const number of both) expect(another.get(number), number).toEqual(one.get(number));
  });

  it('keeps publishing things that are news when the clock barely moves', () => {
    const companies = readDemoStreamCompanies(sample, 2000);
    const published = run(companies, 3000, 300);
    const kinds = new Set(published.map(({ event }) => (event.stream === 'filings' ? String(event.data.type) : event.stream)));
    for (const kind of ['AA', 'CS01', 'AD01', 'AP01', 'TM01', 'MR01', 'MR04', 'GAZ1', 'officers', 'insolvency-cases'])
      expect(kinds).toContain(kind);
  });

  it('reads a published one-line address into its parts', () => {
    expect(officeOf('Dean Cottage Arbour Lane Standish Wigan WN6 0YJ England')).toEqual({
      address_line_1: 'Dean Cottage Arbour Lane Standish',
      locality: 'Wigan',
      postal_code: 'WN6 0YJ',
      country: 'England',
    });
  });
});
