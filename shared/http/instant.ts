/** An RFC 3339 date-time with its offset, as ISO 8601 writes it: 2026-11-24T12:00:00Z, …T12:00:00.250+01:00. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * The instant a client's text names, or undefined when it is not a full date-time with an offset.
 * Date.parse alone would take "2026-11-24" as midnight UTC and roll "02-30" over into March.
 */
export function parseInstant(text: string): Date | undefined {
  const parts = RFC3339.exec(text);
  if (!parts) return undefined;
  const [, year, month, day, hour, minute, second] = parts.map(Number) as number[];
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) return undefined;
  const calendar = new Date(Date.UTC(year as number, (month as number) - 1, day as number));
  if (calendar.getUTCMonth() !== (month as number) - 1 || calendar.getUTCDate() !== day) return undefined;
  if ((hour as number) > 23 || (minute as number) > 59 || (second as number) > 59) return undefined;
  return at;
}
