/** Calendar arithmetic on ISO dates (UTC, no time zones involved): register deadlines and ages, and the demo's dates. */

export const twoDigits = (value: number) => (value < 10 ? `0${value}` : String(value));

// Dates are handled as day numbers (days since 1970-01-01) with the civil-calendar algorithms of
// H. Hinnant: parsing and formatting through Date was most of the cost of generating a profile.

function dayNumber(isoDate: string): number {
  const month = Number(isoDate.slice(5, 7));
  const year = Number(isoDate.slice(0, 4)) - (month <= 2 ? 1 : 0);
  const era = Math.floor(year / 400);
  const yearOfEra = year - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + Number(isoDate.slice(8, 10)) - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function isoDateOf(days: number): string {
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex + (monthIndex < 10 ? 3 : -9);
  return `${yearOfEra + era * 400 + (month <= 2 ? 1 : 0)}-${twoDigits(month)}-${twoDigits(day)}`;
}

export function addDays(isoDate: string, days: number): string {
  return isoDateOf(dayNumber(isoDate) + days);
}

const daysInMonth = (year: number, month: number) =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/** Adds calendar months, clamping to the month's last day (31 January + 1 month = 28/29 February). */
export function addMonths(isoDate: string, months: number): string {
  const monthIndex = Number(isoDate.slice(0, 4)) * 12 + Number(isoDate.slice(5, 7)) - 1 + months;
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex - year * 12 + 1;
  const day = Math.min(Number(isoDate.slice(8, 10)), daysInMonth(year, month));
  return `${year}-${twoDigits(month)}-${twoDigits(day)}`;
}

export const daysBetween = (from: string, to: string) => dayNumber(to) - dayNumber(from);
export const minDate = (a: string, b: string) => (a < b ? a : b);
