/**
 * The register's calendar for a company's filings, as the Companies Act sets it: the accounting
 * reference date (ARD) is the last day of a month; a first period ends at the end of the month one
 * year after incorporation, later ones twelve months on; accounts are due 9 months after the period
 * (6 for a public company), first accounts 21 months after incorporation (18 for a public company)
 * when that is later; a confirmation statement is made up to a date each year and due 14 days after.
 * Dates are ISO `YYYY-MM-DD` days, compared as text.
 */

export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The same day `months` later (or earlier), the month's last day where the month is shorter. */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const last = new Date(Date.UTC(y, m - 1 + months + 1, 0)).getUTCDate();
  return dayOf(Date.UTC(y, m - 1 + months, Math.min(d, last)));
}

export const addDays = (date: string, days: number) => dayOf(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000);

export const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

export function monthEnd(date: string): string {
  const [y, m] = date.split('-').map(Number) as [number, number];
  return dayOf(Date.UTC(y, m, 0));
}

export const laterOf = (a: string, b: string) => (a > b ? a : b);

/** The end of the first accounting period: the month's end `months` after incorporation (12 unless the company changed it). */
export const firstPeriodEnd = (incorporatedOn: string, months = 12) => monthEnd(addMonths(incorporatedOn, months));

/** The next period's end: twelve months on, at the month's end. */
export const nextPeriodEnd = (periodEnd: string) => monthEnd(addMonths(periodEnd, 12));

/** When the accounts for a period are due. */
export function accountsDue(periodEnd: string, options: { incorporatedOn: string; first: boolean; publicCompany: boolean }): string {
  const due = monthEnd(addMonths(periodEnd, options.publicCompany ? 6 : 9));
  return options.first
    ? laterOf(addMonths(options.incorporatedOn, options.publicCompany ? 18 : 21), monthEnd(addMonths(periodEnd, 3)))
    : due;
}

/** The accounting reference date as the API writes it: a month's last day, February's the 28th even when a period ends on the 29th. */
export const referenceDate = (periodEnd: string) => ({
  day: periodEnd.slice(5, 7) === '02' ? '28' : periodEnd.slice(8, 10),
  month: periodEnd.slice(5, 7),
});

export const statementDue = (madeUpTo: string) => addDays(madeUpTo, 14);
