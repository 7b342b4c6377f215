import type { CreditCapacity, Money, RiskOfFailure, SizeBand } from '../../shared/companies/profile';

/** Demo limits are always given: they are generated, labelled by the profile's dataSource 'demo'. */
export type DemoCreditCapacity = CreditCapacity & { readonly creditLimit: Money; readonly tradeLimit: Money };

import type { Random } from '../random';
import type { RegisterFacts } from '../register-facts';

/** Ranges of the credit limit, in major units, before adjusting for risk. */
const CREDIT_RANGES: Readonly<Record<SizeBand, readonly [number, number]>> = {
  micro: [500, 15_000],
  small: [15_000, 150_000],
  medium: [150_000, 1_500_000],
  large: [1_500_000, 20_000_000],
};

/** Rounds to two significant figures, as credit limits are quoted. */
const roundLimit = (amount: number) => {
  if (amount < 100) return 0;
  const magnitude = 10 ** (Math.floor(Math.log10(amount)) - 1);
  return Math.round(amount / magnitude) * magnitude;
};

export function creditCapacityOf(
  facts: RegisterFacts,
  sizeBand: SizeBand,
  risk: RiskOfFailure,
  asOf: string,
  random: Random,
): DemoCreditCapacity {
  const currency = facts.jurisdiction === 'GB' ? 'GBP' : 'EUR';
  const money = (major: number) => ({ amountMinor: major * 100, currency }) as const;
  if (risk.level === 'Severe') return { creditLimit: money(0), tradeLimit: money(0), assessedOn: asOf };

  const [low, high] = CREDIT_RANGES[sizeBand];
  // Log-uniform: as many companies near the bottom of a band's range as near its top.
  const base = low * (high / low) ** random.next();
  const riskFactor = (1 - risk.score / 100) ** 1.5;
  const dormancyFactor = facts.tradingStatus.status === 'dormant' ? 0.2 : 1;
  const creditLimit = roundLimit(base * riskFactor * dormancyFactor);
  const tradeLimit = roundLimit(creditLimit * (0.25 + random.next() * 0.25));
  return { creditLimit: money(creditLimit), tradeLimit: money(tradeLimit), assessedOn: asOf };
}
