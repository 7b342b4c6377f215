/**
 * Which concepts give each figure, in order of preference, by local name within the known UK
 * taxonomy families (see namespaces.ts). The first concept the filing gives for a period is used;
 * a later one is never mixed in. docs/profile.md, "Figures from filed accounts (reader)", lists the
 * same table for readers of the profile.
 */
export type MoneyFigure =
  | 'turnover'
  | 'profitOrLoss'
  | 'netAssets'
  | 'totalAssetsLessCurrentLiabilities'
  | 'currentAssets'
  | 'creditorsDueWithinOneYear'
  | 'cash'
  | 'fixedAssets';

export interface ConceptChoice {
  readonly localName: string;
  /**
   * The dimension members that say the same as this concept alone would: a fact of the concept
   * counts when its context names one or more of them and no other member. FRS 102 and FRS 105
   * have no "creditors due within one year" concept: filings tag Creditors with the member
   * WithinOneYear of MaturitiesOrExpirationPeriodsDimension, or CurrentFinancialInstruments of
   * FinancialInstrumentCurrentNon-currentDimension, or both. Every other figure takes undimensioned
   * facts only.
   */
  readonly members?: readonly MemberByName[];
}

/** A dimension and its member by local names, whatever their prefixes (instance.ts's DimensionMember is a context's, resolved). */
export interface MemberByName {
  readonly dimension: string;
  readonly member: string;
}

export interface FigureConcepts {
  /** Balance-sheet figures are at an instant; profit and loss figures and employees cover the period. */
  readonly period: 'instant' | 'duration';
  readonly concepts: readonly ConceptChoice[];
  /**
   * When none of the concepts is given: the sum of these parts, each undimensioned, at least one
   * given. Only fixed assets have such parts, and only where the filing tags no total.
   */
  readonly parts?: readonly string[];
}

const plain = (...names: string[]): ConceptChoice[] => names.map((localName) => ({ localName }));

export const MONEY_FIGURES: Readonly<Record<MoneyFigure, FigureConcepts>> = {
  turnover: { period: 'duration', concepts: plain('TurnoverRevenue', 'Turnover', 'TurnoverGrossOperatingRevenue') },
  profitOrLoss: {
    period: 'duration',
    concepts: plain('ProfitLoss', 'ProfitLossForPeriod', 'ProfitLossOnOrdinaryActivitiesAfterTax'),
  },
  netAssets: {
    period: 'instant',
    concepts: plain('NetAssetsLiabilities', 'NetAssetsLiabilitiesIncludingPensionAssetLiability', 'Equity', 'ShareholderFunds'),
  },
  totalAssetsLessCurrentLiabilities: { period: 'instant', concepts: plain('TotalAssetsLessCurrentLiabilities') },
  currentAssets: { period: 'instant', concepts: plain('CurrentAssets') },
  creditorsDueWithinOneYear: {
    period: 'instant',
    concepts: [
      { localName: 'CreditorsDueWithinOneYear' },
      {
        localName: 'Creditors',
        members: [
          { dimension: 'MaturitiesOrExpirationPeriodsDimension', member: 'WithinOneYear' },
          { dimension: 'FinancialInstrumentCurrentNon-currentDimension', member: 'CurrentFinancialInstruments' },
        ],
      },
    ],
  },
  cash: { period: 'instant', concepts: plain('CashBankOnHand', 'CashBankInHand') },
  fixedAssets: {
    period: 'instant',
    concepts: plain('FixedAssets'),
    parts: ['PropertyPlantEquipment', 'IntangibleAssets', 'InvestmentsFixedAssets'],
  },
};

export const EMPLOYEES: FigureConcepts = {
  period: 'duration',
  concepts: plain('AverageNumberEmployeesDuringPeriod', 'AverageNumberEmployees'),
};

/** The document's own register number: FRC and UK GAAP 2009 business taxonomies, then Companies House's 2009 XBRL schema. */
export const REGISTERED_NUMBER_CONCEPTS = ['UKCompaniesHouseRegisteredNumber', 'CompaniesHouseRegisteredNumber'];

/** Facts whose true value marks the accounts of a dormant company, by taxonomy generation. */
export const DORMANT_CONCEPTS = ['EntityDormantTruefalse', 'EntityDormant', 'CompanyDormant'];
