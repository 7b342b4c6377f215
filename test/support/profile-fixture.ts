import type { Jurisdiction, ProfileContent } from '../../shared/companies/profile';

export interface ProfileFixture {
  readonly jurisdiction?: Jurisdiction;
  readonly companyNumber: string;
  readonly name: string;
  readonly status?: ProfileContent['tradingStatus']['status'];
  readonly riskLevel?: ProfileContent['riskOfFailure']['level'];
}

/** A complete, valid profile whose blocks are fixed demo values except what the test varies. */
export function profileContent(fixture: ProfileFixture): ProfileContent {
  const jurisdiction = fixture.jurisdiction ?? 'GB';
  const currency = jurisdiction === 'GB' ? 'GBP' : 'EUR';
  return {
    jurisdiction,
    companyNumber: fixture.companyNumber,
    name: fixture.name,
    dataSource: 'demo',
    overview: {
      companyType: 'ltd',
      companySubtype: null,
      incorporatedOn: '2024-01-02',
      dissolvedOn: null,
      sicCodes: ['71129'],
      registeredOffice: '1 High Street, Wigan WN6 0YJ',
      sizeBand: 'micro',
      complexity: 'simple',
      maturity: 'new',
      employeesBand: '0-9',
    },
    tradingStatus: { status: fixture.status ?? 'active', registerStatus: 'Active', since: '2024-01-02' },
    filingBehaviour: {
      consistency: 'no_history',
      lastAccountsFiledOn: null,
      lastConfirmationStatementOn: null,
      nextAccountsDueOn: '2025-10-02',
      accountsOverdue: false,
      confirmationStatementOverdue: false,
      lateFilingsLast5Years: 0,
    },
    riskOfFailure: { level: fixture.riskLevel ?? 'Low', score: 12, assessedOn: '2024-02-01', drivers: ['new company'] },
    creditCapacity: {
      creditLimit: { amountMinor: 500_000, currency },
      tradeLimit: { amountMinor: 250_000, currency },
      assessedOn: '2024-02-01',
    },
    earlySignals: { signals: [] },
  };
}
