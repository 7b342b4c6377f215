import type { TradingStatus } from '../../../shared/companies/profile';

export type { RegisterFacts } from '../companies/register-facts';

/**
 * The date demo assessments are made as of. Fixed rather than "today" so that derived values do not
 * drift from one import to the next.
 */
export const DEMO_AS_OF = '2025-06-30';

/** What the register says about a company that every block derivation looks at. */
export const ENDED_STATUSES = new Set<TradingStatus['status']>(['dissolved', 'closed', 'converted', 'removed', 'ceased']);
export const INSOLVENT_STATUSES = new Set<TradingStatus['status']>([
  'liquidation',
  'administration',
  'receivership',
  'insolvency_proceedings',
]);
export const LARGE_ENTITY_TYPES = new Set([
  'plc',
  'uk-establishment',
  'oversea-company',
  'registered-overseas-entity',
  'european-public-limited-liability-company-se',
]);
export const PARTNERSHIP_TYPES = new Set(['llp', 'limited-partnership', 'scottish-partnership']);

export const isStrikeOffProposed = (status: TradingStatus) => /strike[\s-]*off/i.test(status.registerStatus);
