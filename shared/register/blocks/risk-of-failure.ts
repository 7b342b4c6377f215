import type { FilingBehaviour, Financials, RiskOfFailure } from '../../companies/profile';
import { daysBetween } from '../calendar';
import { isReceiverOnCharge } from '../companies-house-bulk';
import { STREAM_COLUMNS } from '../facts-as-of';
import { openCasesOf, solventWindingUp } from '../insolvency-cases';
import type { SnapshotFacts } from '../snapshot-facts';
import { ENDED_STATUSES, INSOLVENT_STATUSES, isStrikeOffProposed } from '../statuses';
import { daysOverdue } from './filing-behaviour';
import { moneyWords } from './money-words';
import { BLOCK_COLUMNS, provenanceOf } from './provenance';

/** Points of the scorecard, summed from a base; see RISK_RULE and docs/profile.md. */
export const RISK_POINTS = {
  base: 10,
  strikeOffProposed: 45,
  receiverOnCharge: 30,
  accountsOverdue: 20,
  accountsOverdueOver90Days: 10,
  statementOverdue: 10,
  perLateFiling: 5,
  lateFilingsCap: 15,
  underOneYear: 10,
  oneToThreeYears: 5,
  dormant: 5,
  /** From the latest filed accounts. */
  netLiabilities: 15,
  currentLiabilitiesAboveCurrentAssets: 10,
  loss: 10,
  netAssetsFalling: 5,
  /** A live company never reaches Severe on these facts alone: Severe means failed or failing. */
  liveCap: 84,
  voluntaryArrangement: 75,
  /** Being wound up, but solvent: its creditors are to be paid in full. */
  membersVoluntaryLiquidation: 50,
  insolvent: 95,
  ended: 100,
} as const;

/** Stated in full in docs/profile.md, under its id. */
export const RISK_RULE = 'bureau-risk-scorecard-v1';
/**
 * v1 with the drivers of filed accounts. Where the figures add no driver it derives exactly what v1
 * did, and keeps v1's id: a new id would announce a change of risk where none happened.
 */
export const RISK_RULE_WITH_FIGURES = 'bureau-risk-scorecard-v2';

const levelOf = (score: number): RiskOfFailure['level'] =>
  score >= 85 ? 'Severe' : score >= 55 ? 'High' : score >= 30 ? 'Moderate' : 'Low';

/** The drivers the latest filed accounts give, each with its points; none without figures. */
export function financialDrivers(financials: Financials | undefined): { points: number; words: string }[] {
  if (!financials) return [];
  const drivers: { points: number; words: string }[] = [];
  const { netAssets, currentAssets, creditorsDueWithinOneYear: creditors, profitOrLoss, prior, periodEnd } = financials;
  if (netAssets && netAssets.amountMinor < 0) {
    drivers.push({
      points: RISK_POINTS.netLiabilities,
      words: `Liabilities exceed assets: net assets of ${moneyWords(netAssets)} at ${periodEnd}`,
    });
  }
  if (currentAssets && creditors && currentAssets.currency === creditors.currency && creditors.amountMinor > currentAssets.amountMinor) {
    drivers.push({
      points: RISK_POINTS.currentLiabilitiesAboveCurrentAssets,
      words: `Creditors due within a year (${moneyWords(creditors)}) exceed current assets (${moneyWords(currentAssets)}) at ${periodEnd}`,
    });
  }
  if (profitOrLoss && profitOrLoss.amountMinor < 0) {
    drivers.push({
      points: RISK_POINTS.loss,
      words: `A loss of ${moneyWords({ ...profitOrLoss, amountMinor: -profitOrLoss.amountMinor })} for the period to ${periodEnd}`,
    });
  }
  const before = prior?.netAssets;
  if (netAssets && before && before.currency === netAssets.currency && netAssets.amountMinor < before.amountMinor) {
    drivers.push({
      points: RISK_POINTS.netAssetsFalling,
      words: `Net assets fell from ${moneyWords(before)} at ${prior.periodEnd} to ${moneyWords(netAssets)} at ${periodEnd}`,
    });
  }
  return drivers;
}

export function registerRisk(facts: SnapshotFacts, filing: FilingBehaviour, asOf: string, financials?: Financials): RiskOfFailure {
  const status = facts.status;
  const drivers: { points: number; words: string }[] = [];
  let figureDrivers: readonly { points: number; words: string }[] = [];
  let score: number;
  if (ENDED_STATUSES.has(status.status)) {
    score = RISK_POINTS.ended;
    drivers.push({ points: score, words: `The company has ended (register status: ${status.registerStatus})` });
  } else if (status.status === 'liquidation' && solventWindingUp(openCasesOf(facts.published.get(STREAM_COLUMNS.insolvencyOpen)))) {
    score = RISK_POINTS.membersVoluntaryLiquidation;
    drivers.push({
      points: score,
      words:
        "A members' voluntary liquidation: a solvent winding up, its directors having declared that the company can pay its debts in full",
    });
  } else if (INSOLVENT_STATUSES.has(status.status)) {
    score = RISK_POINTS.insolvent;
    drivers.push({ points: score, words: `Insolvency proceedings (register status: ${status.registerStatus})` });
  } else if (status.status === 'voluntary_arrangement') {
    score = RISK_POINTS.voluntaryArrangement;
    drivers.push({ points: score, words: 'A voluntary arrangement with creditors is in place' });
  } else {
    const add = (points: number, words: string) => drivers.push({ points, words });
    if (isStrikeOffProposed(status)) add(RISK_POINTS.strikeOffProposed, 'The register proposes to strike the company off');
    if (isReceiverOnCharge(status.registerStatus)) add(RISK_POINTS.receiverOnCharge, 'A receiver manager holds at least one charge');
    if (filing.accountsOverdue) {
      const over90 = daysOverdue(filing, asOf) > 90;
      add(
        RISK_POINTS.accountsOverdue + (over90 ? RISK_POINTS.accountsOverdueOver90Days : 0),
        over90 ? 'Accounts are more than 90 days overdue' : 'Accounts are overdue',
      );
    }
    // Irish accounts are annexed to the annual return: one late filing, counted once, as accounts.
    if (filing.confirmationStatementOverdue && facts.jurisdiction === 'GB') {
      add(
        RISK_POINTS.statementOverdue,
        facts.jurisdiction === 'GB' ? 'The confirmation statement is overdue' : 'The annual return is overdue',
      );
    }
    if (filing.lateFilingsLast5Years > 0) {
      add(
        Math.min(RISK_POINTS.lateFilingsCap, RISK_POINTS.perLateFiling * filing.lateFilingsLast5Years),
        `${filing.lateFilingsLast5Years} late filing${filing.lateFilingsLast5Years === 1 ? '' : 's'} in the last five years`,
      );
    }
    const ageDays = facts.incorporatedOn ? daysBetween(facts.incorporatedOn, asOf) : Number.POSITIVE_INFINITY;
    if (ageDays < 365) add(RISK_POINTS.underOneYear, 'Incorporated less than a year ago');
    else if (ageDays < 3 * 365) add(RISK_POINTS.oneToThreeYears, 'Incorporated less than three years ago');
    if (status.status === 'dormant') add(RISK_POINTS.dormant, 'Dormant: not trading');
    figureDrivers = financialDrivers(financials);
    drivers.push(...figureDrivers);
    score = Math.min(RISK_POINTS.liveCap, RISK_POINTS.base + drivers.reduce((sum, driver) => sum + driver.points, 0));
  }
  const words = drivers.sort((a, b) => b.points - a.points).map((driver) => driver.words);
  // Figures that add no driver leave the assessment as v1 made it: a risk unchanged is not announced as changed.
  const figures = figureDrivers.length > 0;
  return {
    level: levelOf(score),
    score,
    assessedOn: asOf,
    drivers: words.length > 0 ? words : ['No adverse indicators in the register'],
    provenance: provenanceOf(facts, asOf, figures ? RISK_RULE_WITH_FIGURES : RISK_RULE, BLOCK_COLUMNS.riskOfFailure, {
      'derived.filingBehaviour.lateFilingsLast5Years': String(filing.lateFilingsLast5Years),
      ...(figures ? { 'derived.overview.financials.periodEnd': financials?.periodEnd ?? null } : {}),
    }),
  };
}
