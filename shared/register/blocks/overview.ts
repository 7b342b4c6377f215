import type { Overview, SizeBand } from '../../companies/profile';
import { EMPLOYEES_BY_SIZE, maturityAt } from '../bands';
import type { SnapshotFacts } from '../snapshot-facts';
import { BLOCK_COLUMNS, provenanceOf } from './provenance';

/** Companies House account categories by the size band they imply; a category missing here says nothing of size. */
const SIZE_BY_ACCOUNT_CATEGORY: Readonly<Record<string, SizeBand>> = {
  'MICRO ENTITY': 'micro',
  DORMANT: 'micro',
  SMALL: 'small',
  'TOTAL EXEMPTION SMALL': 'small',
  'TOTAL EXEMPTION FULL': 'small',
  'UNAUDITED ABRIDGED': 'small',
  'AUDITED ABRIDGED': 'small',
  'PARTIAL EXEMPTION': 'small',
  MEDIUM: 'medium',
  FULL: 'large',
  GROUP: 'large',
};

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
export const OVERVIEW_RULE = 'register-overview-v1';

export function sizeBandOf(facts: SnapshotFacts): SizeBand | null {
  return facts.accounts.category ? (SIZE_BY_ACCOUNT_CATEGORY[facts.accounts.category] ?? null) : null;
}

export function registerOverview(facts: SnapshotFacts, asOf: string): Overview {
  const sizeBand = sizeBandOf(facts);
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
    employeesBand: sizeBand ? (EMPLOYEES_BY_SIZE[sizeBand] as string) : null,
    ...(facts.previousNames.length > 0 ? { previousNames: facts.previousNames } : {}),
    provenance: provenanceOf(facts, asOf, OVERVIEW_RULE, BLOCK_COLUMNS.overview),
  };
}
