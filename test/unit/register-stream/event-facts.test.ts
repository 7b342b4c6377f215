import { describe, expect, it } from 'vitest';
import { groupAsOf, mergeFacts } from '../../../shared/register/facts-as-of';
import { asOfInstant, eventFacts } from '../../../shared/register/stream/event-facts';
import type { StreamEvent, StreamName } from '../../../shared/register/stream/stream-events';

const event = (stream: StreamName, resourceUri: string, data: Record<string, unknown>, extra: Partial<StreamEvent> = {}): StreamEvent => ({
  stream,
  resourceKind: 'any',
  resourceUri,
  resourceId: 'r1',
  data,
  timepoint: 1,
  publishedAt: '2026-11-25T08:30:12',
  type: 'changed',
  ...extra,
});

describe('eventFacts: the company profile as the bulk file’s columns', () => {
  it('spells every fact the way the bulk file does', () => {
    // Act
    const found = eventFacts(
      event('companies', '/company/sc512345', {
        company_name: 'HEATHER  & THISTLE LTD',
        company_status: 'active',
        company_status_detail: 'active-proposal-to-strike-off',
        type: 'ltd',
        date_of_creation: '2015-08-03',
        registered_office_address: {
          care_of: 'MACLEOD ACCOUNTANTS',
          address_line_1: '4 Rose Street',
          locality: 'Edinburgh',
          postal_code: 'EH2 2PR',
        },
        sic_codes: ['56101'],
        accounts: {
          next_due: '2024-05-31',
          last_accounts: { made_up_to: '2022-08-31', type: 'total-exemption-full' },
          accounting_reference_date: { day: '31', month: '08' },
        },
        confirmation_statement: { next_due: '2023-08-17', last_made_up_to: '2022-08-03' },
        previous_company_names: [
          { name: 'OLDER NAME LTD', ceased_on: '2016-01-01' },
          { name: 'OLD NAME LTD', ceased_on: '2019-05-04' },
        ],
        has_charges: true,
        has_insolvency_history: false,
      }),
    );

    // Assert
    expect(found).toMatchObject({
      ok: true,
      facts: {
        companyNumber: 'SC512345',
        asOf: '2026-11-25T08:30:12',
        flags: { hasCharges: true, hasInsolvencyHistory: false },
        columns: {
          CompanyName: 'HEATHER & THISTLE LTD',
          CompanyStatus: 'Active - Proposal to Strike off',
          DissolutionDate: null,
          CompanyCategory: 'Private Limited Company',
          IncorporationDate: '03/08/2015',
          'RegAddress.CareOf': 'MACLEOD ACCOUNTANTS',
          'RegAddress.AddressLine1': '4 Rose Street',
          'RegAddress.AddressLine2': null,
          'RegAddress.PostTown': 'Edinburgh',
          'RegAddress.PostCode': 'EH2 2PR',
          'SICCode.SicText_1': '56101',
          'SICCode.SicText_2': null,
          'Accounts.NextDueDate': '31/05/2024',
          'Accounts.LastMadeUpDate': '31/08/2022',
          'Accounts.AccountCategory': 'TOTAL EXEMPTION FULL',
          'Accounts.AccountRefDay': '31',
          'Accounts.AccountRefMonth': '8',
          ConfStmtNextDueDate: '17/08/2023',
          ConfStmtLastMadeUpDate: '03/08/2022',
          'PreviousName_1.CompanyName': 'OLD NAME LTD',
          'PreviousName_1.CONDATE': '04/05/2019',
          'PreviousName_2.CompanyName': 'OLDER NAME LTD',
          'PreviousName_3.CompanyName': null,
        },
      },
    });
  });

  it('maps a dissolution, a liquidation, a community interest company and the account categories the two sources spell apart', () => {
    const dissolved = eventFacts(event('companies', '/company/01234567', { company_status: 'dissolved', date_of_cessation: '2026-11-20' }));
    const liquidation = eventFacts(event('companies', '/company/01234567', { company_status: 'liquidation' }));
    const cic = eventFacts(event('companies', '/company/01234567', { type: 'ltd', subtype: 'community-interest-company' }));

    expect(dissolved).toMatchObject({ ok: true, facts: { columns: { CompanyStatus: 'Dissolved', DissolutionDate: '20/11/2026' } } });
    expect(liquidation).toMatchObject({ ok: true, facts: { columns: { CompanyStatus: 'Liquidation' } } });
    expect(cic).toMatchObject({ ok: true, facts: { columns: { CompanyCategory: 'Community Interest Company' } } });
    expect(
      eventFacts(event('companies', '/company/01234567', { accounts: { last_accounts: { type: 'no-accounts-type-available' } } })),
    ).toMatchObject({ facts: { columns: { 'Accounts.AccountCategory': 'ACCOUNTS TYPE NOT AVAILABLE' } } });
    expect(eventFacts(event('companies', '/company/01234567', { accounts: { last_accounts: { type: 'null' } } }))).toMatchObject({
      facts: { columns: { 'Accounts.AccountCategory': 'NO ACCOUNTS FILED' } },
    });
  });
});

describe('eventFacts: the other streams', () => {
  it('reads accounts and confirmation statements delivered, and Gazette strike-off notices, from the filing history', () => {
    expect(
      eventFacts(
        event('filings', '/company/01234567/filing-history/x', {
          category: 'accounts',
          date: '2026-11-20',
          description_values: { made_up_date: '2026-03-31' },
        }),
      ),
    ).toMatchObject({ ok: true, facts: { filing: { kind: 'accounts', filedOn: '2026-11-20', madeUpTo: '2026-03-31' } } });
    expect(
      eventFacts(
        event('filings', '/company/01234567/filing-history/x', {
          category: 'confirmation-statement',
          date: '2026-11-20',
          description_values: { made_up_date: '2026-11-01' },
        }),
      ),
    ).toMatchObject({ ok: true, facts: { filing: { kind: 'statement', filedOn: '2026-11-20', madeUpTo: '2026-11-01' } } });
    expect(
      eventFacts(event('filings', '/company/01234567/filing-history/x', { category: 'gazette', type: 'GAZ1', date: '2026-11-24' })),
    ).toMatchObject({
      ok: true,
      facts: { notice: { type: 'GAZ1', date: '2026-11-24' } },
    });
    expect(
      eventFacts(event('filings', '/company/01234567/filing-history/x', { category: 'officers', type: 'AP01', date: '2026-11-24' })),
    ).toEqual({
      ok: false,
      reason: 'no-facts',
      companyNumber: '01234567',
    });
  });

  it('reads a charge’s number, status and dates', () => {
    expect(
      eventFacts(
        event('charges', '/company/01234567/charges/abc', {
          charge_number: 3,
          status: 'part-satisfied',
          created_on: '2020-01-02',
          delivered_on: '2020-01-09',
        }),
      ),
    ).toMatchObject({ ok: true, facts: { charge: { id: '3', status: 'part-satisfied', createdOn: '2020-01-09', satisfiedOn: null } } });
  });

  // Whether any of these is news depends on what the stream told before: the applier works that out (fold-events.ts).
  it('reads every insolvency case, board appointments and resignations, and PSC changes, by their identity', () => {
    expect(
      eventFacts(
        event('insolvency-cases', '/company/01234567/insolvency', {
          cases: [
            { type: 'administration', dates: [{ type: 'administration-started-on', date: '2025-01-01' }] },
            { type: 'creditors-voluntary-liquidation', dates: [{ type: 'wound-up-on', date: '2026-02-01' }] },
          ],
        }),
      ),
    ).toMatchObject({
      ok: true,
      facts: {
        cases: [
          { type: 'administration', startedOn: '2025-01-01', endedOn: null },
          { type: 'creditors-voluntary-liquidation', startedOn: '2026-02-01', endedOn: null },
        ],
      },
    });
    expect(
      eventFacts(event('officers', '/company/01234567/appointments/a', { officer_role: 'director', appointed_on: '2026-11-01' })),
    ).toMatchObject({
      facts: { appointment: { id: 'a', from: '2026-11-01', to: null } },
    });
    expect(
      eventFacts(
        event('officers', '/company/01234567/appointments/a', {
          officer_role: 'director',
          appointed_on: '2020-01-01',
          resigned_on: '2026-11-02',
        }),
      ),
    ).toMatchObject({ facts: { appointment: { id: 'a', from: '2020-01-01', to: '2026-11-02' } } });
    expect(
      eventFacts(event('officers', '/company/01234567/appointments/a', { officer_role: 'secretary', appointed_on: '2026-11-01' })),
    ).toMatchObject({
      ok: false,
      reason: 'no-facts',
    });
    expect(
      eventFacts(
        event('persons-with-significant-control', '/company/01234567/persons-with-significant-control/individual/p', {
          notified_on: '2026-10-01',
          ceased_on: '2026-11-03',
        }),
      ),
    ).toMatchObject({ facts: { control: { id: 'p', from: '2026-10-01', to: '2026-11-03' } } });
  });
});

describe('eventFacts: what it refuses, without throwing', () => {
  it.each([
    ['a malformed date', event('companies', '/company/01234567', { accounts: { next_due: '31/05/2024' } }), 'malformed'],
    ['a charge status it does not know', event('charges', '/company/01234567/charges/a', { status: 'pending' }), 'malformed'],
    ['insolvency cases that are no list', event('insolvency-cases', '/company/01234567/insolvency', { cases: 'none' }), 'malformed'],
    ['an address that is no object', event('companies', '/company/01234567', { registered_office_address: 'Leeds' }), 'malformed'],
    ['a company number in no GB form', event('companies', '/company/12345678901', { company_status: 'active' }), 'unknown-company-number'],
    [
      'a URI naming no company',
      event('companies', '/disqualified-officers/natural/x', { company_status: 'active' }),
      'unknown-company-number',
    ],
    [
      'an unreadable published_at',
      event('companies', '/company/01234567', { company_status: 'active' }, { publishedAt: 'soon' }),
      'malformed',
    ],
  ])('refuses %s', (_name, input, reason) => {
    expect(eventFacts(input)).toMatchObject({ ok: false, reason });
  });

  it('has no facts from a deletion', () => {
    expect(eventFacts(event('filings', '/company/01234567/filing-history/x', {}, { type: 'deleted' }))).toMatchObject({
      ok: false,
      reason: 'no-facts',
    });
  });
});

describe('the as-of rule on facts', () => {
  const stored = {
    columns: { CompanyStatus: 'Active', 'RegAddress.PostTown': 'LEEDS' },
    state: { registerSnapshot: '2026-11-01', factsAsOf: { status: '2026-11-20T10:00:00' } },
  };

  it('dates a group by the later of its own statement and the snapshot', () => {
    expect(groupAsOf(stored.state, 'status')).toBe('2026-11-20T10:00:00');
    expect(groupAsOf(stored.state, 'address')).toBe('2026-11-01T00:00:00');
    expect(groupAsOf(stored.state, 'psc')).toBe('');
  });

  it('refuses an older statement, ignores one that says the same, and takes a newer one', () => {
    const older = mergeFacts(stored, { CompanyStatus: 'Liquidation' }, '2026-11-19T10:00:00');
    const same = mergeFacts(stored, { 'RegAddress.PostTown': 'Leeds' }, '2026-11-21T10:00:00');
    const newer = mergeFacts(stored, { CompanyStatus: 'Liquidation' }, '2026-11-21T10:00:00');

    expect(older).toMatchObject({ columns: { CompanyStatus: 'Active' }, changed: new Set(), refused: new Set(['status']) });
    expect(same).toMatchObject({ columns: { 'RegAddress.PostTown': 'LEEDS' }, changed: new Set() });
    expect(newer).toMatchObject({ columns: { CompanyStatus: 'Liquidation' }, factsAsOf: { status: '2026-11-21T10:00:00' } });
  });

  it('reads published_at with or without seconds or a zone', () => {
    expect(asOfInstant('2026-11-25T08:30')).toBe('2026-11-25T08:30:00');
    expect(asOfInstant('2026-11-25T08:30:12.123Z')).toBe('2026-11-25T08:30:12');
    expect(asOfInstant('yesterday')).toBeUndefined();
  });
});
