import { RowError } from './snapshot-facts';

const isRealDate = (iso: string) => {
  const date = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === iso;
};

/** Companies House bulk dates, DD/MM/YYYY, as ISO; empty is null. */
export function ukDate(field: string, value: string): string | null {
  const text = value.trim();
  if (text === '') return null;
  const match = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text);
  const iso = match ? `${match[3]}-${match[2]}-${match[1]}` : '';
  if (!match || !isRealDate(iso)) throw new RowError(`${field} "${text}" is not a date in the form DD/MM/YYYY`);
  return iso;
}

/** CRO dates: ISO, sometimes with a time of day that carries nothing; empty is null. */
export function isoDate(field: string, value: string): string | null {
  const text = value.trim();
  if (text === '') return null;
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ]00:00(?::00(?:\.0+)?)?Z?)?$/.exec(text);
  if (!match?.[1] || !isRealDate(match[1])) throw new RowError(`${field} "${text}" is not a date in the form YYYY-MM-DD`);
  return match[1];
}
