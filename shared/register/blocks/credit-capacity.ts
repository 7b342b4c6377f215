import type { CreditCapacity, Financials, Money, NoLimitReason, RiskOfFailure } from '../../companies/profile';
import type { SnapshotFacts } from '../snapshot-facts';
import { ENDED_STATUSES } from '../statuses';
import { moneyWords } from './money-words';
import { BLOCK_COLUMNS, provenanceOf } from './provenance';
import { yearShareOf } from './size-band';

/** The model's weights; stated in full in docs/profile.md under CREDIT_RULE. */
export const CREDIT_MODEL = {
  /** Of positive net assets: what the owners' stake can stand behind. */
  netAssetsShare: 0.1,
  /** Of positive working capital (current assets less creditors due within one year): what the company can pay from. */
  workingCapitalShare: 0.1,
  /** Of a year's turnover, where filed: a supplier rarely carries more than about five weeks of a customer's sales. */
  turnoverCap: 0.1,
  tradeShare: 0.4,
} as const;

export const RISK_FACTORS: Readonly<Record<RiskOfFailure['level'], number>> = { Low: 1, Moderate: 0.5, High: 0.2, Severe: 0 };

/** Stated in full in docs/profile.md, under its id. */
export const CREDIT_RULE = 'bureau-credit-model-v2';

/** Down to two significant figures of whole units, so a limit is never rounded up. */
const roundDownMinor = (amountMinor: number) => {
  const amount = Math.floor(amountMinor / 100);
  if (amount < 10) return 0;
  const magnitude = 10 ** (Math.floor(Math.log10(amount)) - 1);
  return Math.floor(amount / magnitude) * magnitude * 100;
};

const LIMIT_CURRENCIES = new Set<string>(['GBP', 'EUR']);

function noLimit(code: NoLimitReason, message: string) {
  return { creditLimit: null, tradeLimit: null, reason: { code, message }, drivers: [message] };
}

function judged(facts: SnapshotFacts, financials: Financials | undefined, risk: RiskOfFailure) {
  if (ENDED_STATUSES.has(facts.status.status)) {
    return noLimit('ended', `The company has ended (register status: ${facts.status.registerStatus}): no credit can be extended`);
  }
  if (facts.status.status === 'dormant' || financials?.accountsType === 'dormant') {
    return noLimit('dormant', 'The company is dormant: it does not trade, so there is no trade credit to judge');
  }
  if (!financials) {
    return noLimit(
      'no_filed_accounts',
      facts.jurisdiction === 'IE'
        ? 'No filed accounts figures: the CRO publishes none that Bureau can read'
        : 'No filed accounts figures: Bureau has read none of this company’s accounts',
    );
  }
  const currency = financials.netAssets?.currency ?? financials.currentAssets?.currency;
  if (currency && !LIMIT_CURRENCIES.has(currency)) {
    return noLimit('figures_in_other_currency', `The accounts are filed in ${currency}; limits are given in pounds or euros only`);
  }
  const { netAssets, currentAssets, creditorsDueWithinOneYear: creditors, turnover } = financials;
  const workingCapital =
    currentAssets && creditors && currentAssets.currency === creditors.currency
      ? { amountMinor: currentAssets.amountMinor - creditors.amountMinor, currency: currentAssets.currency }
      : undefined;
  if (!netAssets && !workingCapital) {
    return noLimit('no_filed_accounts', `The accounts to ${financials.periodEnd} give neither net assets nor working capital`);
  }
  const drivers: string[] = [];
  let base = 0;
  if (netAssets) {
    if (netAssets.amountMinor > 0) {
      base += Math.floor(netAssets.amountMinor * CREDIT_MODEL.netAssetsShare);
      drivers.push(`10% of net assets of ${moneyWords(netAssets)} at ${financials.periodEnd}`);
    } else drivers.push(`No net worth to stand behind credit: net assets of ${moneyWords(netAssets)} at ${financials.periodEnd}`);
  }
  if (workingCapital) {
    if (workingCapital.amountMinor > 0) {
      base += Math.floor(workingCapital.amountMinor * CREDIT_MODEL.workingCapitalShare);
      drivers.push(`10% of working capital of ${moneyWords(workingCapital)}`);
    } else
      drivers.push(
        `No working capital: creditors due within a year exceed current assets by ${moneyWords({ ...workingCapital, amountMinor: -workingCapital.amountMinor })}`,
      );
  }
  if (turnover && turnover.currency === (netAssets ?? workingCapital)?.currency && financials.periodStart) {
    const cap = Math.floor((turnover.amountMinor / yearShareOf(financials)) * CREDIT_MODEL.turnoverCap);
    if (base > cap) {
      base = Math.max(0, cap);
      drivers.push(`Capped at 10% of a year's turnover of ${moneyWords(turnover)}`);
    }
  }
  const factor = RISK_FACTORS[risk.level];
  if (factor < 1) drivers.push(factor === 0 ? `None for ${risk.level} risk` : `Multiplied by ${factor} for ${risk.level} risk`);
  const limitCurrency = (netAssets ?? workingCapital)?.currency as Money['currency'];
  const credit = roundDownMinor(base * factor);
  return {
    creditLimit: { amountMinor: credit, currency: limitCurrency },
    tradeLimit: { amountMinor: roundDownMinor(credit * CREDIT_MODEL.tradeShare), currency: limitCurrency },
    drivers,
  };
}

/**
 * Limits from the latest filed accounts' figures and the risk level, never from a label: with no
 * figures there is no limit, and `reason` says why.
 */
export function registerCreditCapacity(
  facts: SnapshotFacts,
  financials: Financials | undefined,
  risk: RiskOfFailure,
  asOf: string,
): CreditCapacity {
  return {
    ...judged(facts, financials, risk),
    assessedOn: asOf,
    provenance: provenanceOf(facts, asOf, CREDIT_RULE, BLOCK_COLUMNS.creditCapacity, {
      'derived.overview.financials.periodEnd': financials?.periodEnd ?? null,
      'derived.riskOfFailure.level': risk.level,
    }),
  };
}
