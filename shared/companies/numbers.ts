import type { Jurisdiction } from './profile';

/**
 * Company numbers as the two registers issue them, and the one canonical spelling of each that
 * the store keys on.
 *
 * GB (Companies House): 8 characters. England & Wales companies are 8 digits; every other kind
 * of entity carries a two-character prefix followed by 6 digits (SC123456, OC301234, R0000123).
 * IE (Companies Registration Office): a plain positive integer, written without leading zeros.
 */

/** Companies House company number prefixes and what each marks. */
export const GB_PREFIXES: Readonly<Record<string, string>> = {
  AC: 'Assurance company (England and Wales)',
  BR: 'UK establishment of an overseas company',
  CE: 'Charitable incorporated organisation (England and Wales)',
  CS: 'Charitable incorporated organisation (Scotland)',
  EN: 'European company, Societas Europaea (Northern Ireland)',
  ES: 'European company, Societas Europaea (Scotland)',
  FC: 'Overseas company',
  GE: 'European Economic Interest Grouping (England and Wales)',
  GN: 'European Economic Interest Grouping (Northern Ireland)',
  GS: 'European Economic Interest Grouping (Scotland)',
  IC: 'Investment company with variable capital (England and Wales)',
  IP: 'Industrial and provident society (England and Wales)',
  LP: 'Limited partnership (England and Wales)',
  NA: 'Assurance company (Northern Ireland)',
  NC: 'Limited liability partnership (Northern Ireland)',
  NF: 'Overseas company registered in Northern Ireland before 1 October 2009',
  NI: 'Northern Ireland company',
  NL: 'Limited partnership (Northern Ireland)',
  NO: 'Credit union or industrial and provident society (Northern Ireland)',
  NP: 'Industrial and provident society (Northern Ireland)',
  NR: 'Royal charter company (Northern Ireland)',
  NV: 'Investment company with variable capital (Northern Ireland)',
  NZ: 'Unregistered company (Northern Ireland)',
  OC: 'Limited liability partnership (England and Wales)',
  OE: 'Overseas entity',
  R0: 'Northern Ireland company registered before partition',
  RC: 'Royal charter company (England and Wales)',
  RS: 'Registered society',
  SA: 'Assurance company (Scotland)',
  SC: 'Scottish company',
  SE: 'European company, Societas Europaea (England and Wales)',
  SF: 'Overseas company registered in Scotland before 1 October 2009',
  SG: 'Scottish qualifying partnership',
  SI: 'Investment company with variable capital (Scotland)',
  SL: 'Limited partnership (Scotland)',
  SO: 'Limited liability partnership (Scotland)',
  SP: 'Industrial and provident society (Scotland)',
  SR: 'Royal charter company (Scotland)',
  SZ: 'Unregistered company (Scotland)',
  ZC: 'Unregistered company (England and Wales)',
};

const GB_ACCEPTED_FORMS =
  'GB company numbers are up to 8 digits (e.g. 01234567, zero-padded when shorter) or a two-character Companies House prefix followed by up to 6 digits (e.g. SC123456)';
const IE_ACCEPTED_FORMS = 'IE company numbers are CRO numbers: positive whole numbers of up to 7 digits (e.g. 123456)';
const IE_MAX_DIGITS = 7;
/** Longer input is not a company number under any spelling; refuse it before looking further. */
const MAX_INPUT_LENGTH = 32;

/** The text is no company number of the register(s) it was read for; the message names the accepted forms. */
export class InvalidCompanyNumberError extends Error {
  constructor(reason: string, jurisdiction?: Jurisdiction) {
    const forms =
      jurisdiction === 'GB' ? GB_ACCEPTED_FORMS : jurisdiction === 'IE' ? IE_ACCEPTED_FORMS : `${GB_ACCEPTED_FORMS}; ${IE_ACCEPTED_FORMS}`;
    super(`${reason}. ${forms}.`);
    this.name = 'InvalidCompanyNumberError';
  }
}

/** Both registers could hold the number: only the caller can say which one is meant. */
export class AmbiguousCompanyNumberError extends Error {
  constructor(readonly candidates: { readonly GB: string; readonly IE: string }) {
    super(`The company number could belong to both registers (GB ${candidates.GB} or IE ${candidates.IE})`);
    this.name = 'AmbiguousCompanyNumberError';
  }
}

export interface ParsedCompanyNumber {
  readonly jurisdiction: Jurisdiction;
  readonly companyNumber: string;
}

const compact = (raw: string) => raw.trim().toUpperCase().replace(/\s+/g, '');

function parseGb(value: string): string {
  if (/^\d+$/.test(value)) {
    if (value.length > 8) throw new InvalidCompanyNumberError(`"${value}" has ${value.length} digits, more than 8`, 'GB');
    if (/^0+$/.test(value)) throw new InvalidCompanyNumberError('A company number cannot be zero', 'GB');
    return value.padStart(8, '0');
  }
  const prefixed = /^([A-Z][A-Z0-9])(\d+)$/.exec(value);
  if (!prefixed) throw new InvalidCompanyNumberError(`"${value}" is not a company number`, 'GB');
  const [, prefix = '', digits = ''] = prefixed;
  if (!(prefix in GB_PREFIXES)) throw new InvalidCompanyNumberError(`"${prefix}" is not a Companies House company number prefix`, 'GB');
  if (digits.length > 6)
    throw new InvalidCompanyNumberError(`"${value}" has ${digits.length} digits after the ${prefix} prefix, more than 6`, 'GB');
  if (/^0+$/.test(digits)) throw new InvalidCompanyNumberError(`"${value}" has no number after the ${prefix} prefix`, 'GB');
  return prefix + digits.padStart(6, '0');
}

function parseIe(value: string): string {
  if (!/^\d+$/.test(value)) throw new InvalidCompanyNumberError(`"${value}" is not a whole number`, 'IE');
  const significant = value.replace(/^0+/, '');
  if (significant === '') throw new InvalidCompanyNumberError('A company number cannot be zero', 'IE');
  if (significant.length > IE_MAX_DIGITS) throw new InvalidCompanyNumberError(`"${value}" has more than ${IE_MAX_DIGITS} digits`, 'IE');
  return significant;
}

/**
 * Reads a company number as a person or a system may write it and returns its canonical form.
 * Without a jurisdiction, a letter prefix or 8 digits can only be GB; 1 to 7 digits could be either
 * register, and the caller must say which.
 */
export function parseCompanyNumber(raw: string, jurisdiction?: Jurisdiction): ParsedCompanyNumber {
  if (raw.length > MAX_INPUT_LENGTH)
    throw new InvalidCompanyNumberError(`A company number has at most ${MAX_INPUT_LENGTH} characters`, jurisdiction);
  const value = compact(raw);
  if (value === '') throw new InvalidCompanyNumberError('The company number is empty', jurisdiction);
  if (jurisdiction === 'GB') return { jurisdiction, companyNumber: parseGb(value) };
  if (jurisdiction === 'IE') return { jurisdiction, companyNumber: parseIe(value) };

  if (!/^\d+$/.test(value) || value.length === 8) return { jurisdiction: 'GB', companyNumber: parseGb(value) };
  if (value.length > 8) throw new InvalidCompanyNumberError(`"${value}" has ${value.length} digits, more than any register uses`);
  throw new AmbiguousCompanyNumberError({ GB: parseGb(value), IE: parseIe(value) });
}

/** The canonical number when a search query is shaped like a number of that register, else undefined. */
export function isLikelyCompanyNumber(query: string, jurisdiction: Jurisdiction): string | undefined {
  try {
    return parseCompanyNumber(query, jurisdiction).companyNumber;
  } catch (error) {
    if (error instanceof InvalidCompanyNumberError) return undefined;
    throw error;
  }
}
