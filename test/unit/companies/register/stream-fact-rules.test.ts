import { describe, expect, it } from 'vitest';
import { addressKey, firstLineOf } from '../../../../shared/register/addresses';
import { companiesHouseFacts } from '../../../../shared/register/companies-house-bulk';
import { ColumnRow } from '../../../../shared/register/facts-as-of';
import { noticeMeaning } from '../../../../shared/register/gazette-notices';
import { registerProfile } from '../../../../shared/register/register-profile';

/** A company as a bulk row gives it, with stream facts laid over. */
const profileOf = (columns: Record<string, string>, asOf = '2024-06-01') =>
  registerProfile(
    companiesHouseFacts(
      new ColumnRow({
        CompanyName: 'RULES TEST LTD',
        CompanyNumber: '01234567',
        CompanyCategory: 'Private Limited Company',
        CompanyStatus: 'Active',
        IncorporationDate: '01/04/2010',
        'RegAddress.AddressLine1': '12 Foundry Lane',
        'RegAddress.PostTown': 'SHEFFIELD',
        'RegAddress.PostCode': 'S1 4PL',
        'Accounts.NextDueDate': '31/12/2024',
        'Accounts.LastMadeUpDate': '31/03/2023',
        'Accounts.AccountCategory': 'SMALL',
        ConfStmtNextDueDate: '14/05/2025',
        ConfStmtLastMadeUpDate: '30/04/2024',
        ...columns,
      }),
    ),
    asOf,
  );

describe('the registered office as the register means it', () => {
  it('joins the API’s premises to its first line as the bulk file does, and compares addresses by their words', () => {
    expect(firstLineOf('12', 'Foundry Lane')).toBe('12 Foundry Lane');
    expect(firstLineOf(null, 'Foundry Lane')).toBe('Foundry Lane');
    expect(addressKey(['12, Foundry Lane', null, 'Sheffield'])).toBe(addressKey(['12 FOUNDRY LANE', '', 'SHEFFIELD']));
    expect(addressKey(['The Old Mill', 'Mill Road'])).toBe(addressKey(['The Old Mill Mill Road', null]));
    expect(addressKey(['14 Foundry Lane'])).not.toBe(addressKey(['12 Foundry Lane']));
  });
});

describe('Gazette notices by their code', () => {
  it.each([
    ['GAZ1', 'proposal'],
    ['GAZ1(A)', 'proposal'],
    ['DISS40', 'settled'],
    ['DISS16(SOAD)', 'settled'],
    ['GAZ2', 'dissolved'],
    ['GAZ2(A)', 'dissolved'],
    ['AA', undefined],
  ])('reads %s as %s', (code, meaning) => {
    expect(noticeMeaning(code)).toBe(meaning);
  });
});

describe('a members’ voluntary liquidation, by the rules of every block', () => {
  it('scores a solvent winding up apart from insolvency, and signals it as a warning', () => {
    const solvent = profileOf({ CompanyStatus: 'Liquidation', 'stream.insolvency.openCases': 'members-voluntary-liquidation:2024-05-20' });
    const insolvent = profileOf({
      CompanyStatus: 'Liquidation',
      'stream.insolvency.openCases': 'creditors-voluntary-liquidation:2024-05-21',
    });
    const untold = profileOf({ CompanyStatus: 'Liquidation' });

    expect(solvent.riskOfFailure).toMatchObject({ score: 50, level: 'Moderate' });
    expect(solvent.earlySignals.signals.map((signal) => `${signal.id}:${signal.severity}`)).toEqual([
      'members_voluntary_liquidation-2024-05-20:warning',
    ]);
    expect(solvent.riskOfFailure.provenance?.facts['stream.insolvency.openCases']).toBe('members-voluntary-liquidation:2024-05-20');
    expect(insolvent.riskOfFailure).toMatchObject({ score: 95, level: 'Severe' });
    expect(insolvent.earlySignals.signals.map((signal) => `${signal.kind}:${signal.severity}`)).toEqual(['insolvency:critical']);
    // Without the stream's word on the cases, the bulk file's "Liquidation" is read as before.
    expect(untold.riskOfFailure.score).toBe(95);
    expect(untold.riskOfFailure.provenance?.facts).not.toHaveProperty('stream.insolvency.openCases');
  });
});
