import { fileURLToPath } from 'node:url';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RegisterStreamEmulator, startRegisterStreamEmulator } from '../../../local/register-stream-emulator';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { DynamoProfileReader } from '../../../shared/companies/dynamo-profile-reader';
import type { CompanyProfile } from '../../../shared/companies/profile';
import { searchCompanies } from '../../../shared/companies/search';
import { profileKey } from '../../../shared/companies/search-index';
import { importProfiles, openImportFile } from '../../../shared/register/import/import';
import { TEXT_LIMITS } from '../../../shared/register/register-text';
import { createEventApplier } from '../../../shared/register/stream/apply-events';
import { DynamoStreamCheckpoints } from '../../../shared/register/stream/checkpoints';
import { type ConsumeResult, consumeStream } from '../../../shared/register/stream/consumer';
import { DynamoSetAsideEvents, replaySetAside } from '../../../shared/register/stream/set-aside';
import type { ApplyEvents } from '../../../shared/register/stream/stream-events';
import { companiesTable, registerStreamsTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { acmeProfile, brightIdeasProfile, type Envelope, wire } from './fixtures/companies-house-wire';

const MAY = fileURLToPath(new URL('../../fixtures/register/BasicCompanyData-2024-05-01-part1_1.csv', import.meta.url));
const ACME = '09446231';
const KEY = 'poisoned-events-key';
const ESC = '\u001b';
const RLO = '\u202e';
/** What a terminal or a page would act on, or that steers how text reads. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: what must never be stored is control characters
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

let tables: TestTables;
let store: DynamoCompanyStore;
let apply: ApplyEvents;
let emulator: RegisterStreamEmulator | undefined;

beforeEach(async () => {
  tables = await createTestTables([{ ...companiesTable, stream: undefined }, registerStreamsTable]);
  store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
  apply = createEventApplier({ doc: tables.doc, companiesTable: tables.names.companies as string });
});
afterEach(async () => {
  await emulator?.stop();
  emulator = undefined;
});

const streamsTable = () => tables.names[registerStreamsTable.id] as string;

async function importMay() {
  const source = await openImportFile(MAY, {});
  return importProfiles(source.records, store);
}

const stored = async (number = ACME) =>
  (await tables.doc.send(new GetCommand({ TableName: tables.names.companies, Key: profileKey('GB', number) }))).Item as
    | (CompanyProfile & { version: number })
    | undefined;

/** Former names as a hostile or broken feed could send them: 300 KB of them, each far over any register's limit. */
const poisonedFormerNames = () =>
  Array.from({ length: 30 }, (_, index) => ({
    name: `${ESC}[31mFORMER${RLO} ${String(index).padStart(2, '0')} ${'Z'.repeat(10_000)}`,
    ceased_on: `20${String(10 + (index % 10)).padStart(2, '0')}-0${1 + (index % 9)}-01`,
    effective_from: '2000-01-01',
  }));

/** A company incorporated today, as the companies stream announces it: a profile Bureau has never held. */
const newIncorporation = (): Envelope => ({
  resource_kind: 'company-profile',
  resource_uri: '/company/16012345',
  resource_id: '16012345',
  data: {
    company_name: 'NEWCO ROBOTICS LTD',
    company_number: '16012345',
    company_status: 'active',
    type: 'ltd',
    jurisdiction: 'england-wales',
    date_of_creation: '2024-05-20',
    registered_office_address: {
      premises: '7',
      address_line_1: 'Mill Road',
      locality: 'Leeds',
      country: 'England',
      postal_code: 'LS1 4AB',
    },
    sic_codes: ['62012'],
    accounts: {
      next_due: '2026-02-20',
      accounting_reference_date: { day: '31', month: '05' },
      last_accounts: { type: 'null' },
    },
    confirmation_statement: { next_due: '2025-06-02' },
    has_charges: false,
    has_insolvency_history: false,
    can_file: true,
    links: { self: '/company/16012345' },
  },
});

describe('poisoned events never stop the companies stream', () => {
  it('stores a 5,000-character name with escapes and bidi overrides cleaned and bounded, and the next event applies', async () => {
    // Arrange
    await importMay();
    const poisoned = wire(
      'companies',
      acmeProfile({
        company_name: `${ESC}[31mACME${ESC}[0m ${RLO}WIDGETS\u2066 ${'W'.repeat(5_000)}`,
        registered_office_address: {
          premises: `${ESC}[1m12${ESC}[0m`,
          address_line_1: `Foundry Lane${RLO}`,
          address_line_2: `${'A'.repeat(1_000)}\u200b`,
          locality: 'Sheffield',
          postal_code: 'S1 4PL',
        },
      }),
      '2024-05-20T09:00:00',
    );
    const next = wire('companies', acmeProfile({ company_status_detail: 'active-proposal-to-strike-off' }), '2024-05-21T09:00:00');

    // Act
    const outcome = await apply('companies', [poisoned]);
    const acme = await stored();
    const found = await searchCompanies(store, { q: 'ACME WIDGETS', jurisdiction: 'GB', limit: 5 });
    const afterwards = await apply('companies', [next]);

    // Assert
    expect(outcome).toMatchObject({ applied: 1, unchanged: 0, skipped: 0 });
    expect(acme?.name).toMatch(/^ACME WIDGETS W+$/);
    expect(acme?.name).toHaveLength(TEXT_LIMITS.name);
    expect(acme?.overview.registeredOffice).toMatch(/^12 Foundry Lane, A+/);
    expect(JSON.stringify(acme)).not.toMatch(UNSAFE);
    expect(found.items.map((item) => item.companyNumber)).toContain(ACME);
    expect(afterwards).toMatchObject({ applied: 1, unchanged: 0, skipped: 0 });
    expect((await stored())?.tradingStatus.registerStatus).toBe('Active - Proposal to Strike off');
  });

  it('applies a 300 KB list of former names bounded, and the stream moves on past it to the next event', async () => {
    // Arrange
    await importMay();
    emulator = await startRegisterStreamEmulator({ streamKey: KEY, heartbeatMs: 50 });
    const checkpoints = new DynamoStreamCheckpoints(tables.doc, streamsTable());
    await checkpoints.acquire('companies', 'earlier', 60_000);
    await checkpoints.advance('companies', 'earlier', { timepoint: 0, publishedAt: '2024-05-20T08:00:00' });
    await checkpoints.release('companies', 'earlier');
    const formerNames = poisonedFormerNames();
    expect(JSON.stringify(formerNames).length).toBeGreaterThan(300_000);
    const poisoned = emulator.publish('companies', acmeProfile({ previous_company_names: formerNames }));
    const next = emulator.publish('companies', brightIdeasProfile({ company_status: 'liquidation' }));

    // Act
    const result = await consumeUntil(
      { apply, checkpoints, setAside: new DynamoSetAsideEvents(tables.doc, streamsTable()) },
      async () => ((await checkpoints.read('companies'))?.timepoint ?? 0) >= next,
    );

    // Assert
    expect(next).toBeGreaterThan(poisoned);
    expect(result.checkpoint).toBe(next);
    const acme = await stored();
    expect(acme?.overview.previousNames).toHaveLength(10);
    for (const former of acme?.overview.previousNames ?? []) {
      expect(former.name.length).toBeLessThanOrEqual(TEXT_LIMITS.name);
      expect(former.name).not.toMatch(UNSAFE);
    }
    expect(JSON.stringify(acme).length).toBeLessThan(100_000);
    expect((await stored('11111111'))?.tradingStatus.status).toBe('liquidation');
  });

  it('sets aside an event that fails alone for a lasting reason, moves on, retries a throttled one, and replays after a fix', async () => {
    // Arrange
    await importMay();
    emulator = await startRegisterStreamEmulator({ streamKey: KEY, heartbeatMs: 50 });
    const checkpoints = new DynamoStreamCheckpoints(tables.doc, streamsTable());
    await checkpoints.acquire('companies', 'earlier', 60_000);
    await checkpoints.advance('companies', 'earlier', { timepoint: 0, publishedAt: '2024-05-20T08:00:00' });
    await checkpoints.release('companies', 'earlier');
    const setAside = new DynamoSetAsideEvents(tables.doc, streamsTable());
    // DynamoDB refuses ACME's write as a too-large item would be refused, until "fixed"; BRIGHT IDEAS is throttled once.
    let fixed = false;
    let throttled = 0;
    const refusing: ApplyEvents = async (stream, events) => {
      if (!fixed && events.some((event) => event.resourceUri === `/company/${ACME}`)) {
        throw Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
          name: 'ValidationException',
          $metadata: { httpStatusCode: 400 },
        });
      }
      if (throttled === 0 && events.some((event) => event.resourceUri === '/company/11111111')) {
        throttled++;
        throw Object.assign(new Error('Rate of requests exceeds the allowed throughput'), {
          name: 'ProvisionedThroughputExceededException',
          $metadata: { httpStatusCode: 400 },
        });
      }
      return apply(stream, events);
    };
    const errors: string[] = [];
    const counted: number[] = [];
    const poisoned = emulator.publish('companies', acmeProfile({ company_status: 'liquidation' }));
    const next = emulator.publish('companies', brightIdeasProfile({ company_status: 'liquidation' }));

    // Act
    const result = await consumeUntil(
      {
        apply: refusing,
        checkpoints,
        setAside,
        log: { info: () => {}, warn: () => {}, error: (message) => errors.push(message) },
        metrics: { setAside: (_stream, events) => counted.push(events) },
      },
      async () => ((await checkpoints.read('companies'))?.timepoint ?? 0) >= next,
    );
    const listed = await setAside.list();

    // Assert
    expect(result.checkpoint).toBe(next);
    expect(result.setAside).toBe(1);
    expect(counted).toEqual([1]);
    expect(errors).toContain('A stream event that cannot be applied was set aside; the stream moves on');
    expect(throttled).toBe(1);
    expect(listed).toEqual([
      expect.objectContaining({
        stream: 'companies',
        timepoint: poisoned,
        resourceUri: `/company/${ACME}`,
        error: 'ValidationException: Item size has exceeded the maximum allowed size',
      }),
    ]);
    expect((await stored('11111111'))?.tradingStatus.status).toBe('liquidation');
    expect((await stored())?.tradingStatus.status).toBe('active');

    // Act: the fault is fixed, and the operator replays what was set aside
    fixed = true;
    const replay = await replaySetAside(setAside, refusing);

    // Assert
    expect(replay).toEqual({ replayed: 1, failing: 0, unreplayable: 0 });
    expect(await setAside.list()).toEqual([]);
    expect((await stored())?.tradingStatus.status).toBe('liquidation');
  });

  it('keeps retrying a batch that fails for a transient reason, setting nothing aside', async () => {
    // Arrange
    emulator = await startRegisterStreamEmulator({ streamKey: KEY, heartbeatMs: 50 });
    const checkpoints = new DynamoStreamCheckpoints(tables.doc, streamsTable());
    await checkpoints.acquire('companies', 'earlier', 60_000);
    await checkpoints.advance('companies', 'earlier', { timepoint: 0, publishedAt: '2024-05-20T08:00:00' });
    await checkpoints.release('companies', 'earlier');
    const setAside = new DynamoSetAsideEvents(tables.doc, streamsTable());
    let calls = 0;
    const unreachable: ApplyEvents = async () => {
      calls++;
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' });
    };
    emulator.publish('companies', acmeProfile());

    // Act
    const result = await consumeUntil({ apply: unreachable, checkpoints, setAside }, () => calls >= 4);

    // Assert
    expect(result.checkpoint).toBe(0);
    expect(result.setAside).toBeUndefined();
    expect(await setAside.list()).toEqual([]);
  });
});

describe('new incorporations on the companies stream', () => {
  it('become register profiles at once: searchable by name, fetchable, indexed as an import indexes them', async () => {
    // Arrange
    await importMay();
    const incorporated = wire('companies', newIncorporation(), '2024-05-20T10:00:00');

    // Act
    const outcome = await apply('companies', [incorporated]);

    // Assert
    expect(outcome).toMatchObject({ applied: 1, unchanged: 0, skipped: 0 });
    const found = await searchCompanies(store, { q: 'newco robotics', jurisdiction: 'GB', limit: 5 });
    expect(found.items).toEqual([
      expect.objectContaining({ companyNumber: '16012345', name: 'NEWCO ROBOTICS LTD', status: 'active', incorporatedOn: '2024-05-20' }),
    ]);
    const byWord = await searchCompanies(store, { q: 'robotics', jurisdiction: 'GB', limit: 5 });
    expect(byWord.items.map((item) => item.companyNumber)).toContain('16012345');
    const profile = await new DynamoProfileReader(tables.doc, tables.names.companies as string).get('GB', '16012345');
    expect(profile).toMatchObject({
      dataSource: 'register',
      name: 'NEWCO ROBOTICS LTD',
      tradingStatus: { status: 'active' },
      overview: { incorporatedOn: '2024-05-20', sicCodes: ['62012'] },
    });
    expect(await stored('16012345')).toMatchObject({ version: 1 });
  });

  it('holds nothing for a company told of only by a partial profile, and creates the company once however often it comes', async () => {
    // Arrange
    const partial = wire(
      'companies',
      { ...newIncorporation(), data: { company_name: 'HALF TOLD LTD', company_status: 'active' } },
      '2024-05-20T10:00:00',
    );
    const whole = wire('companies', newIncorporation(), '2024-05-20T10:00:00');

    // Act
    const first = await apply('companies', [partial]);
    const created = await apply('companies', [whole]);
    const again = await apply('companies', [{ ...whole, timepoint: whole.timepoint + 100 }]);

    // Assert
    expect(first).toMatchObject({ applied: 0, unchanged: 0, skipped: 1 });
    expect(created).toMatchObject({ applied: 1, unchanged: 0, skipped: 0 });
    expect(again).toMatchObject({ applied: 0, unchanged: 1, skipped: 0 });
    expect(await stored('16012345')).toMatchObject({ version: 1 });
  });
});

/** Runs a consumer on the emulator until `until` holds, then stops it by its signal. */
async function consumeUntil(
  options: {
    apply: ApplyEvents;
    checkpoints: DynamoStreamCheckpoints;
    setAside?: DynamoSetAsideEvents;
    log?: Parameters<typeof consumeStream>[0]['log'];
    metrics?: Parameters<typeof consumeStream>[0]['metrics'];
  },
  until: () => boolean | Promise<boolean>,
  limitMs = 20_000,
): Promise<ConsumeResult> {
  const controller = new AbortController();
  const run = consumeStream({
    stream: 'companies',
    baseUrl: (emulator as RegisterStreamEmulator).url,
    streamKey: KEY,
    owner: `consumer-${Math.random().toString(36).slice(2)}`,
    signal: controller.signal,
    log: { info: () => {}, warn: () => {}, error: () => {} },
    batchWaitMs: 20,
    leaseRetryMs: 50,
    applyRetryMs: 20,
    ...options,
  });
  const started = Date.now();
  while (!(await until()) && Date.now() - started < limitMs) await new Promise((resolve) => setTimeout(resolve, 20));
  controller.abort();
  return run;
}
