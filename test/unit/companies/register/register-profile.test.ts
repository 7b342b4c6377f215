import { createReadStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CompanyProfile, ProfileContent } from '../../../../shared/companies/profile';
import { validateProfileContent } from '../../../../shared/companies/profile-validation';
import { goneProfile } from '../../../../shared/register/import/gone-companies';
import { changeKindsOf } from '../../../../shared/register/import/import';
import { LaterSnapshotStoredError, registerProfile } from '../../../../shared/register/register-profile';
import type { SnapshotFacts } from '../../../../shared/register/snapshot-facts';
import { readSnapshot } from '../../../../shared/register/snapshot-reader';
import { BULK_HEADER, type BulkCompany, bulkRow } from '../../../../tools/register-files';

const fixture = (name: string) => new URL(`../../../fixtures/register/${name}`, import.meta.url);

async function factsOf(stream: Readable): Promise<Map<string, SnapshotFacts>> {
  const facts = new Map<string, SnapshotFacts>();
  for await (const record of readSnapshot(stream)) if (record.facts) facts.set(record.facts.companyNumber, record.facts);
  return facts;
}

const snapshotOf = (name: string) => factsOf(createReadStream(fixture(name)));
const stored = (content: ProfileContent, version = 1): CompanyProfile => ({ ...content, version, updatedAt: '2024-06-01T00:00:00Z' });

async function mayAndJune() {
  const may = await snapshotOf('BasicCompanyData-2024-05-01-part1_1.csv');
  const june = await snapshotOf('BasicCompanyData-2024-06-01-part1_1.csv');
  const mayProfiles = new Map([...may].map(([number, facts]) => [number, registerProfile(facts, '2024-05-01')]));
  const juneProfiles = new Map(
    [...june].map(([number, facts]) => {
      const previous = mayProfiles.get(number);
      return [number, registerProfile(facts, '2024-06-01', previous && stored(previous))];
    }),
  );
  return { may, june, mayProfiles, juneProfiles };
}

const signalIds = (profile: ProfileContent | undefined) => profile?.earlySignals.signals.map((signal) => `${signal.id}:${signal.state}`);

describe('registerProfile', () => {
  it('derives schema-valid register profiles with provenance on every block and no random value', async () => {
    const { mayProfiles } = await mayAndJune();
    for (const profile of mayProfiles.values()) {
      expect(validateProfileContent(profile)).toEqual({ ok: true, profile });
      expect(profile.dataSource).toBe('register');
      for (const block of ['overview', 'tradingStatus', 'filingBehaviour', 'riskOfFailure', 'creditCapacity', 'earlySignals'] as const) {
        expect(profile[block].provenance).toMatchObject({ source: 'companies-house-basic-company-data', asOf: '2024-05-01' });
      }
    }
    const again = await snapshotOf('BasicCompanyData-2024-05-01-part1_1.csv');
    expect(new Map([...again].map(([number, facts]) => [number, registerProfile(facts, '2024-05-01')]))).toEqual(mayProfiles);
  });

  it('derives each block by its documented rule', async () => {
    const { mayProfiles } = await mayAndJune();
    const acme = mayProfiles.get('09446231');
    // No filed figures: the size is the register's accounts category's, and no employees band is made up.
    expect(acme?.overview).toMatchObject({ sizeBand: 'micro', employeesBand: null, maturity: 'established', complexity: 'simple' });
    expect(acme?.overview.provenance?.facts['derived.overview.sizeBasis']).toBe('register-accounts-category');
    expect(acme?.creditCapacity).toMatchObject({ creditLimit: null, tradeLimit: null, reason: { code: 'no_filed_accounts' } });
    expect(acme?.filingBehaviour).toMatchObject({
      consistency: 'consistent',
      accountsOverdue: false,
      nextAccountsDueOn: '2024-05-31',
      lastAccountsMadeUpTo: '2023-02-28',
    });
    expect(acme?.riskOfFailure).toMatchObject({ level: 'Low', score: 10, drivers: ['No adverse indicators in the register'] });

    const oldMill = mayProfiles.get('01234567');
    // FULL accounts say nothing of size: any company may file them.
    expect(oldMill?.overview).toMatchObject({ sizeBand: null, complexity: 'complex' });

    const gone = mayProfiles.get('07654321');
    expect(gone?.tradingStatus.status).toBe('dormant');
    expect(gone?.riskOfFailure).toMatchObject({ level: 'High', score: 84 });
    expect(gone?.riskOfFailure.drivers[0]).toBe('The register proposes to strike the company off');
    expect(signalIds(gone)).toEqual([
      'accounts_overdue-2023-03-31:active',
      'confirmation_statement_overdue-2023-06-15:active',
      'strike_off_proposed-2024-05-01:active',
    ]);

    const northern = mayProfiles.get('OC400001');
    expect(northern?.riskOfFailure).toMatchObject({ level: 'Severe', score: 95 });
    expect(northern?.creditCapacity).toMatchObject({ creditLimit: null, tradeLimit: null, reason: { code: 'no_filed_accounts' } });

    const lough = mayProfiles.get('NI012345');
    expect(lough?.tradingStatus.status).toBe('active');
    expect(signalIds(lough)).toEqual(['receiver_on_charge-2024-05-01:active']);

    const cic = mayProfiles.get('15400001');
    expect(cic?.overview).toMatchObject({ sizeBand: null, employeesBand: null, maturity: 'new' });
    expect(cic?.filingBehaviour.consistency).toBe('no_history');
    expect(cic?.creditCapacity).toMatchObject({ creditLimit: null, reason: { code: 'no_filed_accounts' } });
  });

  it('turns the next snapshot into exactly the changes it shows, keeping what did not change as it was', async () => {
    const { mayProfiles, juneProfiles } = await mayAndJune();
    const kinds = new Map(
      [...juneProfiles].map(([number, june]) => {
        const may = mayProfiles.get(number);
        return [number, may ? changeKindsOf(may, june) : []];
      }),
    );
    expect(Object.fromEntries(kinds)).toEqual({
      '09446231': ['block:filingBehaviour', 'block:riskOfFailure', 'block:creditCapacity', 'block:earlySignals', 'signal:accounts_overdue'],
      SC512345: [
        'block:tradingStatus',
        'block:filingBehaviour',
        'block:riskOfFailure',
        'block:creditCapacity',
        'block:earlySignals',
        'signal:accounts_overdue',
        'signal:strike_off_proposed',
      ],
      '01234567': ['block:overview', 'block:earlySignals', 'signal:charge_registered'],
      '12345678': ['block:overview', 'block:earlySignals', 'signal:registered_office_changed'],
      '11111111': ['block:overview', 'block:earlySignals', 'signal:name_changed'],
      OC400001: [],
      NI012345: [],
      '10000001': [],
      '00445790': [],
      '15400001': [],
    });
    const acme = juneProfiles.get('09446231');
    expect(acme?.overview).toBe(mayProfiles.get('09446231')?.overview);
    expect(acme?.filingBehaviour).toMatchObject({ accountsOverdue: true, consistency: 'mostly_consistent' });
    expect(acme?.riskOfFailure).toMatchObject({
      level: 'Moderate',
      score: 30,
      assessedOn: '2024-06-01',
      drivers: ['Accounts are overdue'],
    });
    expect(acme?.earlySignals.signals).toEqual([
      {
        id: 'accounts_overdue-2024-05-31',
        kind: 'accounts_overdue',
        state: 'active',
        severity: 'warning',
        summary: 'Accounts due by 2024-05-31 had not been delivered by 2024-06-01',
        detectedAt: '2024-06-01T00:00:00Z',
        updatedAt: '2024-06-01T00:00:00Z',
      },
    ]);
    expect(juneProfiles.get('01234567')?.earlySignals.signals.map((signal) => signal.summary)).toEqual([
      '1 new charge registered against the company',
    ]);
    expect(juneProfiles.get('11111111')?.overview.previousNames).toEqual([{ name: 'BRIGHT IDEAS LTD', changedOn: '2024-05-20' }]);
    expect(juneProfiles.get('11111111')?.earlySignals.signals[0]?.summary).toBe(
      'Name changed from "BRIGHT IDEAS LTD" to "ZEPHYR HOLDINGS LTD"',
    );
    expect(juneProfiles.get('12345678')?.earlySignals.signals[0]?.summary).toBe(
      'Registered office moved to Uned 2, Parc Menter, CAERFYRDDIN, WALES, SA31 3RB',
    );
  });

  it('derives the same snapshot over its own profile into the same content', async () => {
    const { june, juneProfiles } = await mayAndJune();
    for (const [number, facts] of june) {
      const profile = juneProfiles.get(number) as ProfileContent;
      expect(registerProfile(facts, '2024-06-01', stored(profile, 2))).toEqual(profile);
    }
  });

  it('keeps a risk block whose score has a history as it was when the snapshot changes none of its values', async () => {
    const { june, juneProfiles } = await mayAndJune();
    for (const [number, facts] of june) {
      const profile = juneProfiles.get(number) as ProfileContent;
      const previous = { level: 'Severe', score: 100, replacedAt: '2024-06-01T00:00:00.000Z' } as const;
      const withHistory = { ...profile, riskOfFailure: { ...profile.riskOfFailure, previous } };
      expect(registerProfile(facts, '2024-06-02', stored(withHistory, 3)).riskOfFailure).toBe(withHistory.riskOfFailure);
    }
  });

  it('expires a condition that stops, counts the late filing, and dates the delivery by the snapshot that shows it', async () => {
    // Arrange: in July, ACME's accounts for 2024-02-29 are in, two months late.
    const { juneProfiles } = await mayAndJune();
    const july = await factsOf(
      Readable.from([
        `${BULK_HEADER}\r\n${bulkRow({
          name: 'ACME WIDGETS LIMITED',
          number: '09446231',
          addressLine1: '12 Foundry Lane',
          postTown: 'SHEFFIELD',
          country: 'ENGLAND',
          postCode: 'S1 4PL',
          category: 'Private Limited Company',
          status: 'Active',
          incorporatedOn: '2015-02-20',
          accountRefDay: 28,
          accountRefMonth: 2,
          accountsNextDue: '2025-05-31',
          accountsLastMadeUp: '2024-02-29',
          accountCategory: 'MICRO ENTITY',
          sicTexts: ['25990 - Manufacture of other fabricated metal products n.e.c.'],
          confirmationNextDue: '2025-03-06',
          confirmationLastMadeUp: '2024-02-20',
        } satisfies BulkCompany)}\r\n`,
      ]),
    );

    // Act
    const profile = registerProfile(
      july.get('09446231') as SnapshotFacts,
      '2024-07-01',
      stored(juneProfiles.get('09446231') as ProfileContent, 2),
    );

    // Assert
    expect(signalIds(profile)).toEqual(['accounts_overdue-2024-05-31:expired']);
    expect(profile.earlySignals.signals[0]?.updatedAt).toBe('2024-07-01T00:00:00Z');
    expect(profile.filingBehaviour).toMatchObject({
      accountsOverdue: false,
      lateFilingsLast5Years: 1,
      consistency: 'mostly_consistent',
      lastAccountsFiledOn: '2024-07-01',
      lastAccountsMadeUpTo: '2024-02-29',
    });
    expect(profile.filingBehaviour.provenance?.facts['snapshots.lateFilings']).toBe('accounts:2024-05-31');
    expect(profile.riskOfFailure).toMatchObject({ score: 15, drivers: ['1 late filing in the last five years'] });
  });

  it('expires an event a year after it was seen, and supersedes it by the next of its kind', async () => {
    const { june, juneProfiles } = await mayAndJune();
    const oldMill = stored(juneProfiles.get('01234567') as ProfileContent, 2);
    const yearOn = registerProfile(june.get('01234567') as SnapshotFacts, '2025-06-02', oldMill);
    expect(signalIds(yearOn)?.filter((id) => id.startsWith('charge'))).toEqual(['charge_registered-2024-06-01:expired']);

    const cwmni = stored(juneProfiles.get('12345678') as ProfileContent, 2);
    const juneText = readFileSync(fixture('BasicCompanyData-2024-06-01-part1_1.csv'), 'utf8');
    const julyRow = juneText.split('\r\n').find((line) => line.includes('"12345678"')) as string;
    const july = await factsOf(Readable.from([`${BULK_HEADER}\r\n${julyRow.replace('Uned 2, Parc Menter', '1 Heol y Brenin')}\r\n`]));
    const next = registerProfile(july.get('12345678') as SnapshotFacts, '2024-07-01', cwmni);
    expect(signalIds(next)).toEqual(['registered_office_changed-2024-06-01:superseded', 'registered_office_changed-2024-07-01:active']);
  });

  it('refuses to derive from a snapshot older than the one the stored profile comes from', async () => {
    const { may, juneProfiles } = await mayAndJune();
    expect(() =>
      registerProfile(may.get('09446231') as SnapshotFacts, '2024-05-01', stored(juneProfiles.get('09446231') as ProfileContent, 2)),
    ).toThrow(LaterSnapshotStoredError);
  });

  it('marks a company gone from the snapshot as removed, its conditions expired', async () => {
    const { mayProfiles } = await mayAndJune();
    const gone = goneProfile(stored(mayProfiles.get('07654321') as ProfileContent), '2024-06-01');
    expect(validateProfileContent(gone).ok).toBe(true);
    expect(gone.tradingStatus).toMatchObject({ status: 'removed', since: '2024-06-01' });
    expect(gone.riskOfFailure).toMatchObject({ level: 'Severe', score: 100 });
    expect(signalIds(gone)).toEqual([
      'accounts_overdue-2023-03-31:expired',
      'confirmation_statement_overdue-2023-06-15:expired',
      'strike_off_proposed-2024-05-01:expired',
      'removed-2024-06-01:active',
    ]);
  });
});
