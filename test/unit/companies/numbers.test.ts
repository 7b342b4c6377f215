import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  AmbiguousCompanyNumberError,
  GB_PREFIXES,
  InvalidCompanyNumberError,
  isLikelyCompanyNumber,
  parseCompanyNumber,
} from '../../../shared/companies/numbers';

/**
 * Every company number in the register sample, read without a CSV parser: a few lines of the file
 * hold two records run together, and each record's number still sits between commas just before
 * its status label.
 */
const registerNumbers = (): string[] =>
  [
    ...readFileSync(new URL('../../../data/gb-companies-2024-01.csv', import.meta.url), 'utf8').matchAll(
      /,([A-Z0-9]{8}),(?=[A-Z][A-Za-z /-]*,)/g,
    ),
  ].map((match) => match[1] as string);

const errorOf = (action: () => unknown): unknown => {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
};

describe('GB company numbers', () => {
  it('parses every number in the register sample to itself, with and without a jurisdiction', () => {
    // Prepare
    const numbers = registerNumbers();

    // Act
    const mismatches = numbers.filter(
      (number) =>
        parseCompanyNumber(number, 'GB').companyNumber !== number ||
        parseCompanyNumber(number).companyNumber !== number ||
        parseCompanyNumber(number).jurisdiction !== 'GB',
    );

    // Assess
    expect(numbers).toHaveLength(16_305);
    expect(new Set(numbers).size).toBe(16_305);
    expect(mismatches).toEqual([]);
  });

  it.each([
    ['1234', '00001234'],
    ['01234567', '01234567'],
    [' 0123 4567 ', '01234567'],
    ['sc1234', 'SC001234'],
    ['SC 123456', 'SC123456'],
    ['oc301234', 'OC301234'],
    ['ni 5', 'NI000005'],
    ['r0000123', 'R0000123'],
    ['OE000123', 'OE000123'],
  ])('canonicalizes %j to %s', (raw, canonical) => {
    expect(parseCompanyNumber(raw, 'GB')).toEqual({ jurisdiction: 'GB', companyNumber: canonical });
  });

  it('knows the prefixes seen in the register sample', () => {
    for (const prefix of ['SC', 'NI', 'OC', 'FC', 'BR', 'OE', 'LP', 'SL', 'NC', 'SO']) expect(GB_PREFIXES).toHaveProperty(prefix);
  });

  it.each([
    ['XX123456', '"XX" is not a Companies House company number prefix'],
    ['123456789', 'more than 8'],
    ['SC1234567', 'more than 6'],
    ['00000000', 'cannot be zero'],
    ['SC000000', 'no number after the SC prefix'],
    ['12-34', 'is not a company number'],
    ['', 'empty'],
    ['   ', 'empty'],
  ])('rejects %j saying what is wrong and the accepted forms', (raw, reason) => {
    const error = errorOf(() => parseCompanyNumber(raw, 'GB'));

    expect(error).toBeInstanceOf(InvalidCompanyNumberError);
    expect((error as Error).message).toContain(reason);
    expect((error as Error).message).toContain('two-character Companies House prefix');
  });
});

describe('IE company numbers', () => {
  it.each([
    ['123456', '123456'],
    ['012345', '12345'],
    [' 7 ', '7'],
    ['1234567', '1234567'],
    ['00012345', '12345'],
  ])('canonicalizes %j to %s', (raw, canonical) => {
    expect(parseCompanyNumber(raw, 'IE')).toEqual({ jurisdiction: 'IE', companyNumber: canonical });
  });

  it.each([['12345678'], ['0'], ['IE123456'], ['SC123456'], ['12.5']])('rejects %j', (raw) => {
    const error = errorOf(() => parseCompanyNumber(raw, 'IE'));

    expect(error).toBeInstanceOf(InvalidCompanyNumberError);
    expect((error as Error).message).toContain('CRO numbers');
  });
});

describe('numbers without a jurisdiction', () => {
  it('assigns a prefixed or 8-digit number to GB', () => {
    expect(parseCompanyNumber('sc123456')).toEqual({ jurisdiction: 'GB', companyNumber: 'SC123456' });
    expect(parseCompanyNumber('00123456')).toEqual({ jurisdiction: 'GB', companyNumber: '00123456' });
  });

  it.each([['123456'], ['1'], ['0123456'], ['1234567']])('refuses to guess for %j, which both registers could hold', (raw) => {
    const error = errorOf(() => parseCompanyNumber(raw));

    expect(error).toBeInstanceOf(AmbiguousCompanyNumberError);
    expect((error as Error).message).toContain('could belong to both registers');
  });

  it('rejects what neither register could hold', () => {
    expect(errorOf(() => parseCompanyNumber('123456789'))).toBeInstanceOf(InvalidCompanyNumberError);
    expect(errorOf(() => parseCompanyNumber('ACME LTD'))).toBeInstanceOf(InvalidCompanyNumberError);
    expect(errorOf(() => parseCompanyNumber('9'.repeat(10_000)))).toBeInstanceOf(InvalidCompanyNumberError);
  });
});

describe('isLikelyCompanyNumber', () => {
  it('returns the canonical number when a search query is one', () => {
    expect(isLikelyCompanyNumber('sc 12345', 'GB')).toBe('SC012345');
    expect(isLikelyCompanyNumber('12345', 'GB')).toBe('00012345');
    expect(isLikelyCompanyNumber('012345', 'IE')).toBe('12345');
  });

  it('returns undefined for a name', () => {
    expect(isLikelyCompanyNumber('acme holdings', 'GB')).toBeUndefined();
    expect(isLikelyCompanyNumber('SC123456', 'IE')).toBeUndefined();
    expect(isLikelyCompanyNumber('3M', 'GB')).toBeUndefined();
  });
});
