import type { FilingBehaviour, Jurisdiction } from '../../shared/companies/profile';
import { addDays, addMonths, minDate } from '../../shared/register/calendar';
import { ENDED_STATUSES } from '../../shared/register/statuses';
import type { Random } from '../random';
import type { RegisterFacts } from '../register-facts';

/** When accounts and the yearly statement fall due, simplified from each register's rules. */
interface FilingCycle {
  /** Months from incorporation to the first accounts deadline. */
  readonly firstAccountsDueMonths: number;
  /** Months from incorporation to the first confirmation statement (GB) or annual return (IE). */
  readonly firstStatementMonths: number;
  /** Days allowed after the statement date to deliver it. */
  readonly statementGraceDays: number;
}

const FILING_CYCLES: Readonly<Record<Jurisdiction, FilingCycle>> = {
  // Companies Act 2006: first accounts 21 months after incorporation, then 9 months after each
  // year end; confirmation statement yearly, 14 days to deliver.
  GB: { firstAccountsDueMonths: 21, firstStatementMonths: 12, statementGraceDays: 14 },
  // Companies Act 2014: first annual return 6 months after incorporation, accounts annexed from the
  // second return on; 28 days to deliver.
  IE: { firstAccountsDueMonths: 18, firstStatementMonths: 6, statementGraceDays: 28 },
};

/**
 * The recent yearly deadlines that have passed by the given date, each as [period date, due date]:
 * at least the last six years' worth, or all of them for a younger company.
 */
function recentDeadlines(first: string, graceDays: number, until: string): (readonly [string, string])[] {
  const yearsElapsed = Number(until.slice(0, 4)) - Number(first.slice(0, 4));
  // Start a little before the recent past rather than walking every year since incorporation.
  const start = Math.max(0, yearsElapsed - 7);
  const recent: (readonly [string, string])[] = [];
  for (let index = start; ; index++) {
    const period = addMonths(first, index * 12);
    const due = addDays(period, graceDays);
    if (due > until) return recent;
    recent.push([period, due]);
  }
}

export function filingBehaviourOf(facts: RegisterFacts, asOf: string, random: Random): FilingBehaviour {
  const ended = ENDED_STATUSES.has(facts.tradingStatus.status);
  const until = ended && facts.dissolvedOn ? minDate(facts.dissolvedOn, asOf) : asOf;
  const incorporatedOn = facts.incorporatedOn ?? addMonths(asOf, -60);
  const cycle = FILING_CYCLES[facts.jurisdiction];

  const accountsDeadlines = recentDeadlines(addMonths(incorporatedOn, cycle.firstAccountsDueMonths), 0, until).map(([, due]) => due);
  const statementDeadlines = recentDeadlines(addMonths(incorporatedOn, cycle.firstStatementMonths), cycle.statementGraceDays, until);
  const lastAccountsDue = accountsDeadlines.at(-1);
  const lastStatement = statementDeadlines.at(-1);

  const consistency: FilingBehaviour['consistency'] = lastAccountsDue
    ? random.weighted([
        ['consistent', 0.6],
        ['mostly_consistent', 0.25],
        ['inconsistent', 0.15],
      ])
    : 'no_history';
  const overdueChance = { consistent: 0, mostly_consistent: 0.1, inconsistent: 0.5, no_history: 0.04 }[consistency];
  const accountsOverdue = !ended && lastAccountsDue !== undefined && random.chance(overdueChance);
  const confirmationStatementOverdue = !ended && lastStatement !== undefined && random.chance(overdueChance);

  const fiveYearsAgo = addMonths(until, -60);
  const deadlinesInFiveYears =
    accountsDeadlines.filter((due) => due >= fiveYearsAgo).length + statementDeadlines.filter(([, due]) => due >= fiveYearsAgo).length;
  const lateFilings = { consistent: 0, mostly_consistent: 1, inconsistent: random.int(2, 4), no_history: 0 }[consistency];

  // A filing made on time lands between the end of the period and the deadline.
  const filedBefore = (due: string) => addDays(due, -random.int(0, 60));
  const accountsFiled = accountsOverdue ? accountsDeadlines.slice(0, -1) : accountsDeadlines;
  const statementsFiled = confirmationStatementOverdue ? statementDeadlines.slice(0, -1) : statementDeadlines;
  const lastFiledAccountsDue = accountsFiled.at(-1);
  const lastFiledStatement = statementsFiled.at(-1);

  let nextAccountsDueOn: string | null = null;
  if (!ended) {
    if (accountsOverdue) nextAccountsDueOn = lastAccountsDue ?? null;
    else nextAccountsDueOn = lastAccountsDue ? addMonths(lastAccountsDue, 12) : addMonths(incorporatedOn, cycle.firstAccountsDueMonths);
  }

  return {
    consistency,
    lastAccountsFiledOn: lastFiledAccountsDue ? filedBefore(lastFiledAccountsDue) : null,
    lastConfirmationStatementOn: lastFiledStatement ? lastFiledStatement[0] : null,
    nextAccountsDueOn,
    accountsOverdue,
    confirmationStatementOverdue,
    lateFilingsLast5Years: Math.min(lateFilings, deadlinesInFiveYears),
  };
}
