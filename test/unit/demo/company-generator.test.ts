import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateBritishCompanies, generateCompanies, generateIrishCompanies } from '../../../demo/company-generator';
import { normalizeName } from '../../../shared/companies/names';
import { parseCompanyNumber } from '../../../shared/companies/numbers';

const IE_SUFFIXES_BY_TYPE: Readonly<Record<string, RegExp>> = {
  ltd: / (LIMITED|LTD|TEORANTA)$/,
  dac: / (DAC|DESIGNATED ACTIVITY COMPANY|CUIDEACHTA GHNÍOMHAÍOCHTA AINMNITHE)$/,
  plc: / (PLC|PUBLIC LIMITED COMPANY)$/,
  clg: / (CLG|COMPANY LIMITED BY GUARANTEE)$/,
  ulc: / (UNLIMITED COMPANY|UC)$/,
};

describe('generateIrishCompanies', () => {
  it('gives unique canonical CRO numbers spread over 1-800,000', () => {
    // Act
    const numbers = Array.from(generateIrishCompanies(20_000, 1), (profile) => Number(profile.companyNumber));

    // Assess
    expect(new Set(numbers).size).toBe(20_000);
    expect(Math.min(...numbers)).toBeLessThan(10_000);
    expect(Math.max(...numbers)).toBeGreaterThan(790_000);
    expect(numbers.every((number) => number >= 1 && number <= 800_000)).toBe(true);
    expect(numbers.every((number) => parseCompanyNumber(String(number), 'IE').companyNumber === String(number))).toBe(true);
  });

  it('repeats itself for a seed and differs for another', () => {
    const first = [...generateIrishCompanies(500, 1)];

    expect([...generateIrishCompanies(500, 1)]).toEqual(first);
    expect([...generateIrishCompanies(500, 2)].map((profile) => profile.companyNumber)).not.toEqual(
      first.map((profile) => profile.companyNumber),
    );
  });

  it('names each company with the legal suffix of its type, some in Irish, all with EUR demo blocks', () => {
    const profiles = [...generateIrishCompanies(3_000, 1)];

    for (const profile of profiles) {
      expect(profile.name).toMatch(IE_SUFFIXES_BY_TYPE[profile.overview.companyType] ?? /^$/);
      expect(normalizeName(profile.name)).not.toBe('');
      expect(profile).toMatchObject({ jurisdiction: 'IE', dataSource: 'demo' });
      expect(profile.creditCapacity.creditLimit?.currency).toBe('EUR');
      expect(profile.overview.sicCodes.every((code) => /^\d{4}$/.test(code))).toBe(true);
    }
    expect(new Set(profiles.map((profile) => profile.overview.companyType))).toEqual(new Set(['ltd', 'dac', 'plc', 'clg', 'ulc']));
    expect(profiles.some((profile) => profile.name.endsWith(' TEORANTA'))).toBe(true);
    expect(profiles.some((profile) => profile.name.endsWith(' CUIDEACHTA GHNÍOMHAÍOCHTA AINMNITHE'))).toBe(true);
    expect(new Set(profiles.map((profile) => profile.tradingStatus.registerStatus)).size).toBeGreaterThan(3);
  });

  it('dates incorporation by number, as the register issues numbers in sequence', () => {
    const byNumber = [...generateIrishCompanies(2_000, 1)].sort((a, b) => Number(a.companyNumber) - Number(b.companyNumber));
    const years = byNumber.map((profile) => Number(profile.overview.incorporatedOn?.slice(0, 4)));

    expect(years[0]).toBeLessThan(1930);
    expect(years.at(-1)).toBeGreaterThanOrEqual(2024);
    expect(years.every((year, index) => index === 0 || year >= (years[index - 1] ?? 0) - 1)).toBe(true);
  });

  it('refuses more companies than the number range holds', () => {
    expect(() => generateIrishCompanies(800_001).next()).toThrow(RangeError);
    expect(() => generateIrishCompanies(-1).next()).toThrow(RangeError);
  });
});

describe('generateBritishCompanies', () => {
  it('numbers companies 09000000-09999999, apart from every number in the real sample', () => {
    // Prepare
    const csv = readFileSync(new URL('../../../data/gb-companies-2024-01.csv', import.meta.url), 'utf8');
    const sample = new Set(Array.from(csv.matchAll(/,([A-Z0-9]{8}),(?=[A-Z])/g), (match) => match[1]));

    // Act
    const numbers = Array.from(generateBritishCompanies(20_000, 1), (profile) => profile.companyNumber);

    // Assess
    expect(new Set(numbers).size).toBe(20_000);
    expect(numbers.every((number) => /^09\d{6}$/.test(number))).toBe(true);
    expect(sample.size).toBe(16_305);
    expect(numbers.filter((number) => sample.has(number))).toEqual([]);
  });

  it('repeats itself for a seed, with GBP demo blocks', () => {
    const first = [...generateBritishCompanies(300, 5)];

    expect([...generateBritishCompanies(300, 5)]).toEqual(first);
    expect(first.every((profile) => profile.jurisdiction === 'GB' && profile.creditCapacity.creditLimit?.currency === 'GBP')).toBe(true);
  });

  it('is what generateCompanies gives for GB, as the Irish generator is for IE', () => {
    expect([...generateCompanies('GB', 10, 4)]).toEqual([...generateBritishCompanies(10, 4)]);
    expect([...generateCompanies('IE', 10, 4)]).toEqual([...generateIrishCompanies(10, 4)]);
  });
});
