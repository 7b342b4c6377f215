import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DemoAccountsDay, PENDING_FILE, startDemoAccountsDay } from '../../../local/demo-accounts-day';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { importProfiles, openImportFile } from '../../../shared/register/import/import';
import { createEventApplier } from '../../../shared/register/stream/apply-events';
import type { StreamEvent } from '../../../shared/register/stream/stream-events';
import { companiesTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';

/**
 * The local runtime's demo accounts: a company the local register says filed accounts gets figures
 * from a demo file named as the runtime's own, once its profile shows the filing, and a filing whose
 * figures a crash cut off is filed after the next start.
 */
const MAY = fileURLToPath(new URL('../../fixtures/register/BasicCompanyData-2024-05-01-part1_1.csv', import.meta.url));
const ACME = '09446231';
const TODAY = '2026-11-28';
const now = () => Date.parse(`${TODAY}T10:00:00Z`);

let tables: TestTables;
let store: DynamoCompanyStore;
let folder: string;
const started: DemoAccountsDay[] = [];
const logged: string[] = [];

beforeEach(async () => {
  tables = await createTestTables([{ ...companiesTable, stream: undefined }]);
  store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
  folder = mkdtempSync(join(tmpdir(), 'demo-accounts-day-'));
  logged.length = 0;
  // The May file lists ACME's accounts to 2023-02-28, and no figures: as a filing the stream told of just before a crash leaves it.
  await importProfiles((await openImportFile(MAY)).records, store);
});

afterEach(async () => {
  for (const day of started.splice(0)) await day.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** A job that runs its rounds only when the test asks (its timer is an hour). */
function start(roundMs = 3_600_000): DemoAccountsDay {
  const day = startDemoAccountsDay({
    doc: tables.doc,
    companiesTable: tables.names.companies as string,
    folder,
    log: (line) => logged.push(line),
    logError: (message, error) => {
      throw new Error(`${message}: ${String(error)}`);
    },
    roundMs,
    now,
  });
  started.push(day);
  return day;
}

/** ACME's company profile event as the local register publishes it when ACME files accounts made up to `madeUpTo`. */
function accountsFiled(madeUpTo: string, timepoint: number): StreamEvent {
  return {
    stream: 'companies',
    resourceKind: 'company-profile',
    resourceUri: `/company/${ACME}`,
    resourceId: ACME,
    timepoint,
    publishedAt: `${TODAY}T09:30:00`,
    type: 'changed',
    data: {
      company_name: 'ACME WIDGETS LIMITED',
      company_number: ACME,
      company_status: 'active',
      type: 'ltd',
      date_of_creation: '2015-02-20',
      registered_office_address: { address_line_1: '12 Foundry Lane', locality: 'Sheffield', country: 'England', postal_code: 'S1 4PL' },
      sic_codes: ['25990'],
      accounts: {
        next_due: '2025-11-30',
        last_accounts: { made_up_to: madeUpTo, period_end_on: madeUpTo, type: 'micro-entity' },
        accounting_reference_date: { day: '28', month: '02' },
      },
      confirmation_statement: { next_due: '2025-03-06', last_made_up_to: '2024-02-20' },
      has_charges: false,
      has_insolvency_history: false,
    },
  };
}

const acme = async () => (await store.get('GB', ACME))?.overview.financials;

describe('the local runtime files demo accounts for its companies', () => {
  it('files after the next start what it was told of before a crash, and forgets it once filed', async () => {
    // Arrange: told of ACME's accounts, then stopped before any round, as a kill -9 would leave it.
    const before = start();
    before.noticeFiled(ACME, '2023-02-28');
    expect(JSON.parse(readFileSync(join(folder, PENDING_FILE), 'utf8'))).toEqual({ [ACME]: '2023-02-28' });
    await before.stop();

    // Act
    const day = start();
    const caughtUp = await day.caughtUp;
    const round = await day.runRound();

    // Assert
    expect(caughtUp).toEqual({ found: 1 });
    expect(round).toMatchObject({ pending: 1, filed: 1, updated: 1, waiting: 0, archive: `Bureau_Demo_Accounts-${TODAY}.zip` });
    expect(await acme()).toMatchObject({
      periodEnd: '2023-02-28',
      provenance: { source: 'bureau-local-accounts', archive: `Bureau_Demo_Accounts-${TODAY}.zip` },
    });
    expect(readdirSync(folder).sort()).toEqual([`Bureau_Demo_Accounts-${TODAY}.zip`, PENDING_FILE]);
    expect(logged).toContain('Demo accounts: 1 filing pending at the last stop; filing them.');
    expect(logged.at(-1)).toMatch(/^Demo accounts: 1 filed in Bureau_Demo_Accounts-2026-11-28\.zip, 1 profiles updated/);
    expect(JSON.parse(readFileSync(join(folder, PENDING_FILE), 'utf8'))).toEqual({});
  });

  it('files a filing it was told of once the profile shows it, and waits while it does not', async () => {
    // Arrange: ACME's figures to 2023-02-28 are in; the register then files the next year's accounts.
    const day = start();
    await day.caughtUp;
    await day.runRound();
    const apply = createEventApplier({ doc: tables.doc, companiesTable: tables.names.companies as string, feed: 'bureau-local-stream' });

    // Act: told before the stream consumer applied the event, then after.
    day.noticeFiled(ACME, '2024-02-29');
    const early = await day.runRound();
    expect(await apply('companies', [accountsFiled('2024-02-29', 5000)])).toMatchObject({ applied: 1 });
    const late = await day.runRound();
    const after = await day.runRound();

    // Assert
    expect(early).toMatchObject({ pending: 1, filed: 0, waiting: 1 });
    expect(late).toMatchObject({ pending: 1, filed: 1, updated: 1, waiting: 0 });
    expect(after).toMatchObject({ pending: 0 });
    expect(await acme()).toMatchObject({ periodEnd: '2024-02-29', provenance: { source: 'bureau-local-accounts' } });
    expect(logged).toContain('Demo accounts: 0 filed, 0 profiles updated, 1 waiting for the stream.');
  });

  it('leaves a company whose profile never shows the filing to the next start, and an unknown one alike', async () => {
    const day = start();
    await day.caughtUp;
    await day.runRound();
    day.noticeFiled(ACME, '2030-02-28');
    day.noticeFiled('99999999', '2024-02-29');

    const rounds = [];
    for (let round = 0; round < 8; round++) rounds.push(await day.runRound());

    expect(rounds.slice(0, 7).every((round) => round.waiting === 2)).toBe(true);
    expect(rounds[7]).toMatchObject({ pending: 2, waiting: 0, gaveUp: 2 });
    expect(await day.runRound()).toMatchObject({ pending: 0 });
    // Kept for the next start, which tries them again.
    expect(JSON.parse(readFileSync(join(folder, PENDING_FILE), 'utf8'))).toEqual({ [ACME]: '2030-02-28', '99999999': '2024-02-29' });
  });

  it('runs its rounds on its own timer, and stops with nothing left running', async () => {
    const day = start(50);
    await day.caughtUp;
    day.noticeFiled(ACME, '2023-02-28');

    await expect.poll(acme, { timeout: 10_000, interval: 50 }).toMatchObject({ periodEnd: '2023-02-28' });
    await day.stop();
    const logLines = logged.length;
    day.noticeFiled(ACME, '2024-02-29');
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(logged.length).toBe(logLines);
  });
});
