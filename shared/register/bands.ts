import type { Overview, SizeBand } from '../companies/profile';
import { daysBetween } from './calendar';

/** Bands a profile's overview shares between the register rules and the demo. */

export const EMPLOYEES_BY_SIZE: Readonly<Record<SizeBand, string>> = {
  micro: '0-9',
  small: '10-49',
  medium: '50-249',
  large: '250+',
};

export function maturityAt(incorporatedOn: string | null, asOf: string): Overview['maturity'] {
  if (!incorporatedOn) return 'established';
  const years = daysBetween(incorporatedOn, asOf) / 365.25;
  if (years < 1) return 'new';
  if (years < 3) return 'young';
  if (years < 10) return 'established';
  return 'mature';
}
