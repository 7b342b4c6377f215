import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import type { CompanyProfile, EarlySignal } from '../../../shared/companies/profile';
import { profileKey } from '../../../shared/companies/search-index';
import { importProfiles, openImportFile } from '../../../shared/register/import/import';
import { createEventApplier } from '../../../shared/register/stream/apply-events';
import { type ApplyEvents, parseStreamLine } from '../../../shared/register/stream/stream-events';
import { companiesTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';
import {
  acmeProfile,
  appointment,
  brightIdeasProfile,
  charge,
  control,
  filing,
  insolvency,
  oldMillProfile,
  wire,
  wireLine,
} from './fixtures/companies-house-wire';

/**
 * What the Companies House stream means, told by events in its own wire format over companies
 * imported from May's file: news is what differs from what Bureau was told, by the resource's
 * identity, never a record republished because some other field of it changed.
 */

const MAY = fileURLToPath(new URL('../../fixtures/register/BasicCompanyData-2024-05-01-part1_1.csv', import.meta.url));
const ACME = '09446231';
const OLD_MILL = '01234567';

let tables: TestTables;
let apply: ApplyEvents;

type StoredItem = CompanyProfile & { factsAsOf?: Record<string, string> };

beforeEach(async () => {
  tables = await createTestTables([{ ...companiesTable, stream: undefined }]);
  apply = createEventApplier({ doc: tables.doc, companiesTable: tables.names.companies as string });
  const store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
  expect(await importProfiles((await openImportFile(MAY)).records, store)).toMatchObject({ rejected: 0 });
});

const stored = async (number: string) =>
  (await tables.doc.send(new GetCommand({ TableName: tables.names.companies, Key: profileKey('GB', number) }))).Item as StoredItem;

const signalsOf = async (number: string, kind?: string): Promise<EarlySignal[]> =>
  (await stored(number)).earlySignals.signals.filter((signal) => kind === undefined || signal.kind === kind);

const states = async (number: string) => (await signalsOf(number)).map((signal) => `${signal.kind}:${signal.state}`);

describe('officers and persons with significant control: news by identity, not by date', () => {
  it('raises nothing for an appointment of years ago republished because another field of it changed', async () => {
    // The register republishes a 2018 appointment when the director's identity is verified.
    const republished = wire(
      'officers',
      appointment(ACME, 'gE7Pw_lx4HWJvqSfwqudfusS9Ig', { appointedOn: '2018-09-24' }),
      '2024-05-20T10:11:12',
      ['identity_verification_details'],
    );
    const resignedLongAgo = wire(
      'officers',
      appointment(ACME, 'Qk9aN3b0Xc1_vTq8WmYpLr2sJd4', { appointedOn: '2012-03-01', resignedOn: '2016-07-31', name: 'SMITH, Amelia' }),
      '2024-05-20T10:11:13',
      ['address'],
    );

    const outcome = await apply('officers', [republished, resignedLongAgo]);

    expect(outcome).toMatchObject({ applied: 0, unchanged: 2, skipped: 0 });
    expect(await states(ACME)).toEqual([]);
    expect((await stored(ACME)).version).toBe(1);
  });

  it('raises one signal for a new appointment and one for a resignation, and none for their republications', async () => {
    const known = appointment(ACME, 'gE7Pw_lx4HWJvqSfwqudfusS9Ig', { appointedOn: '2018-09-24' });
    const newcomer = appointment(ACME, 'Zr4Kp0qWd9_sLm2NvBx7Yt1cHa8', { appointedOn: '2024-05-15', name: 'PATEL, Priya' });

    await apply('officers', [wire('officers', known, '2024-05-10T09:00:00', ['identity_verification_details'])]);
    await apply('officers', [wire('officers', newcomer, '2024-05-16T09:00:00')]);
    await apply('officers', [wire('officers', known, '2024-05-20T09:00:00', ['address'])]);
    await apply('officers', [
      wire(
        'officers',
        {
          ...newcomer,
          data: {
            ...newcomer.data,
            address: { premises: '3', address_line_1: 'Cutlers Walk', locality: 'Sheffield', postal_code: 'S1 2GH' },
          },
        },
        '2024-06-25T09:00:00',
        ['address'],
      ),
    ]);
    // The director of 2018 leaves: the resignation is new on an appointment the company's memory held as serving.
    const resigned = appointment(ACME, 'gE7Pw_lx4HWJvqSfwqudfusS9Ig', { appointedOn: '2018-09-24', resignedOn: '2024-06-20' });
    await apply('officers', [wire('officers', resigned, '2024-06-21T09:00:00', ['resigned_on'])]);
    await apply('officers', [wire('officers', resigned, '2024-07-30T09:00:00', ['links'])]);

    const appointed = await signalsOf(ACME, 'director_appointed');
    const resignations = await signalsOf(ACME, 'director_resigned');
    expect(appointed.map((signal) => signal.summary)).toEqual(['A director was appointed on 2024-05-15']);
    expect(resignations.map((signal) => signal.summary)).toEqual(['A director resigned on 2024-06-20']);
    expect(appointed[0]?.detectedAt).toBe('2024-05-16T00:00:00Z');
  });

  it('keeps what it was told of each appointment by id, compact and bounded, on the stored item', async () => {
    // A large company: 400 appointments, most of them long past, republished when the register reissued its links.
    const events = Array.from({ length: 400 }, (_, n) =>
      wire(
        'officers',
        appointment(OLD_MILL, `${String(n).padStart(4, '0')}Kp0qWd9_sLm2NvBx7Yt1cH`, {
          appointedOn: `19${String(80 + (n % 20)).padStart(2, '0')}-01-01`,
          ...(n % 3 === 0 ? { resignedOn: '2001-01-01' } : {}),
        }),
        '2024-05-20T09:00:00',
        ['links'],
      ),
    );

    expect(await apply('officers', events)).toMatchObject({ applied: 0, unchanged: 400, skipped: 0 });

    const item = await stored(OLD_MILL);
    const known = (item.factsAsOf?.['known.officers'] ?? '').split(' ');
    expect(known).toHaveLength(300);
    expect(known[0]).toMatch(/^[A-Za-z0-9_-]{16}=\d{8}\/(\d{8})?$/);
    expect(JSON.stringify(item).length).toBeLessThan(40_000);
    expect(await states(OLD_MILL)).toEqual([]);
    expect(item.version).toBe(1);
  });

  it('tells a person with significant control newly notified, and one known to the company who ceased, from one republished', async () => {
    const founder = control(ACME, 'L2m6DxTJA0pkUNh9SIcJY8_cdWE', { notifiedOn: '2016-04-06' });
    await apply('persons-with-significant-control', [
      wire('persons-with-significant-control', founder, '2024-05-12T08:00:00', ['address']),
    ]);
    const republishedOnly = await states(ACME);

    await apply('persons-with-significant-control', [
      wire(
        'persons-with-significant-control',
        control(ACME, 'Vb7nWq2Lx9_Tz4Rk1Ps8Md3Hf6', { notifiedOn: '2024-05-17' }),
        '2024-05-18T08:00:00',
      ),
    ]);
    await apply('persons-with-significant-control', [
      wire(
        'persons-with-significant-control',
        control(ACME, 'L2m6DxTJA0pkUNh9SIcJY8_cdWE', { notifiedOn: '2016-04-06', ceasedOn: '2024-05-17' }),
        '2024-05-19T08:00:00',
        ['ceased_on', 'ceased'],
      ),
    ]);

    expect(republishedOnly).toEqual([]);
    expect((await signalsOf(ACME, 'psc_changed')).map((signal) => `${signal.id}:${signal.state}:${signal.summary}`)).toEqual([
      'psc_changed-2024-05-18:superseded:A person with significant control was notified on 2024-05-17',
      'psc_changed-2024-05-19:active:A person with significant control ceased to be one on 2024-05-17',
    ]);
  });
});

describe('registered office: the address as the register means it', () => {
  it('finds no move in the API splitting premises from the first line the bulk file joins, in either cut or spelling', async () => {
    // ACME's bulk line "12 Foundry Lane"; OLD MILL's "The Old Mill" / "Mill Road" over two lines.
    const outcome = await apply('companies', [
      wire('companies', acmeProfile(), '2024-05-02T09:00:00', ['accounts.next_made_up_to']),
      wire('companies', oldMillProfile(), '2024-05-02T09:00:01', ['links']),
      wire(
        'companies',
        acmeProfile({
          registered_office_address: {
            premises: '12,',
            address_line_1: 'FOUNDRY LANE',
            locality: 'SHEFFIELD',
            postal_code: 'S1 4PL',
            country: 'England',
          },
        }),
        '2024-05-03T09:00:00',
        ['etag'],
      ),
    ]);

    expect(outcome).toMatchObject({ applied: 0, unchanged: 3, skipped: 0 });
    expect(await signalsOf(ACME, 'registered_office_changed')).toEqual([]);
    expect(await signalsOf(OLD_MILL, 'registered_office_changed')).toEqual([]);
    expect((await stored(ACME)).overview.registeredOffice).toBe('12 Foundry Lane, SHEFFIELD, ENGLAND, S1 4PL');
  });

  it('raises a move once when the address really differs, built from the API’s parts as the bulk file joins them', async () => {
    const moved = acmeProfile({
      registered_office_address: {
        premises: 'Unit 3',
        address_line_1: 'Cutlers Walk',
        locality: 'Sheffield',
        country: 'England',
        postal_code: 'S1 2GH',
      },
    });

    await apply('companies', [wire('companies', moved, '2024-05-20T09:00:00', ['registered_office_address'])]);
    await apply('companies', [wire('companies', moved, '2024-05-28T09:00:00', ['etag'])]);

    const moves = await signalsOf(ACME, 'registered_office_changed');
    expect(moves.map((signal) => `${signal.summary}:${signal.state}`)).toEqual([
      // The parts that did not change keep the file's spelling.
      'Registered office moved to Unit 3 Cutlers Walk, SHEFFIELD, ENGLAND, S1 2GH:active',
    ]);
    expect((await stored(ACME)).overview.provenance?.facts['RegAddress.AddressLine1']).toBe('Unit 3 Cutlers Walk');
  });
});

describe('charges: news by charge, with whom and what it secures', () => {
  it('raises a registration naming the lender and the floating charge, a satisfaction once, and nothing for republications', async () => {
    const created = charge(ACME, 'Rm5Qx2_hT8vKp3LzN0wYc7Ja1Bd', {
      number: 1,
      status: 'outstanding',
      createdOn: '2024-05-12',
      deliveredOn: '2024-05-14',
      lender: 'Lloyds Bank PLC',
    });
    const satisfied = charge(ACME, 'Rm5Qx2_hT8vKp3LzN0wYc7Ja1Bd', {
      number: 1,
      status: 'fully-satisfied',
      createdOn: '2024-05-12',
      deliveredOn: '2024-05-14',
      satisfiedOn: '2024-05-29',
      lender: 'Lloyds Bank PLC',
    });

    await apply('charges', [wire('charges', created, '2024-05-14T12:00:00')]);
    await apply('charges', [wire('charges', created, '2024-05-20T12:00:00', ['transactions'])]);
    await apply('charges', [wire('charges', satisfied, '2024-05-30T12:00:00', ['status', 'satisfied_on'])]);
    await apply('charges', [wire('charges', satisfied, '2024-05-31T08:00:00', ['links'])]);

    expect((await signalsOf(ACME, 'charge_registered')).map((signal) => signal.summary)).toEqual([
      'Charge 1 registered in favour of Lloyds Bank PLC, created on 2024-05-14: a floating charge covering all the property of the company',
    ]);
    expect((await signalsOf(ACME, 'charge_satisfied')).map((signal) => signal.summary)).toEqual([
      'Charge 1 in favour of Lloyds Bank PLC satisfied on 2024-05-29 (a floating charge covering all the property of the company)',
    ]);
  });

  it('moves no count for a charge satisfied before the snapshot counted it, republished without its satisfaction date', async () => {
    // OLD MILL's file: three charges, two outstanding, one satisfied; the satisfied one of 1999 is republished.
    const old = charge(OLD_MILL, 'Cq1Lp9_vWz3TnB7xKr5Ys2Hd8Mf', {
      number: 2,
      status: 'fully-satisfied',
      createdOn: '1999-03-15',
      coversAll: false,
    });

    const outcome = await apply('charges', [wire('charges', old, '2024-05-20T12:00:00', ['links'])]);

    expect(outcome).toMatchObject({ applied: 0, unchanged: 1, skipped: 0 });
    expect(await signalsOf(OLD_MILL, 'charge_satisfied')).toEqual([]);
    const oldMill = await stored(OLD_MILL);
    expect(oldMill.version).toBe(1);
    expect(oldMill.overview.provenance?.facts['Mortgages.NumMortOutstanding']).toBe('2');
    expect(oldMill.earlySignals.provenance?.facts['Mortgages.NumMortSatisfied']).toBe('1');
  });
});

describe('insolvency by case type', () => {
  const mvl = insolvency('11111111', [
    {
      type: 'members-voluntary-liquidation',
      number: 1,
      dates: [
        { type: 'declaration-solvent-on', date: '2024-05-20' },
        { type: 'wound-up-on', date: '2024-05-22' },
      ],
    },
  ]);

  it('reads a members’ voluntary liquidation as a solvent winding up: a warning, not insolvency, and not scored as failing', async () => {
    await apply('insolvency-cases', [wire('insolvency-cases', mvl, '2024-05-23T10:00:00')]);
    await apply('companies', [
      wire('companies', brightIdeasProfile({ company_status: 'liquidation', has_insolvency_history: true }), '2024-05-23T10:00:01', [
        'company_status',
        'has_insolvency_history',
      ]),
    ]);

    const bright = await stored('11111111');
    expect(bright.tradingStatus).toMatchObject({ status: 'liquidation', registerStatus: 'Liquidation' });
    expect(bright.earlySignals.signals.map((signal) => `${signal.kind}:${signal.severity}:${signal.state}`)).toEqual([
      'members_voluntary_liquidation:warning:active',
    ]);
    expect(bright.riskOfFailure).toMatchObject({ score: 50, level: 'Moderate' });
    expect(bright.riskOfFailure.drivers[0]).toMatch(/members' voluntary liquidation: a solvent winding up/);
    expect(bright.creditCapacity.drivers).not.toContain('None for Severe risk');
  });

  it('raises a creditors’ voluntary liquidation once, and settles it when the case concludes instead of raising another', async () => {
    const opened = insolvency('10000001', [
      { type: 'creditors-voluntary-liquidation', number: 1, dates: [{ type: 'wound-up-on', date: '2024-05-21' }] },
    ]);
    const concluded = insolvency('10000001', [
      {
        type: 'creditors-voluntary-liquidation',
        number: 1,
        dates: [
          { type: 'wound-up-on', date: '2024-05-21' },
          { type: 'concluded-winding-up-on', date: '2024-06-28' },
          { type: 'dissolved-on', date: '2024-09-30' },
        ],
      },
    ]);

    await apply('insolvency-cases', [wire('insolvency-cases', opened, '2024-05-22T10:00:00')]);
    await apply('insolvency-cases', [wire('insolvency-cases', opened, '2024-06-02T10:00:00', ['cases'])]);
    await apply('insolvency-cases', [wire('insolvency-cases', concluded, '2024-06-29T10:00:00', ['cases'])]);

    const cases = await signalsOf('10000001', 'insolvency_case');
    expect(cases.map((signal) => `${signal.summary}:${signal.severity}:${signal.state}`)).toEqual([
      "Insolvency case opened: creditors' voluntary liquidation, from 2024-05-21:critical:expired",
    ]);
  });

  it('tells administration and receivership apart, and raises nothing for a case that ended years ago', async () => {
    await apply('insolvency-cases', [
      wire(
        'insolvency-cases',
        insolvency('00445790', [
          {
            type: 'in-administration',
            number: 1,
            dates: [
              { type: 'administration-started-on', date: '2009-02-02' },
              { type: 'administration-ended-on', date: '2010-02-01' },
            ],
          },
        ]),
        '2024-05-20T10:00:00',
        ['etag'],
      ),
      wire(
        'insolvency-cases',
        insolvency('NI012345', [{ type: 'administrative-receiver', number: 1, dates: [{ type: 'instrumented-on', date: '2024-05-18' }] }]),
        '2024-05-20T10:00:01',
      ),
    ]);

    expect((await signalsOf('00445790')).filter((signal) => /insolvency/.test(signal.kind))).toEqual([]);
    expect((await signalsOf('NI012345', 'insolvency_case')).map((signal) => signal.summary)).toEqual([
      'Insolvency case opened: administrative receivership, from 2024-05-18',
    ]);
  });
});

describe('striking off by the Gazette notice’s code', () => {
  const notice = (number: string, transaction: string, type: string, date: string, description: string) =>
    filing(number, transaction, { category: 'gazette', type, date, description });

  it('raises the proposal on GAZ1, keeps one signal when the profile says it too, and settles it on DISS40', async () => {
    await apply('filings', [
      wire('filings', notice(ACME, 'MzQxNjY2MDg3NGFkaXF6a2N4', 'GAZ1', '2024-05-21', 'gazette-notice-compulsory'), '2024-05-21T07:00:00'),
    ]);
    await apply('companies', [
      wire(
        'companies',
        acmeProfile({ company_status: 'active', company_status_detail: 'active-proposal-to-strike-off' }),
        '2024-05-21T07:30:00',
        ['company_status_detail'],
      ),
    ]);
    const proposed = await signalsOf(ACME, 'strike_off_proposed');
    await apply('filings', [
      wire(
        'filings',
        notice(ACME, 'MzQxODk5MjQ1MGFkaXF6a2N4', 'DISS40', '2024-06-04', 'gazette-filings-brought-up-to-date'),
        '2024-06-04T07:00:00',
      ),
    ]);

    expect(proposed.map((signal) => `${signal.id}:${signal.severity}:${signal.state}`)).toEqual([
      'strike_off_proposed-2024-05-21:critical:active',
    ]);
    expect(proposed[0]?.summary).toBe(
      'The register proposes to strike the company off (Gazette notice GAZ1 (proposal to strike off) of 2024-05-21)',
    );
    const acme = await stored(ACME);
    expect(acme.tradingStatus.registerStatus).toBe('Active');
    expect(acme.earlySignals.signals.filter((signal) => signal.kind === 'strike_off_proposed').map((signal) => signal.state)).toEqual([
      'expired',
    ]);
    expect(acme.riskOfFailure.drivers).not.toContain('The register proposes to strike the company off');
    expect(acme.earlySignals.signals.map((signal) => signal.kind)).not.toContain('gazette_notice');
  });

  it('reads a suspension, DISS16(SOAD), as settling the proposal too', async () => {
    await apply('filings', [
      wire('filings', notice(ACME, 'MzQxNjY2MDg3NGFkaXF6a2N5', 'GAZ1', '2024-05-21', 'gazette-notice-compulsory'), '2024-05-21T07:00:00'),
    ]);
    await apply('filings', [
      wire(
        'filings',
        notice(ACME, 'MzQxODk5MjQ1MGFkaXF6a2N5', 'DISS16(SOAD)', '2024-05-29', 'gazette-strike-off-action-suspended'),
        '2024-05-29T07:00:00',
      ),
    ]);

    expect(await states(ACME)).toEqual(['strike_off_proposed:expired']);
  });

  it('reads GAZ2 as the company dissolved, not as another notice of striking off', async () => {
    // GONE AWAY LIMITED had a proposal in May's file.
    await apply('filings', [
      wire(
        'filings',
        notice('07654321', 'MzQyMDAxMjM0NWFkaXF6a2N4', 'GAZ2', '2024-05-28', 'gazette-dissolved-compulsory'),
        '2024-05-28T07:00:00',
      ),
    ]);

    const gone = await stored('07654321');
    expect(gone.tradingStatus).toMatchObject({ status: 'dissolved', since: '2024-05-28' });
    expect(
      gone.earlySignals.signals
        .filter((signal) => ['strike_off_proposed', 'dissolved', 'gazette_notice'].includes(signal.kind))
        .map((signal) => `${signal.id}:${signal.state}`),
    ).toEqual(['strike_off_proposed-2024-05-01:expired', 'dissolved-2024-05-28:active']);
  });

  it('raises nothing for a proposal of years ago republished', async () => {
    const outcome = await apply('filings', [
      wire('filings', notice(ACME, 'MzIwMTkwMzEyNGFkaXF6a2N4', 'GAZ1', '2019-03-12', 'gazette-notice-compulsory'), '2024-05-20T07:00:00', [
        'links',
      ]),
    ]);

    expect(outcome).toMatchObject({ applied: 0, unchanged: 1, skipped: 0 });
    expect(await states(ACME)).toEqual([]);
  });
});

describe('registrable beneficial owners of overseas entities', () => {
  it('reads the beneficial-owner kinds the persons-with-significant-control stream carries, and applies them as PSC facts', async () => {
    // An overseas entity in a file of its own, as the bulk product lists it.
    const header = (await readFile(MAY, 'utf8')).split('\n')[0] as string;
    const row = `"HARBOUR HOLDINGS (JERSEY) LIMITED","OE012345","","","22 Esplanade","","ST HELIER","","JERSEY","JE2 3QA","Overseas Entity","Registered","Jersey","","12/09/2022","","","","","NO ACCOUNTS FILED","","","0","0","0","0","None Supplied","","","","0","0","http://business.data.gov.uk/id/company/OE012345"${',""'.repeat(20)},"",""`;
    const file = join(await mkdtemp(join(tmpdir(), 'bureau-oe-')), 'BasicCompanyData-2024-05-01-part1_1.csv');
    await writeFile(file, `${header}\n${row}\n`);
    const store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
    expect(await importProfiles((await openImportFile(file)).records, store)).toMatchObject({ created: 1, rejected: 0 });

    const owner = control('OE012345', 'Jb3Wn8_qRt5Kx1Lm9Pz2Vc7Hd4', { notifiedOn: '2024-05-16', kind: 'individual-beneficial-owner' });
    const corporate = control('OE012345', 'Tn6Yq1_wEr4Kz8Lm2Px5Vb9Hc3', {
      notifiedOn: '2022-09-12',
      kind: 'corporate-entity-beneficial-owner',
    });
    expect(parseStreamLine('persons-with-significant-control', wireLine(owner, '2024-05-17T09:00:00'))).toMatchObject({
      ok: true,
      event: { resourceKind: 'individual-beneficial-owner' },
    });

    const outcome = await apply('persons-with-significant-control', [
      wire('persons-with-significant-control', owner, '2024-05-17T09:00:00'),
      wire('persons-with-significant-control', corporate, '2024-05-17T09:00:01', ['address']),
    ]);

    expect(outcome).toMatchObject({ applied: 1, unchanged: 1, skipped: 0 });
    expect((await signalsOf('OE012345', 'psc_changed')).map((signal) => signal.summary)).toEqual([
      'A person with significant control was notified on 2024-05-16',
    ]);
  });
});
