export type { RegisterFacts } from '../shared/register/register-facts';

/**
 * The date demo assessments are made as of. Fixed rather than "today" so that derived values do not
 * drift from one import to the next.
 */
export const DEMO_AS_OF = '2025-06-30';

export const LARGE_ENTITY_TYPES = new Set([
  'plc',
  'uk-establishment',
  'oversea-company',
  'registered-overseas-entity',
  'european-public-limited-liability-company-se',
]);
export const PARTNERSHIP_TYPES = new Set(['llp', 'limited-partnership', 'scottish-partnership']);
