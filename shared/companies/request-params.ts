import { badRequest } from '../http/errors';
import { AmbiguousCompanyNumberError, InvalidCompanyNumberError, type ParsedCompanyNumber, parseCompanyNumber } from './numbers';
import type { Jurisdiction } from './profile';
import { JURISDICTIONS } from './profile';

/**
 * Query-parameter readers shared by the read endpoints. Each refuses what it cannot read with a 400
 * that names the parameter; parameters an endpoint does not know are ignored.
 */

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

/**
 * One value, or undefined when absent. A parameter given twice is refused rather than guessed, and so
 * is one given empty (`jurisdiction=`): that is a client bug to report, not a parameter to ignore.
 */
export function singleParam(query: URLSearchParams, name: string, code: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw badRequest(code, `Give ${name} once; it was given ${values.length} times.`, { parameter: name });
  const value = values[0];
  if (value === '') throw badRequest(code, `${name} is empty; give it a value or leave it out.`, { parameter: name });
  return value;
}

/** GB or IE, in any letter case ("gb" reads as GB); undefined when absent. */
export function jurisdictionParam(query: URLSearchParams): Jurisdiction | undefined {
  const raw = singleParam(query, 'jurisdiction', 'invalid_jurisdiction');
  if (raw === undefined) return undefined;
  const jurisdiction = raw.trim().toUpperCase();
  if (!JURISDICTIONS.includes(jurisdiction as Jurisdiction)) {
    throw badRequest('invalid_jurisdiction', `jurisdiction must be GB or IE, not "${raw.slice(0, 20)}".`, { parameter: 'jurisdiction' });
  }
  return jurisdiction as Jurisdiction;
}

export function requiredJurisdictionParam(query: URLSearchParams): Jurisdiction {
  const jurisdiction = jurisdictionParam(query);
  if (jurisdiction === undefined)
    throw badRequest('invalid_jurisdiction', 'jurisdiction is required: GB or IE.', { parameter: 'jurisdiction' });
  return jurisdiction;
}

export function limitParam(query: URLSearchParams): number {
  const raw = singleParam(query, 'limit', 'invalid_limit');
  if (raw === undefined) return DEFAULT_PAGE_LIMIT;
  const limit = /^\d{1,3}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_PAGE_LIMIT)) {
    throw badRequest('invalid_limit', `limit must be a whole number from 1 to ${MAX_PAGE_LIMIT} (default ${DEFAULT_PAGE_LIMIT}).`, {
      parameter: 'limit',
    });
  }
  return limit;
}

/** A company number as a client wrote it, read in the jurisdiction given; a refusal names the parameter. */
export function companyNumberOf(raw: string, jurisdiction: Jurisdiction | undefined): ParsedCompanyNumber {
  try {
    return parseCompanyNumber(raw, jurisdiction);
  } catch (error) {
    if (error instanceof InvalidCompanyNumberError)
      throw badRequest('invalid_company_number', error.message, { parameter: 'companyNumber' });
    if (error instanceof AmbiguousCompanyNumberError) {
      throw badRequest('jurisdiction_required', `${error.message}: pass jurisdiction=GB or jurisdiction=IE.`, {
        parameter: 'jurisdiction',
      });
    }
    throw error;
  }
}
