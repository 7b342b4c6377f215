import type { CreditCapacity, RiskOfFailure, SizeBand } from '../../companies/profile';
import type { SnapshotFacts } from '../snapshot-facts';
import { BLOCK_COLUMNS, provenanceOf } from './provenance';

/** Base limits in major units by size band; "unknown" where the register does not tell the size. */
export const BASE_CREDIT_LIMITS: Readonly<Record<SizeBand | 'unknown', number>> = {
  micro: 10_000,
  small: 100_000,
  medium: 1_000_000,
  large: 10_000_000,
  unknown: 5_000,
};

export const RISK_FACTORS: Readonly<Record<RiskOfFailure['level'], number>> = { Low: 1, Moderate: 0.5, High: 0.2, Severe: 0 };
export const DORMANT_FACTOR = 0.2;
export const TRADE_SHARE = 0.4;

/** Stated in full in docs/profile.md, under its id. */
export const CREDIT_RULE = 'bureau-credit-model-v1';

/** Down to two significant figures, so a limit is never rounded up. */
const roundDown = (amount: number) => {
  if (amount < 10) return 0;
  const magnitude = 10 ** (Math.floor(Math.log10(amount)) - 1);
  return Math.floor(amount / magnitude) * magnitude;
};

export function registerCreditCapacity(facts: SnapshotFacts, sizeBand: SizeBand | null, risk: RiskOfFailure, asOf: string): CreditCapacity {
  const currency = facts.jurisdiction === 'GB' ? 'GBP' : 'EUR';
  const base = BASE_CREDIT_LIMITS[sizeBand ?? 'unknown'];
  const credit = roundDown(base * RISK_FACTORS[risk.level] * (facts.status.status === 'dormant' ? DORMANT_FACTOR : 1));
  return {
    creditLimit: { amountMinor: credit * 100, currency },
    tradeLimit: { amountMinor: roundDown(credit * TRADE_SHARE) * 100, currency },
    assessedOn: asOf,
    provenance: provenanceOf(facts, asOf, CREDIT_RULE, BLOCK_COLUMNS.creditCapacity, {
      'derived.overview.sizeBand': sizeBand,
      'derived.riskOfFailure.level': risk.level,
    }),
  };
}
