import { fileURLToPath } from 'node:url';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { BLOCK_NAMES, type CompanyProfile } from '../../../shared/companies/profile';
import { profileKey } from '../../../shared/companies/search-index';
import { importProfiles, openImportFile } from '../../../shared/register/import/import';
import { createEventApplier } from '../../../shared/register/stream/apply-events';
import type { ApplyEvents, StreamEvent, StreamName } from '../../../shared/register/stream/stream-events';
import { companiesTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';

const MAY = fileURLToPath(new URL('../../fixtures/register/BasicCompanyData-2024-05-01-part1_1.csv', import.meta.url));
const ACME = '09446231';

let tables: TestTables;
let store: DynamoCompanyStore;
let apply: ApplyEvents;
let timepoint = 1000;

beforeEach(async () => {
  tables = await createTestTables([{ ...companiesTable, stream: undefined }]);
  store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
  apply = createEventApplier({ doc: tables.doc, companiesTable: tables.names.companies as string });
});

async function importMay(asOf?: string) {
  const source = await openImportFile(MAY, asOf ? { asOf } : {});
  return importProfiles(source.records, store);
}

const STREAM_OF_KIND: Record<string, StreamName> = {
  'company-profile': 'companies',
  'filing-history': 'filings',
  'company-charges': 'charges',
  'company-insolvency': 'insolvency-cases',
  'company-officers': 'officers',
  'company-psc-individual': 'persons-with-significant-control',
};

function event(kind: string, uri: string, data: Record<string, unknown>, publishedAt: string, id = uri): StreamEvent {
  return {
    stream: STREAM_OF_KIND[kind] as StreamName,
    resourceKind: kind,
    resourceUri: uri,
    resourceId: id,
    data,
    timepoint: timepoint++,
    publishedAt,
    type: 'changed',
  };
}

/** ACME as the company profile resource gives it, as of May's file, with what the test changes laid over. */
const acmeProfile = (overrides: Record<string, unknown> = {}) => ({
  company_name: 'ACME WIDGETS LIMITED',
  company_number: ACME,
  company_status: 'active',
  type: 'ltd',
  date_of_creation: '2015-02-20',
  registered_office_address: { address_line_1: '12 Foundry Lane', locality: 'Sheffield', country: 'England', postal_code: 'S1 4PL' },
  sic_codes: ['25990'],
  accounts: {
    next_due: '2024-05-31',
    last_accounts: { made_up_to: '2023-02-28', type: 'micro-entity' },
    accounting_reference_date: { day: '28', month: '02' },
  },
  confirmation_statement: { next_due: '2025-03-06', last_made_up_to: '2024-02-20' },
  has_charges: false,
  has_insolvency_history: false,
  ...overrides,
});

const companyEvent = (publishedAt: string, overrides: Record<string, unknown> = {}) =>
  event('company-profile', `/company/${ACME}`, acmeProfile(overrides), publishedAt);

const stored = async (number = ACME) =>
  (await tables.doc.send(new GetCommand({ TableName: tables.names.companies, Key: profileKey('GB', number) }))).Item as
    | (CompanyProfile & { factsAsOf?: Record<string, string>; registerSnapshot?: string })
    | undefined;

const kinds = (profile: CompanyProfile | undefined) => profile?.earlySignals.signals.map((signal) => `${signal.kind}:${signal.state}`);

describe('applying Streaming API events to the companies Bureau holds', () => {
  it('changes nothing when the company profile event says what the monthly file said', async () => {
    // Arrange
    await importMay();

    // Act
    const outcome = await apply('companies', [companyEvent('2024-05-02T09:00:00')]);

    // Assert
    expect(outcome).toMatchObject({ applied: 0, unchanged: 1, skipped: 0 });
    expect(await stored()).toMatchObject({ version: 1 });
  });

  it('derives a strike-off proposal from the company profile by the bulk rules, once, however often the event comes', async () => {
    // Arrange
    await importMay();
    const proposal = companyEvent('2024-05-20T10:15:00', { company_status_detail: 'active-proposal-to-strike-off' });

    // Act
    const first = await apply('companies', [proposal]);
    const again = await apply('companies', [proposal, { ...proposal, timepoint: timepoint++ }]);

    // Assert
    expect(first).toMatchObject({ applied: 1, unchanged: 0, skipped: 0 });
    expect(again).toMatchObject({ applied: 0, unchanged: 2, skipped: 0 });
    const acme = await stored();
    expect(acme).toMatchObject({
      version: 2,
      registerSnapshot: '2024-05-01',
      factsAsOf: { status: '2024-05-20T10:15:00' },
      tradingStatus: { status: 'active', registerStatus: 'Active - Proposal to Strike off', provenance: { asOf: '2024-05-20' } },
    });
    expect(acme?.riskOfFailure.drivers).toContain('The register proposes to strike the company off');
    expect(kinds(acme)).toContain('strike_off_proposed:active');
  });

  it('counts events for companies Bureau does not hold, unknown numbers and malformed resources as skipped, never throwing', async () => {
    // Arrange
    await importMay();

    // Act
    const outcome = await apply('charges', [
      event('company-charges', '/company/99999999/charges/abc', { status: 'outstanding', created_on: '2024-05-10' }, '2024-05-20T10:00:00'),
      event('company-charges', '/company/NOT-A-NUMBER/charges/abc', { status: 'outstanding' }, '2024-05-20T10:00:00'),
      event('company-charges', `/company/${ACME}/charges/abc`, { status: 'on-fire' }, '2024-05-20T10:00:00'),
      event('company-charges', `/company/${ACME}/charges/abc`, { status: 'outstanding', created_on: 'yesterday' }, '2024-05-20T10:00:00'),
    ]);

    // Assert
    expect(outcome).toMatchObject({ applied: 0, unchanged: 0, skipped: 4 });
    expect(await stored()).toMatchObject({ version: 1 });
    expect(await stored('99999999')).toBeUndefined();
  });

  it('turns charges into the counts the bulk file publishes, each charge counted once', async () => {
    // Arrange
    await importMay();
    const created = event(
      'company-charges',
      `/company/${ACME}/charges/x1`,
      { charge_number: 1, status: 'outstanding', created_on: '2024-05-12', delivered_on: '2024-05-14' },
      '2024-05-14T12:00:00',
    );
    const satisfied = event(
      'company-charges',
      `/company/${ACME}/charges/x1`,
      { charge_number: 1, status: 'fully-satisfied', created_on: '2024-05-12', satisfied_on: '2024-05-30' },
      '2024-05-30T12:00:00',
    );

    // Act
    const first = await apply('charges', [created, created]);
    const then = await apply('charges', [satisfied, created]);

    // Assert
    expect(first).toMatchObject({ applied: 1, unchanged: 1, skipped: 0 });
    expect(then).toMatchObject({ applied: 1, unchanged: 1, skipped: 0 });
    const acme = await stored();
    expect(acme?.earlySignals.provenance?.facts).toMatchObject({
      'Mortgages.NumMortCharges': '1',
      'Mortgages.NumMortSatisfied': '1',
      'stream.charges': '1:s',
    });
    expect(acme?.overview.provenance?.facts['Mortgages.NumMortOutstanding']).toBe('0');
    expect(kinds(acme)).toEqual(expect.arrayContaining(['charge_registered:active', 'charge_satisfied:active']));
  });

  it('reads accounts delivered after their deadline from the filing history as a late filing, with the real delivery date', async () => {
    // Arrange
    await importMay();

    // Act
    const outcome = await apply('filings', [
      event(
        'filing-history',
        `/company/${ACME}/filing-history/MzQ1`,
        { category: 'accounts', type: 'AA', date: '2024-06-10', description_values: { made_up_date: '2024-02-28' } },
        '2024-06-10T16:00:00',
      ),
      event(
        'filing-history',
        `/company/${ACME}/filing-history/MzQ2`,
        { category: 'officers', type: 'AP01', date: '2024-06-10' },
        '2024-06-10T16:00:01',
      ),
    ]);
    const profile = await apply('companies', [
      companyEvent('2024-06-11T08:00:00', {
        accounts: {
          next_due: '2025-11-30',
          last_accounts: { made_up_to: '2024-02-28', type: 'micro-entity' },
          accounting_reference_date: { day: '28', month: '02' },
        },
      }),
    ]);

    // Assert
    expect(outcome).toMatchObject({ applied: 1, unchanged: 0, skipped: 1 });
    expect(profile).toMatchObject({ applied: 1, unchanged: 0, skipped: 0 });
    const acme = await stored();
    expect(acme?.filingBehaviour).toMatchObject({
      lastAccountsFiledOn: '2024-06-10',
      lastAccountsMadeUpTo: '2024-02-28',
      accountsOverdue: false,
      lateFilingsLast5Years: 1,
      consistency: 'mostly_consistent',
    });
    expect(acme?.filingBehaviour.provenance?.facts['stream.filings.late']).toBe('accounts:2024-05-31');
  });

  it('raises the signals only the stream can give: officers, persons with significant control, Gazette notices, insolvency cases', async () => {
    // A first Gazette notice is the proposal to strike off itself: it raises strike_off_proposed, not a notice signal of its own.
    // Arrange
    await importMay();

    // Act
    await apply('officers', [
      event(
        'company-officers',
        `/company/${ACME}/appointments/a1`,
        { officer_role: 'director', appointed_on: '2024-05-15' },
        '2024-05-16T09:00:00',
      ),
      event(
        'company-officers',
        `/company/${ACME}/appointments/a2`,
        { officer_role: 'secretary', appointed_on: '2024-05-15' },
        '2024-05-16T09:00:01',
      ),
    ]);
    await apply('persons-with-significant-control', [
      event(
        'company-psc-individual',
        `/company/${ACME}/persons-with-significant-control/individual/p1`,
        { notified_on: '2024-05-17', natures_of_control: ['ownership-of-shares-75-to-100-percent'] },
        '2024-05-18T09:00:00',
      ),
    ]);
    await apply('filings', [
      event(
        'filing-history',
        `/company/${ACME}/filing-history/g1`,
        { category: 'gazette', type: 'GAZ1', date: '2024-05-21' },
        '2024-05-21T07:00:00',
      ),
    ]);
    await apply('insolvency-cases', [
      event(
        'company-insolvency',
        `/company/${ACME}/insolvency`,
        { cases: [{ type: 'creditors-voluntary-liquidation', dates: [{ type: 'wound-up-on', date: '2024-05-22' }] }] },
        '2024-05-22T12:00:00',
      ),
    ]);

    // Assert
    const acme = await stored();
    expect(kinds(acme)).toEqual(
      expect.arrayContaining(['director_appointed:active', 'psc_changed:active', 'strike_off_proposed:active', 'insolvency_case:active']),
    );
    expect(acme?.earlySignals.signals.find((signal) => signal.kind === 'insolvency_case')?.severity).toBe('critical');
    expect(acme?.earlySignals.provenance?.facts).toMatchObject({
      'stream.officers.lastAppointedOn': '2024-05-15',
      'stream.psc.lastChangedOn': '2024-05-17 notified',
      'stream.gazette.notice': 'GAZ1 2024-05-21',
      'stream.insolvency.latestCase': 'creditors-voluntary-liquidation 2024-05-22',
    });
    expect(acme).toMatchObject({ version: 5 });
  });
});

describe('the same company whichever source told us', () => {
  it('derives from next month’s events the very profiles next month’s file gives', async () => {
    // Arrange: one table told by June's file, another by events published as June's file was cut.
    const june = fileURLToPath(new URL('../../fixtures/register/BasicCompanyData-2024-06-01-part1_1.csv', import.meta.url));
    await importMay();
    const byFile = await createTestTables([{ ...companiesTable, stream: undefined }]);
    const fileStore = new DynamoCompanyStore(byFile.doc, byFile.names.companies as string);
    await importProfiles((await openImportFile(MAY)).records, fileStore);
    await importProfiles((await openImportFile(june)).records, fileStore);
    const at = '2024-06-01T00:00:00';

    // Act
    await apply('companies', [
      event(
        'company-profile',
        '/company/SC512345',
        { company_status: 'active', company_status_detail: 'active-proposal-to-strike-off' },
        at,
      ),
      event(
        'company-profile',
        '/company/12345678',
        {
          registered_office_address: {
            address_line_1: 'Uned 2, Parc Menter',
            locality: 'CAERFYRDDIN',
            country: 'WALES',
            postal_code: 'SA31 3RB',
          },
        },
        at,
      ),
      event(
        'company-profile',
        '/company/11111111',
        { company_name: 'ZEPHYR HOLDINGS LTD', previous_company_names: [{ name: 'BRIGHT IDEAS LTD', ceased_on: '2024-05-20' }] },
        at,
      ),
    ]);

    // Assert
    for (const number of ['SC512345', '12345678', '11111111']) {
      const fromEvents = await store.get('GB', number);
      const fromFile = await fileStore.get('GB', number);
      const { version: _v1, updatedAt: _u1, ...eventContent } = fromEvents as CompanyProfile;
      const { version: _v2, updatedAt: _u2, ...fileContent } = fromFile as CompanyProfile;
      // The same values; only the door differs: the blocks the events changed name the Streaming API.
      const told = BLOCK_NAMES.filter((block) => eventContent[block].provenance?.source === 'companies-house-streaming-api');
      expect(told.length, number).toBeGreaterThan(0);
      const asFiled = Object.fromEntries(
        BLOCK_NAMES.map((block) => [
          block,
          { ...eventContent[block], provenance: { ...eventContent[block].provenance, source: 'companies-house-basic-company-data' } },
        ]),
      );
      // A moved score keeps the one it replaced, stamped with each store's own moment of writing.
      const written = (content: Omit<CompanyProfile, 'version' | 'updatedAt'>) => {
        const previous = content.riskOfFailure.previous;
        return previous
          ? { ...content, riskOfFailure: { ...content.riskOfFailure, previous: { ...previous, replacedAt: 'at the write' } } }
          : content;
      };
      expect(written({ ...eventContent, ...asFiled } as typeof eventContent), number).toEqual(written(fileContent));
    }
  });
});

describe('never an older fact over a newer one', () => {
  const moved = (publishedAt: string, line: string) =>
    companyEvent(publishedAt, {
      registered_office_address: { address_line_1: line, locality: 'Leeds', country: 'England', postal_code: 'LS1 1AA' },
    });

  it('refuses an event older than the stored fact, in one batch or in two', async () => {
    // Arrange
    await importMay();

    // Act
    const batch = await apply('companies', [moved('2024-05-20T10:00:00', '1 New Street'), moved('2024-05-19T10:00:00', '9 Old Street')]);
    const late = await apply('companies', [moved('2024-05-18T10:00:00', '7 Older Street')]);

    // Assert
    expect(batch).toMatchObject({ applied: 1, unchanged: 1, skipped: 0 });
    // The country is the same fact in either spelling: the stored one stays.
    expect(late).toMatchObject({ applied: 0, unchanged: 1, skipped: 0 });
    expect((await stored())?.overview.registeredOffice).toBe('1 New Street, Leeds, ENGLAND, LS1 1AA');
  });

  it('keeps a stream event newer than a snapshot through that snapshot’s import, and lets a later snapshot replace it', async () => {
    // Arrange
    await importMay('2024-05-01');
    await apply('companies', [moved('2024-05-20T10:00:00', '1 New Street')]);

    // Act
    const older = await importMay('2024-05-15');
    const afterOlder = await stored();
    const newer = await importMay('2024-06-01');
    const afterNewer = await stored();

    // Assert
    expect(older).toMatchObject({ rejected: 0 });
    expect(afterOlder).toMatchObject({ registerSnapshot: '2024-05-15' });
    expect(afterOlder?.overview.registeredOffice).toBe('1 New Street, Leeds, ENGLAND, LS1 1AA');
    expect(newer).toMatchObject({ rejected: 0 });
    expect(afterNewer?.overview.registeredOffice).toBe('12 Foundry Lane, SHEFFIELD, ENGLAND, S1 4PL');
  });

  it('lets two imports creating the same companies at once settle on the newer snapshot, whichever wrote last', async () => {
    // Act
    const [older, newer] = await Promise.all([
      importMay('2024-05-01'),
      importProfiles(
        (await openImportFile(MAY, { asOf: '2024-05-15' })).records,
        new DynamoCompanyStore(tables.doc, tables.names.companies as string),
      ),
    ]);

    // Assert
    expect(newer).toMatchObject({ rejected: 0 });
    expect(older.created + older.updated + older.unchanged + older.rejected).toBe(11);
    for (const number of [ACME, 'SC512345']) expect(await stored(number)).toMatchObject({ registerSnapshot: '2024-05-15' });
  });

  it('lets two appliers racing on one company keep each other’s facts, the newer statement winning', async () => {
    // Arrange
    await importMay();
    const other = createEventApplier({ doc: tables.doc, companiesTable: tables.names.companies as string });

    // Act
    await Promise.all([
      apply('companies', [moved('2024-05-20T10:00:00', '1 New Street')]),
      other('companies', [moved('2024-05-19T10:00:00', '9 Old Street')]),
      other('officers', [
        event(
          'company-officers',
          `/company/${ACME}/appointments/a1`,
          { officer_role: 'director', resigned_on: '2024-05-18' },
          '2024-05-18T09:00:00',
        ),
      ]),
      apply('persons-with-significant-control', [
        event(
          'company-psc-individual',
          `/company/${ACME}/persons-with-significant-control/individual/p1`,
          { ceased_on: '2024-05-17' },
          '2024-05-17T09:00:00',
        ),
      ]),
    ]);

    // Assert
    const acme = await stored();
    expect(acme?.overview.registeredOffice).toBe('1 New Street, Leeds, ENGLAND, LS1 1AA');
    expect(acme?.earlySignals.provenance?.facts).toMatchObject({
      'stream.officers.lastResignedOn': '2024-05-18',
      'stream.psc.lastChangedOn': '2024-05-17 ceased',
    });
    expect(kinds(acme)).toEqual(expect.arrayContaining(['director_resigned:active', 'psc_changed:active']));
  });
});
