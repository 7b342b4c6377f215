import { describe, expect, it } from 'vitest';
import { companiesHouseFacts } from '../../../shared/register/companies-house-bulk';
import { ColumnRow } from '../../../shared/register/facts-as-of';
import { registerProfile } from '../../../shared/register/register-profile';
import { foldEvents } from '../../../shared/register/stream/apply-events';
import type { EventFacts } from '../../../shared/register/stream/event-facts';

const SNAPSHOT = '2024-05-01';

/** A company as May's bulk file gives it: two charges, one outstanding and one satisfied; accounts due at the end of May. */
function stored() {
  const facts = companiesHouseFacts(
    new ColumnRow({
      CompanyName: 'FOLD TEST LTD',
      CompanyNumber: '01234567',
      CompanyCategory: 'Private Limited Company',
      CompanyStatus: 'Active',
      IncorporationDate: '01/04/2010',
      'Accounts.NextDueDate': '31/05/2024',
      'Accounts.LastMadeUpDate': '31/08/2022',
      'Accounts.AccountCategory': 'SMALL',
      ConfStmtNextDueDate: '14/05/2024',
      ConfStmtLastMadeUpDate: '30/04/2023',
      'Mortgages.NumMortCharges': '2',
      'Mortgages.NumMortOutstanding': '1',
      'Mortgages.NumMortPartSatisfied': '0',
      'Mortgages.NumMortSatisfied': '1',
    }),
  );
  return { ...registerProfile(facts, SNAPSHOT), version: 1, updatedAt: '2024-05-02T00:00:00Z', registerSnapshot: SNAPSHOT };
}

const at = (asOf: string, facts: Partial<EventFacts>): EventFacts => ({ companyNumber: '01234567', asOf, columns: {}, ...facts });

describe('foldEvents: charges into the bulk file’s counts', () => {
  it('counts a charge created after the snapshot once, and moves its count when it is satisfied, never back', () => {
    const created = at('2024-05-10T10:00:00', { charge: { id: '3', status: 'outstanding', createdOn: '2024-05-09', satisfiedOn: null } });
    const satisfied = at('2024-05-20T10:00:00', {
      charge: { id: '3', status: 'satisfied', createdOn: '2024-05-09', satisfiedOn: '2024-05-19' },
    });

    const folded = foldEvents(stored(), [created, created, satisfied, created]);

    expect(folded.changed).toEqual([true, false, true, false]);
    expect(folded.columns).toMatchObject({
      'Mortgages.NumMortCharges': '3',
      'Mortgages.NumMortOutstanding': '1',
      'Mortgages.NumMortSatisfied': '2',
      'stream.charges': '3:s',
    });
  });

  it('moves a charge the snapshot already counted only when it was satisfied after the snapshot', () => {
    const before = at('2024-05-10T10:00:00', {
      charge: { id: '1', status: 'satisfied', createdOn: '2015-01-01', satisfiedOn: '2024-04-01' },
    });
    const after = at('2024-05-10T10:00:01', {
      charge: { id: '2', status: 'satisfied', createdOn: '2016-01-01', satisfiedOn: '2024-05-08' },
    });

    const folded = foldEvents(stored(), [before, after]);

    expect(folded.columns).toMatchObject({
      'Mortgages.NumMortCharges': '2',
      'Mortgages.NumMortOutstanding': '0',
      'Mortgages.NumMortSatisfied': '2',
    });
  });
});

describe('foldEvents: the filing history', () => {
  it('counts a delivery after the deadline the stored facts show as late, once, and one before it as on time', () => {
    const lateAccounts = at('2024-06-05T09:00:00', { filing: { kind: 'accounts', filedOn: '2024-06-05', madeUpTo: '2023-08-31' } });
    const onTimeStatement = at('2024-05-10T09:00:00', { filing: { kind: 'statement', filedOn: '2024-05-10', madeUpTo: '2024-04-30' } });

    const folded = foldEvents(stored(), [onTimeStatement, lateAccounts, lateAccounts]);

    expect(folded.columns['stream.filings.late']).toBe('accounts:2024-05-31');
    expect(folded.columns).toMatchObject({
      'stream.filings.accountsFiledOn': '2024-06-05',
      'stream.filings.accountsMadeUpTo': '2023-08-31',
    });
    expect(folded.changed).toEqual([false, true, false]);
  });
});

describe('foldEvents: the as-of rule', () => {
  it('lets an event at or after the snapshot replace a group, and refuses one from before it', () => {
    const early = at('2024-04-30T23:59:59', { columns: { CompanyStatus: 'Liquidation' } });
    const later = at('2024-05-03T08:00:00', { columns: { CompanyStatus: 'Liquidation' } });

    expect(foldEvents(stored(), [early]).changed).toEqual([false]);
    expect(foldEvents(stored(), [later])).toMatchObject({
      changed: [true],
      columns: { CompanyStatus: 'Liquidation' },
      factsAsOf: { status: '2024-05-03T08:00:00' },
      latest: '2024-05-03T08:00:00',
    });
  });
});
