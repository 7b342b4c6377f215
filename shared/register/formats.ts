import { COMPANIES_HOUSE_BULK_COLUMNS } from './companies-house-bulk';
import { CRO_COLUMNS } from './cro-companies';
import { REGISTER_COLUMNS } from './register-csv';

/** The CSV layouts an import reads, each told by its header. */
export type CsvFormat = 'companies-house-bulk' | 'cro-companies' | 'search-export';

/** The registers' own snapshot files, as against the search export and profile documents. */
export const isRegisterFormat = (format: string): format is 'companies-house-bulk' | 'cro-companies' =>
  format === 'companies-house-bulk' || format === 'cro-companies';

const FORMATS: readonly { format: CsvFormat; label: string; columns: readonly string[] }[] = [
  { format: 'companies-house-bulk', label: 'the Companies House bulk file (BasicCompanyData)', columns: COMPANIES_HOUSE_BULK_COLUMNS },
  { format: 'cro-companies', label: 'the CRO companies file', columns: CRO_COLUMNS },
  { format: 'search-export', label: 'the Companies House search export', columns: REGISTER_COLUMNS },
];

export type HeaderMatch = { readonly format: CsvFormat; readonly columns: readonly string[] } | { readonly error: string };

/**
 * The format whose columns the header holds, names trimmed (the bulk file publishes some with a
 * leading space). A header that holds no format whole is refused, naming what the closest format
 * lacks; extra columns are allowed, since registers add columns at the end.
 */
export function matchHeader(fields: readonly string[]): HeaderMatch {
  const columns = fields.map((field) => field.trim());
  const present = new Set(columns);
  const candidates = FORMATS.map((candidate) => ({ ...candidate, missing: candidate.columns.filter((column) => !present.has(column)) }));
  const whole = candidates.find((candidate) => candidate.missing.length === 0);
  if (whole) return { format: whole.format, columns };
  const closest = [...candidates].sort(
    (a, b) => a.missing.length / a.columns.length - b.missing.length / b.columns.length,
  )[0] as (typeof candidates)[number];
  if (closest.missing.length === closest.columns.length) {
    return {
      error: `the header matches no format this import reads: expected the columns of ${FORMATS.map((format) => format.label).join(', or ')} (e.g. ${FORMATS.map((format) => format.columns.slice(0, 2).join(', ')).join('; ')})`,
    };
  }
  return { error: `the header looks like ${closest.label} but lacks the column(s) ${closest.missing.join(', ')}` };
}
