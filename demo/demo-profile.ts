import type { EarlySignals, FilingBehaviour, Overview, ProfileContent, RiskOfFailure } from '../shared/companies/profile';
import { EMPLOYEES_BY_SIZE, maturityAt } from '../shared/register/bands';
import { creditCapacityOf, type DemoCreditCapacity } from './blocks/credit-capacity';
import { conditionSignals, eventSignals } from './blocks/early-signals';
import { filingBehaviourOf } from './blocks/filing-behaviour';
import { complexityOf, sizeBandOf } from './blocks/overview';
import { riskOf } from './blocks/risk-of-failure';
import { seededRandom } from './random';
import { DEMO_AS_OF, type RegisterFacts } from './register-facts';

/**
 * Demo values for the blocks the public registers do not publish (size, filing behaviour, risk of
 * failure, credit capacity, early signals). They are derived, deterministically, from the register
 * facts and the company number: the same facts, seed and assessment date always give the same
 * blocks, so re-importing the same file changes nothing and raises no events. Profiles carrying
 * them are labelled dataSource 'demo'.
 */

export type DemoOverview = Pick<Overview, 'sizeBand' | 'complexity' | 'maturity' | 'employeesBand'>;

export interface DemoBlocks {
  readonly overview: DemoOverview;
  readonly filingBehaviour: FilingBehaviour;
  readonly riskOfFailure: RiskOfFailure;
  readonly creditCapacity: DemoCreditCapacity;
  readonly earlySignals: EarlySignals;
}

/**
 * Derives the demo blocks of one company. Deterministic in (jurisdiction, company number, seed,
 * asOf, facts); a different seed gives the same company another plausible state.
 */
export function deriveDemoBlocks(facts: RegisterFacts, seed = 0, asOf: string = DEMO_AS_OF): DemoBlocks {
  const random = seededRandom(`${facts.jurisdiction}#${facts.companyNumber}#${seed}`);
  const maturity = maturityAt(facts.incorporatedOn, asOf);
  const sizeBand = sizeBandOf(facts, maturity, random);
  const filingBehaviour = filingBehaviourOf(facts, asOf, random);
  const riskOfFailure = riskOf(facts, maturity, filingBehaviour, asOf, random);
  const creditCapacity = creditCapacityOf(facts, sizeBand, riskOfFailure, asOf, random);
  const signals = [...conditionSignals(facts, filingBehaviour, asOf, random), ...eventSignals(facts, asOf, random)].sort((a, b) =>
    a.detectedAt < b.detectedAt ? -1 : a.detectedAt > b.detectedAt ? 1 : 0,
  );
  return {
    overview: { sizeBand, complexity: complexityOf(facts, sizeBand), maturity, employeesBand: EMPLOYEES_BY_SIZE[sizeBand] },
    filingBehaviour,
    riskOfFailure,
    creditCapacity,
    earlySignals: { signals },
  };
}

/** A complete profile: the register facts plus derived demo blocks. */
export function demoProfile(facts: RegisterFacts, seed = 0, asOf: string = DEMO_AS_OF): ProfileContent {
  const demo = deriveDemoBlocks(facts, seed, asOf);
  return {
    jurisdiction: facts.jurisdiction,
    companyNumber: facts.companyNumber,
    name: facts.name,
    dataSource: 'demo',
    overview: {
      companyType: facts.companyType,
      companySubtype: facts.companySubtype,
      incorporatedOn: facts.incorporatedOn,
      dissolvedOn: facts.dissolvedOn,
      sicCodes: facts.sicCodes,
      registeredOffice: facts.registeredOffice,
      ...demo.overview,
    },
    tradingStatus: facts.tradingStatus,
    filingBehaviour: demo.filingBehaviour,
    riskOfFailure: demo.riskOfFailure,
    creditCapacity: demo.creditCapacity,
    earlySignals: demo.earlySignals,
  };
}
