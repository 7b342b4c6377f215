import type { TradingStatus } from '../companies/profile';

/** Status codes every block's rules treat alike, register and demo. */
export const ENDED_STATUSES = new Set<TradingStatus['status']>(['dissolved', 'closed', 'converted', 'removed', 'ceased']);
export const INSOLVENT_STATUSES = new Set<TradingStatus['status']>([
  'liquidation',
  'administration',
  'receivership',
  'insolvency_proceedings',
]);

/** "Active - Proposal to Strike off" (GB), "Strike Off Listed" (IE). */
export const isStrikeOffLabel = (registerStatus: string) => /strike[\s-]*off/i.test(registerStatus);
export const isStrikeOffProposed = (status: TradingStatus) => isStrikeOffLabel(status.registerStatus);
