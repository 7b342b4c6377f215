import { RowError } from './snapshot-facts';

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Checked by arithmetic: a bulk file has a dozen dates a row, and building a Date for each was most of a row's cost. */
function isRealDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1 || year < 1600) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number));
}

const UK_DATE = /^(\d{2})\/(\d{2})\/(\d{4})$/;
const ISO_DATE = /^((\d{4})-(\d{2})-(\d{2}))(?:[T ]00:00(?::00(?:\.0+)?)?Z?)?$/;

/** Companies House bulk dates, DD/MM/YYYY, as ISO; empty is null. Values come trimmed. */
export function ukDate(field: string, value: string | null | undefined): string | null {
  if (!value) return null;
  const match = UK_DATE.exec(value);
  if (!match || !isRealDate(Number(match[3]), Number(match[2]), Number(match[1]))) {
    throw new RowError(`${field} "${value}" is not a date in the form DD/MM/YYYY`);
  }
  return `${match[3]}-${match[2]}-${match[1]}`;
}

/** CRO dates: ISO, sometimes with a time of day that carries nothing; empty is null. */
export function isoDate(field: string, value: string | null | undefined): string | null {
  if (!value) return null;
  const match = ISO_DATE.exec(value);
  if (!match?.[1] || !isRealDate(Number(match[2]), Number(match[3]), Number(match[4]))) {
    throw new RowError(`${field} "${value}" is not a date in the form YYYY-MM-DD`);
  }
  return match[1];
}
