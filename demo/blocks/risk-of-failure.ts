import type { FilingBehaviour, Overview, RiskOfFailure } from '../../shared/companies/profile';
import { ENDED_STATUSES, INSOLVENT_STATUSES, isStrikeOffProposed } from '../../shared/register/statuses';
import type { Random } from '../random';
import type { RegisterFacts } from '../register-facts';

function riskLevelOf(score: number): RiskOfFailure['level'] {
  if (score >= 85) return 'Severe';
  if (score >= 55) return 'High';
  if (score >= 30) return 'Moderate';
  return 'Low';
}

export function riskOf(
  facts: RegisterFacts,
  maturity: Overview['maturity'],
  filing: FilingBehaviour,
  asOf: string,
  random: Random,
): RiskOfFailure {
  const { status } = facts.tradingStatus;
  const assessed = (score: number, drivers: string[]): RiskOfFailure => ({ level: riskLevelOf(score), score, assessedOn: asOf, drivers });

  if (ENDED_STATUSES.has(status)) return assessed(100, [`The company is ${status} on the register`]);
  if (INSOLVENT_STATUSES.has(status)) return assessed(random.int(90, 99), [`Insolvency: ${facts.tradingStatus.registerStatus}`]);
  if (status === 'voluntary_arrangement') return assessed(random.int(70, 84), ['A voluntary arrangement with creditors is in place']);

  const drivers: string[] = [];
  // Most companies score low: the square skews the draw towards the bottom of the range.
  let score = 5 + Math.round(random.next() ** 2 * 35);
  const add = (points: number, driver: string) => {
    score += points;
    drivers.push(driver);
  };
  if (isStrikeOffProposed(facts.tradingStatus)) add(45, 'A proposal to strike the company off the register has been published');
  if (maturity === 'new') add(15, 'Incorporated less than a year ago');
  else if (maturity === 'young') add(8, 'Less than three years of trading history');
  else if (maturity === 'mature') score -= 5;
  if (status === 'dormant') add(10, 'The company is dormant');
  if (filing.accountsOverdue) add(20, 'Accounts are overdue');
  if (filing.confirmationStatementOverdue) add(10, 'The yearly statement to the register is overdue');
  if (filing.lateFilingsLast5Years > 0)
    add(6 * filing.lateFilingsLast5Years, `${filing.lateFilingsLast5Years} late filing(s) in the last five years`);
  if (drivers.length === 0) drivers.push('No adverse indicators');
  // Only an insolvency or the end of the company makes the risk Severe.
  return assessed(Math.max(1, Math.min(84, score)), drivers);
}
