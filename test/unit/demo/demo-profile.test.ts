import { describe, expect, it } from 'vitest';
import { generateBritishCompanies, generateIrishCompanies } from '../../../demo/company-generator';
import { demoProfile, deriveDemoBlocks } from '../../../demo/demo-profile';
import { seededRandom } from '../../../demo/random';
import { DEMO_AS_OF, type RegisterFacts } from '../../../demo/register-facts';
import { addDays, addMonths } from '../../../shared/register/calendar';

const activeCompany: RegisterFacts = {
  jurisdiction: 'GB',
  companyNumber: '12345678',
  name: 'ACME WIDGETS LTD',
  companyType: 'ltd',
  companySubtype: null,
  incorporatedOn: '2012-03-14',
  dissolvedOn: null,
  sicCodes: ['25990'],
  registeredOffice: '1 High Street London',
  tradingStatus: { status: 'active', registerStatus: 'Active', since: '2012-03-14' },
};

const withFacts = (changes: Partial<RegisterFacts>): RegisterFacts => ({ ...activeCompany, ...changes });

/** Many companies of every kind, to check rules that must hold for all of them. */
const population = () => [...generateIrishCompanies(1_500, 3), ...generateBritishCompanies(1_500, 3)];

describe('deriveDemoBlocks', () => {
  it('derives identical blocks from identical input', () => {
    expect(deriveDemoBlocks(activeCompany, 7)).toEqual(deriveDemoBlocks(structuredClone(activeCompany), 7));
    expect(demoProfile(activeCompany)).toEqual(demoProfile(activeCompany));
  });

  it('derives other blocks for another seed or another company', () => {
    const seeds = new Set(Array.from({ length: 20 }, (_, seed) => JSON.stringify(deriveDemoBlocks(activeCompany, seed))));
    const numbers = new Set(
      Array.from({ length: 20 }, (_, index) =>
        JSON.stringify(deriveDemoBlocks(withFacts({ companyNumber: String(12345600 + index) }), 0).creditCapacity),
      ),
    );

    expect(seeds.size).toBeGreaterThan(15);
    expect(numbers.size).toBeGreaterThan(15);
  });

  it('keeps what a signal is across seeds, so that a new seed only adds signals or changes their state', () => {
    const kindsById = new Map<string, string>();
    for (let seed = 0; seed < 50; seed++) {
      for (const signal of deriveDemoBlocks(activeCompany, seed).earlySignals.signals) {
        expect(kindsById.get(signal.id) ?? signal.kind).toBe(signal.kind);
        kindsById.set(signal.id, signal.kind);
      }
    }
    expect(kindsById.size).toBeGreaterThan(1);
  });

  it('gives a dissolved company Severe risk, no credit, no filing deadlines and a critical signal', () => {
    const blocks = deriveDemoBlocks(
      withFacts({ dissolvedOn: '2020-05-05', tradingStatus: { status: 'dissolved', registerStatus: 'Dissolved', since: '2020-05-05' } }),
    );

    expect(blocks.riskOfFailure).toMatchObject({ level: 'Severe', score: 100 });
    expect(blocks.creditCapacity.creditLimit.amountMinor).toBe(0);
    expect(blocks.creditCapacity.tradeLimit.amountMinor).toBe(0);
    expect(blocks.filingBehaviour).toMatchObject({ nextAccountsDueOn: null, accountsOverdue: false, confirmationStatementOverdue: false });
    expect(blocks.earlySignals.signals).toContainEqual(
      expect.objectContaining({
        id: 'sig-12345678-dissolved',
        kind: 'dissolved',
        severity: 'critical',
        state: 'active',
        detectedAt: expect.stringMatching(/^2020-05-05T/),
      }),
    );
    expect(blocks.earlySignals.signals.filter((signal) => signal.kind !== 'dissolved').every((signal) => signal.state === 'expired')).toBe(
      true,
    );
  });

  it('gives a company in liquidation Severe risk and no credit', () => {
    const blocks = deriveDemoBlocks(withFacts({ tradingStatus: { status: 'liquidation', registerStatus: 'Liquidation', since: null } }));

    expect(blocks.riskOfFailure.level).toBe('Severe');
    expect(blocks.creditCapacity.creditLimit.amountMinor).toBe(0);
    expect(blocks.earlySignals.signals.map((signal) => signal.kind)).toContain('insolvency');
  });

  it('flags a proposal to strike off', () => {
    const blocks = deriveDemoBlocks(
      withFacts({ tradingStatus: { status: 'active', registerStatus: 'Active - Proposal to Strike off', since: null } }),
    );

    expect(['High', 'Moderate']).toContain(blocks.riskOfFailure.level);
    expect(blocks.riskOfFailure.drivers).toContain('A proposal to strike the company off the register has been published');
    expect(blocks.earlySignals.signals).toContainEqual(
      expect.objectContaining({ id: 'sig-12345678-strike_off_proposed', severity: 'critical' }),
    );
  });

  it('gives a company with no accounts due yet no filing history, and its first deadline', () => {
    const blocks = deriveDemoBlocks(withFacts({ incorporatedOn: '2024-01-02' }));

    expect(blocks.overview.maturity).toBe('young');
    expect(blocks.filingBehaviour).toMatchObject({
      consistency: 'no_history',
      lastAccountsFiledOn: null,
      nextAccountsDueOn: '2025-10-02',
      accountsOverdue: false,
      lateFilingsLast5Years: 0,
    });
    expect(
      blocks.filingBehaviour.lastConfirmationStatementOn === null || blocks.filingBehaviour.lastConfirmationStatementOn === '2025-01-02',
    ).toBe(true);
  });

  it('bands maturity by age at the assessment date', () => {
    expect(deriveDemoBlocks(withFacts({ incorporatedOn: '2025-01-01' })).overview.maturity).toBe('new');
    expect(deriveDemoBlocks(withFacts({ incorporatedOn: '2023-01-01' })).overview.maturity).toBe('young');
    expect(deriveDemoBlocks(withFacts({ incorporatedOn: '2018-01-01' })).overview.maturity).toBe('established');
    expect(deriveDemoBlocks(withFacts({ incorporatedOn: '1990-01-01' })).overview.maturity).toBe('mature');
  });

  it('quotes credit in GBP for GB and EUR for IE, in whole minor units', () => {
    const gb = deriveDemoBlocks(activeCompany).creditCapacity;
    const ie = deriveDemoBlocks(withFacts({ jurisdiction: 'IE', companyNumber: '123456' })).creditCapacity;

    expect([gb.creditLimit.currency, gb.tradeLimit.currency]).toEqual(['GBP', 'GBP']);
    expect([ie.creditLimit.currency, ie.tradeLimit.currency]).toEqual(['EUR', 'EUR']);
    expect(Number.isInteger(gb.creditLimit.amountMinor)).toBe(true);
  });

  it('stays internally consistent across a varied population', () => {
    for (const profile of population()) {
      const { riskOfFailure: risk, creditCapacity: credit, filingBehaviour: filing, earlySignals, tradingStatus } = profile;
      const where = `${profile.jurisdiction} ${profile.companyNumber}`;
      expect(credit.tradeLimit?.amountMinor ?? -1, where).toBeLessThanOrEqual(credit.creditLimit?.amountMinor ?? -1);
      if (risk.level === 'Severe') expect(credit.creditLimit?.amountMinor, where).toBe(0);
      expect(risk.level === 'Severe', where).toBe(risk.score >= 85);
      if (['dissolved', 'liquidation', 'receivership', 'administration'].includes(tradingStatus.status))
        expect(risk.level, where).toBe('Severe');
      if (tradingStatus.status === 'active' && !/strike/i.test(tradingStatus.registerStatus)) expect(risk.level, where).not.toBe('Severe');
      if (filing.consistency === 'no_history') expect(filing.lastAccountsFiledOn, where).toBeNull();
      if (filing.consistency === 'consistent') expect(filing.lateFilingsLast5Years, where).toBe(0);
      if (filing.lastAccountsFiledOn) expect(filing.lastAccountsFiledOn >= (profile.overview.incorporatedOn ?? ''), where).toBe(true);
      expect(risk.assessedOn).toBe(DEMO_AS_OF);
      for (const [index, signal] of earlySignals.signals.entries()) {
        expect(signal.id, where).toMatch(new RegExp(`^sig-${profile.companyNumber}-`));
        expect(signal.updatedAt >= signal.detectedAt, where).toBe(true);
        expect(signal.detectedAt.slice(0, 10) <= DEMO_AS_OF, where).toBe(true);
        if (index > 0) expect(signal.detectedAt >= (earlySignals.signals[index - 1]?.detectedAt ?? ''), where).toBe(true);
      }
    }
  });

  it('produces every risk level, filing consistency, size band and signal state somewhere', () => {
    const profiles = population();
    const seen = (pick: (profile: (typeof profiles)[number]) => string | null | string[]) => new Set(profiles.flatMap(pick));

    expect(seen((profile) => profile.riskOfFailure.level)).toEqual(new Set(['Low', 'Moderate', 'High', 'Severe']));
    expect(seen((profile) => profile.filingBehaviour.consistency)).toEqual(
      new Set(['consistent', 'mostly_consistent', 'inconsistent', 'no_history']),
    );
    expect(seen((profile) => profile.overview.sizeBand)).toEqual(new Set(['micro', 'small', 'medium', 'large']));
    expect(seen((profile) => profile.earlySignals.signals.map((signal) => signal.state))).toEqual(
      new Set(['active', 'superseded', 'expired']),
    );
  });
});

describe('seededRandom', () => {
  it('repeats its sequence for a key and stays in range', () => {
    const first = seededRandom('key');
    const second = seededRandom('key');
    const draws = Array.from({ length: 1000 }, () => first.next());

    expect(draws).toEqual(Array.from({ length: 1000 }, () => second.next()));
    expect(draws.every((draw) => draw >= 0 && draw < 1)).toBe(true);
    expect(new Set(draws).size).toBe(1000);
  });
});

describe('calendar arithmetic', () => {
  it.each([
    ['2024-01-31', 1, '2024-02-29'],
    ['2023-01-31', 1, '2023-02-28'],
    ['2024-02-29', 12, '2025-02-28'],
    ['2024-12-15', 1, '2025-01-15'],
    ['2024-03-31', -1, '2024-02-29'],
    ['2024-01-02', 21, '2025-10-02'],
  ])('addMonths(%s, %i) = %s', (date, months, expected) => {
    expect(addMonths(date, months)).toBe(expected);
  });

  it('adds days like the calendar does, across leap years and centuries', () => {
    for (let time = Date.UTC(1899, 0, 1); time < Date.UTC(2101, 0, 1); time += 86_400_000 * 7) {
      const date = new Date(time).toISOString().slice(0, 10);
      for (const days of [-366, -1, 1, 59, 1000])
        expect(addDays(date, days)).toBe(new Date(time + days * 86_400_000).toISOString().slice(0, 10));
    }
  });
});
