import type { Overview, SizeBand } from '../../shared/companies/profile';
import type { Random } from '../random';
import { LARGE_ENTITY_TYPES, PARTNERSHIP_TYPES, type RegisterFacts } from '../register-facts';

/** Size, complexity and maturity: what the overview adds to the register facts. */

export function sizeBandOf(facts: RegisterFacts, maturity: Overview['maturity'], random: Random): SizeBand {
  if (LARGE_ENTITY_TYPES.has(facts.companyType)) {
    return random.weighted([
      ['small', 0.25],
      ['medium', 0.4],
      ['large', 0.35],
    ]);
  }
  if (maturity === 'new')
    return random.weighted([
      ['micro', 0.9],
      ['small', 0.1],
    ]);
  if (PARTNERSHIP_TYPES.has(facts.companyType)) {
    return random.weighted([
      ['micro', 0.5],
      ['small', 0.35],
      ['medium', 0.12],
      ['large', 0.03],
    ]);
  }
  const mature = maturity === 'mature';
  return random.weighted([
    ['micro', mature ? 0.6 : 0.78],
    ['small', mature ? 0.28 : 0.18],
    ['medium', mature ? 0.09 : 0.035],
    ['large', mature ? 0.03 : 0.005],
  ]);
}

const COMPLEXITY_LEVELS: readonly Overview['complexity'][] = ['simple', 'moderate', 'complex'];

export function complexityOf(facts: RegisterFacts, sizeBand: SizeBand): Overview['complexity'] {
  const base = { micro: 0, small: 0, medium: 1, large: 2 }[sizeBand];
  const structural = LARGE_ENTITY_TYPES.has(facts.companyType) || PARTNERSHIP_TYPES.has(facts.companyType) || facts.sicCodes.length >= 3;
  return COMPLEXITY_LEVELS[Math.min(2, base + (structural ? 1 : 0))] as Overview['complexity'];
}
