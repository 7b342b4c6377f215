import { twoDigits } from '../shared/register/calendar';
import type { Random } from './random';

/** A moment inside the given day, as an ISO 8601 UTC instant without milliseconds. */
export function instantOn(isoDate: string, random: Random): string {
  const seconds = random.int(7 * 3600, 19 * 3600);
  return `${isoDate}T${twoDigits(Math.floor(seconds / 3600))}:${twoDigits(Math.floor(seconds / 60) % 60)}:${twoDigits(seconds % 60)}Z`;
}
