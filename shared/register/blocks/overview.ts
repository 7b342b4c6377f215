import type { Financials, Overview } from '../../companies/profile';
import { maturityAt } from '../bands';
import type { SnapshotFacts } from '../snapshot-facts';
import { BLOCK_COLUMNS, provenanceOf } from './provenance';
import { employeesBandOf, judgeSize } from './size-band';

/** Forms whose structure takes more to understand: partnerships, overseas companies and entities, public companies. */
const STRUCTURED_TYPES = new Set([
  'plc',
  'llp',
  'limited-partnership',
  'scottish-partnership',
  'uk-establishment',
  'oversea-company',
  'registered-overseas-entity',
  'european-public-limited-liability-company-se',
  'eeig',
  'protected-cell-company',
  'investment-company-with-variable-capital',
]);

/** Stated in full in docs/profile.md, under its id. */
export const OVERVIEW_RULE = 'register-overview-v2';

/** `financials` are the latest filed accounts' figures Bureau holds for the company, if any. */
export function registerOverview(facts: SnapshotFacts, asOf: string, financials?: Financials): Overview {
  const size = judgeSize(financials, facts.accounts.category);
  const sizeBand = size.band;
  const points =
    (sizeBand === 'large' ? 2 : sizeBand === 'medium' ? 1 : 0) +
    (STRUCTURED_TYPES.has(facts.companyType) ? 1 : 0) +
    (facts.accounts.category === 'GROUP' ? 1 : 0) +
    ((facts.charges?.outstanding ?? 0) > 0 ? 1 : 0) +
    (facts.sicCodes.length >= 3 ? 1 : 0);
  return {
    companyType: facts.companyType,
    companySubtype: facts.companySubtype,
    incorporatedOn: facts.incorporatedOn,
    dissolvedOn: facts.dissolvedOn,
    sicCodes: facts.sicCodes,
    registeredOffice: facts.registeredOffice,
    sizeBand,
    complexity: points === 0 ? 'simple' : points === 1 ? 'moderate' : 'complex',
    maturity: maturityAt(facts.incorporatedOn, asOf),
    employeesBand: employeesBandOf(financials),
    ...(facts.previousNames.length > 0 ? { previousNames: facts.previousNames } : {}),
    ...(financials ? { financials } : {}),
    provenance: provenanceOf(facts, asOf, OVERVIEW_RULE, BLOCK_COLUMNS.overview, {
      'derived.overview.sizeBasis': size.basis,
      'derived.overview.sizeTest': size.detail,
    }),
  };
}
