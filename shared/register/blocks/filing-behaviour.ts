import type { CompanyProfile, FilingBehaviour } from '../../companies/profile';
import { daysBetween } from '../calendar';
import { STREAM_COLUMNS } from '../facts-as-of';
import type { SnapshotFacts } from '../snapshot-facts';
import { ENDED_STATUSES } from '../statuses';
import { BLOCK_COLUMNS, provenanceOf } from './provenance';

/** Deadlines seen passed in one snapshot and met in a later one, kept as "accounts:YYYY-MM-DD" and "statement:YYYY-MM-DD". */
export const LATE_FILINGS_FACT = 'snapshots.lateFilings';

const FIVE_YEARS_DAYS = 1826;

/** Stated in full in docs/profile.md, under its id. */
export const FILING_RULE = 'register-filing-v1';

/** The earlier snapshots' findings, from the stored profile's provenance. */
function history(previous: CompanyProfile | undefined) {
  const provenance = previous?.filingBehaviour.provenance;
  const late = provenance?.facts[LATE_FILINGS_FACT];
  return {
    late: late ? late.split(' ') : [],
    previous: previous?.dataSource === 'register' ? previous.filingBehaviour : undefined,
  };
}

export function registerFilingBehaviour(facts: SnapshotFacts, asOf: string, previous: CompanyProfile | undefined): FilingBehaviour {
  const ended = ENDED_STATUSES.has(facts.status.status);
  const accountsDue = ended ? null : facts.accounts.nextDueOn;
  const statementDue = ended ? null : facts.statement.nextDueOn;
  const accountsOverdue = accountsDue !== null && accountsDue < asOf;
  const confirmationStatementOverdue = statementDue !== null && statementDue < asOf;

  const { late, previous: before } = history(previous);
  const lateNow = new Set(late.filter((entry) => daysBetween(entry.slice(entry.indexOf(':') + 1), asOf) <= FIVE_YEARS_DAYS));
  // A deadline the previous snapshot showed passed that is no longer the one due: it has been met, late.
  if (before?.accountsOverdue && before.nextAccountsDueOn && before.nextAccountsDueOn !== accountsDue) {
    lateNow.add(`accounts:${before.nextAccountsDueOn}`);
  }
  // Deadlines the filing history showed missed: a delivery after its deadline, dated by the register.
  for (const entry of (facts.published.get(STREAM_COLUMNS.lateFilings) ?? '').split(' ')) {
    if (entry && daysBetween(entry.slice(entry.indexOf(':') + 1), asOf) <= FIVE_YEARS_DAYS) lateNow.add(entry);
  }
  const previousStatementDue = previous?.filingBehaviour.provenance?.facts['derived.statementDueOn'];
  if (before?.confirmationStatementOverdue && previousStatementDue && previousStatementDue !== statementDue) {
    lateNow.add(`statement:${previousStatementDue}`);
  }

  const madeUpTo = facts.accounts.lastMadeUpTo;
  // A made-up-to date the previous snapshot did not show: the accounts were delivered since it.
  // The filing history's delivery date, where the stream gave it for these accounts, is the real one.
  const filedOn = facts.published.get(STREAM_COLUMNS.accountsFiledOn);
  const lastAccountsFiledOn =
    madeUpTo === null
      ? null
      : filedOn && facts.published.get(STREAM_COLUMNS.accountsFiledMadeUpTo) === madeUpTo
        ? filedOn
        : before && before.lastAccountsMadeUpTo !== madeUpTo
          ? asOf
          : (before?.lastAccountsFiledOn ?? null);

  const lateFilings = [...lateNow].sort();
  // Irish accounts are annexed to the annual return: an overdue return is one filing late, not two.
  const statementCounts = confirmationStatementOverdue && !(facts.jurisdiction === 'IE' && accountsOverdue);
  const lateCount = lateFilings.length + (accountsOverdue ? 1 : 0) + (statementCounts ? 1 : 0);
  const consistency: FilingBehaviour['consistency'] =
    madeUpTo === null && !accountsOverdue
      ? 'no_history'
      : lateCount === 0
        ? 'consistent'
        : lateCount === 1
          ? 'mostly_consistent'
          : 'inconsistent';

  return {
    consistency,
    lastAccountsFiledOn,
    lastConfirmationStatementOn: facts.statement.lastMadeUpTo,
    nextAccountsDueOn: accountsDue,
    accountsOverdue,
    confirmationStatementOverdue,
    lateFilingsLast5Years: Math.min(100, lateFilings.length),
    lastAccountsMadeUpTo: madeUpTo,
    provenance: provenanceOf(facts, asOf, FILING_RULE, BLOCK_COLUMNS.filingBehaviour, {
      [LATE_FILINGS_FACT]: lateFilings.length > 0 ? lateFilings.join(' ') : null,
      'derived.statementDueOn': statementDue,
    }),
  };
}

/** How long the accounts have been overdue on the snapshot date, in days; 0 when they are not. */
export const daysOverdue = (filing: FilingBehaviour, asOf: string) =>
  filing.accountsOverdue && filing.nextAccountsDueOn ? daysBetween(filing.nextAccountsDueOn, asOf) : 0;
