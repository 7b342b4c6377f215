import { createReadStream } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateBritishCompanies, generateIrishCompanies } from '../../../demo/company-generator';
import { demoProfile } from '../../../demo/demo-profile';
import { readSearchExportProfiles } from '../../../demo/search-export';
import { BLOCK_NAMES, type ProfileContent, TRADING_STATUSES } from '../../../shared/companies/profile';
import { validateProfileContent } from '../../../shared/companies/profile-validation';
import schema from '../../../shared/companies/schema/profile.v1.schema.json' with { type: 'json' };
import { COMPANY_TYPES } from '../../../shared/register/register-csv';

const valid: ProfileContent = demoProfile({
  jurisdiction: 'GB',
  companyNumber: 'SC123456',
  name: 'ACME WIDGETS LTD',
  companyType: 'ltd',
  companySubtype: null,
  incorporatedOn: '2012-03-14',
  dissolvedOn: null,
  sicCodes: ['25990'],
  registeredOffice: '1 High Street Glasgow',
  tradingStatus: { status: 'active', registerStatus: 'Active', since: '2012-03-14' },
});

// biome-ignore lint/suspicious/noExplicitAny: the tests reach into arbitrary paths of a JSON document to break them.
type JsonDocument = Record<string, any>;

/** A copy of the valid profile with one change made through a JSON round trip. */
const changed = (change: (document: JsonDocument) => void): unknown => {
  const document = structuredClone(valid) as JsonDocument;
  change(document);
  return document;
};

const errorsOf = (value: unknown): string[] => {
  const result = validateProfileContent(value);
  return result.ok ? [] : result.errors;
};

describe('validateProfileContent accepts what the project produces', () => {
  it('accepts every profile read from the register sample', async () => {
    const rejected: string[] = [];
    for await (const record of readSearchExportProfiles(
      createReadStream(new URL('../../../data/gb-companies-2024-01.csv', import.meta.url)),
    )) {
      if (record.profile && !validateProfileContent(record.profile).ok) rejected.push(record.profile.companyNumber);
    }

    expect(rejected).toEqual([]);
  });

  it('accepts generated IE and GB profiles', () => {
    const profiles = [...generateIrishCompanies(2_000, 9), ...generateBritishCompanies(2_000, 9)];

    expect(profiles.map(errorsOf).filter((errors) => errors.length > 0)).toEqual([]);
  });

  it('accepts a profile as the API returns it and hands back its content without version and updatedAt', () => {
    const result = validateProfileContent({ ...valid, version: 3, updatedAt: '2025-07-01T10:00:00Z' });

    expect(result).toEqual({ ok: true, profile: valid });
  });
});

describe('validateProfileContent rejects what is wrong, naming the field', () => {
  it.each<[string, (document: JsonDocument) => void, string]>([
    ['an unknown top-level field', (document) => (document.rating = 'AAA'), 'profile: unknown field "rating"'],
    ['an unknown field inside a block', (document) => (document.overview.turnover = 1), 'overview: unknown field "turnover"'],
    ['a missing block', (document) => delete document.earlySignals, 'profile: missing field "earlySignals"'],
    ['a missing field', (document) => delete document.tradingStatus.registerStatus, 'tradingStatus: missing field "registerStatus"'],
    [
      'a value outside an enum',
      (document) => (document.riskOfFailure.level = 'Extreme'),
      'riskOfFailure.level: must be one of "Low", "Moderate", "High", "Severe"',
    ],
    ['a bad date', (document) => (document.overview.incorporatedOn = '14/03/2012'), 'overview.incorporatedOn: must match format "date"'],
    [
      'an impossible date',
      (document) => (document.filingBehaviour.nextAccountsDueOn = '2025-02-30'),
      'filingBehaviour.nextAccountsDueOn: must match format "date"',
    ],
    [
      'an instant without a time zone',
      (document) =>
        (document.earlySignals.signals = [
          {
            id: 'sig-1',
            kind: 'director_resigned',
            state: 'active',
            severity: 'info',
            summary: 'A director resigned',
            detectedAt: '2025-01-01T10:00:00',
            updatedAt: '2025-01-01T10:00:00Z',
          },
        ]),
      'earlySignals.signals.0.detectedAt: must match format "date-time"',
    ],
    [
      'money as a decimal',
      (document) => (document.creditCapacity.creditLimit.amountMinor = 12.5),
      'creditCapacity.creditLimit.amountMinor: must be integer',
    ],
    ['a risk score above 100', (document) => (document.riskOfFailure.score = 101), 'riskOfFailure.score: must be <= 100'],
    ['a GB number in the wrong form', (document) => (document.companyNumber = 'sc123456'), 'companyNumber: must match pattern'],
    [
      'a GB number with an unknown prefix',
      (document) => (document.companyNumber = 'XX123456'),
      'companyNumber: "XX" is not a Companies House company number prefix',
    ],
    [
      'an IE number with a leading zero',
      (document) => Object.assign(document, { jurisdiction: 'IE', companyNumber: '012345' }),
      'companyNumber: must match pattern',
    ],
    ['an unknown jurisdiction', (document) => (document.jurisdiction = 'FR'), 'jurisdiction: must be one of "GB", "IE"'],
    [
      'a trade limit above the credit limit',
      (document) =>
        Object.assign(document.creditCapacity, {
          creditLimit: { amountMinor: 100, currency: 'GBP' },
          tradeLimit: { amountMinor: 200, currency: 'GBP' },
        }),
      'creditCapacity.tradeLimit: must not exceed creditLimit',
    ],
    [
      'limits in two currencies',
      (document) => (document.creditCapacity.tradeLimit.currency = 'EUR'),
      'creditCapacity: creditLimit and tradeLimit must be in the same currency',
    ],
  ])('%s', (_, change, message) => {
    expect(errorsOf(changed(change)).join('\n')).toContain(message);
  });

  it('rejects two signals with one id', () => {
    const signal = {
      id: 'sig-SC123456-1',
      kind: 'director_resigned',
      state: 'active',
      severity: 'info',
      summary: 'A director resigned',
      detectedAt: '2025-01-01T10:00:00Z',
      updatedAt: '2025-01-01T10:00:00Z',
    };

    expect(errorsOf(changed((document) => (document.earlySignals.signals = [signal, { ...signal, state: 'expired' }])))).toEqual([
      'earlySignals.signals.1.id: "sig-SC123456-1" is used by an earlier signal',
    ]);
  });

  it.each([[null], [[]], ['profile'], [42], [{}]])('rejects %j', (value) => {
    expect(errorsOf(value).length).toBeGreaterThan(0);
  });

  it('reports every problem at once', () => {
    const errors = errorsOf(changed((document) => Object.assign(document, { name: '', dataSource: 'guess' })));

    expect(errors).toEqual(
      expect.arrayContaining(['name: must NOT have fewer than 1 characters', 'dataSource: must be one of "register", "demo"']),
    );
  });
});

describe('the schema and the model agree', () => {
  it('requires exactly the six blocks and the identity fields', () => {
    expect(schema.required).toEqual(['jurisdiction', 'companyNumber', 'name', 'version', 'updatedAt', 'dataSource', ...BLOCK_NAMES]);
  });

  it('lists the trading statuses and company types the code produces', () => {
    expect(schema.$defs.tradingStatus.properties.status.enum).toEqual([...TRADING_STATUSES]);
    expect([...schema.$defs.overview.properties.companyType.enum].sort()).toEqual([...COMPANY_TYPES].sort());
  });

  it('describes every field', () => {
    const undescribed: string[] = [];
    const visit = (node: unknown, path: string) => {
      if (!node || typeof node !== 'object') return;
      const properties = (node as { properties?: Record<string, Record<string, unknown>> }).properties ?? {};
      for (const [name, property] of Object.entries(properties)) {
        if (!property.description && !(property.$ref && path.endsWith('$root'))) undescribed.push(`${path}.${name}`);
      }
    };
    visit(schema, '$root');
    for (const [name, definition] of Object.entries(schema.$defs)) visit(definition, name);

    expect(undescribed).toEqual([]);
  });
});
