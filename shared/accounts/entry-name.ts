/**
 * What an entry's name says about the filing inside it. The Accounts Data Product names each entry
 * `Prod223_<run>_<companyNumber>_<YYYYMMDD>.html` (monthly files: `Prod224_…`; XBRL: `.xml`), the date
 * being the balance-sheet date. Single documents saved from the register are also met as
 * `GB-COH-<companyNumber>-<YYYY-MM-DD>.html`.
 */
export interface EntryName {
  readonly companyNumber: string;
  /** ISO date. */
  readonly balanceSheetDate: string;
  readonly kind: 'ixbrl' | 'xbrl';
}

export type EntryNameReading = { readonly ok: true; readonly name: EntryName } | { readonly ok: false; readonly reason: string };

const PRODUCT_NAME = /^Prod22\d_\d+_([A-Za-z0-9]+)_(\d{4})(\d{2})(\d{2})\.(html?|xhtml|xml)$/i;
const REGISTER_NAME = /^GB-COH-([A-Za-z0-9]+)-(\d{4})-(\d{2})-(\d{2})\.(html?|xhtml|xml)$/i;
/** Eight characters: digits, or a two-letter register prefix (SC, NI, OC, …) and six digits. */
const COMPANY_NUMBER = /^(?:\d{8}|[A-Z]{2}\d{6})$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function isRealDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1 || year < 1900) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number));
}

/** The last path segment: zip entries may sit in folders. */
export function baseName(path: string): string {
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return slash < 0 ? path : path.slice(slash + 1);
}

/**
 * A register number as Companies House writes it: upper case, no spaces, zero-padded to eight
 * characters ("7175596" is 07175596, "SC12345" is SC012345). Null when it cannot be one.
 */
export function normalizeCompanyNumber(raw: string): string | null {
  const compact = raw.replace(/\s+/g, '').toUpperCase();
  const prefixed = /^([A-Z]{2})(\d{1,6})$/.exec(compact);
  const padded = prefixed
    ? `${prefixed[1]}${(prefixed[2] as string).padStart(6, '0')}`
    : /^\d{1,8}$/.test(compact)
      ? compact.padStart(8, '0')
      : compact;
  return COMPANY_NUMBER.test(padded) ? padded : null;
}

export function readEntryName(path: string): EntryNameReading {
  const name = baseName(path);
  const match = PRODUCT_NAME.exec(name) ?? REGISTER_NAME.exec(name);
  if (!match) {
    return {
      ok: false,
      reason: `the name "${name}" is not an accounts entry name (Prod223_<run>_<companyNumber>_<YYYYMMDD>.html or .xml)`,
    };
  }
  const [, number, year, month, day, extension] = match as unknown as [string, string, string, string, string, string];
  const companyNumber = normalizeCompanyNumber(number);
  if (!companyNumber || companyNumber !== number.toUpperCase()) {
    return { ok: false, reason: `the name "${name}" carries no company number ("${number}" is not one)` };
  }
  if (!isRealDate(Number(year), Number(month), Number(day))) {
    return { ok: false, reason: `the name "${name}" carries no balance-sheet date ("${year}${month}${day}" is not a date)` };
  }
  return {
    ok: true,
    name: {
      companyNumber,
      balanceSheetDate: `${year}-${month}-${day}`,
      kind: extension.toLowerCase() === 'xml' ? 'xbrl' : 'ixbrl',
    },
  };
}
