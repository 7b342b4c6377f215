import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { readSearchExportProfiles } from '../../../demo/search-export';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { normalizeName } from '../../../shared/companies/names';
import type { ProfileContent } from '../../../shared/companies/profile';
import { type SearchItem, searchCompanies } from '../../../shared/companies/search';
import { importProfiles } from '../../../shared/register/import/import';
import { companiesTable } from '../../../shared/storage/tables';
import { createTestTables } from '../../support/dynamo';
import { MemoryNameIndex } from '../../support/memory-name-index';

/**
 * Search quality on the real register sample (data/gb-companies-2024-01.csv, Companies House, Open
 * Government Licence v3.0), read through the real CSV reader.
 *
 * Every company of the file is checked against the in-memory index, which is built by the same key
 * functions and read with DynamoDB's Query semantics. DynamoDB Local writes about a thousand index
 * items a second, too slow to load 16,300 companies in a test, so a slice of the file is imported
 * through the real store and import, and must answer every query exactly as the in-memory index
 * built from the same slice does.
 */
const SAMPLE = fileURLToPath(new URL('../../../data/gb-companies-2024-01.csv', import.meta.url));
const DYNAMO_SLICE_EVERY = 40;

let profiles: ProfileContent[];
let wholeFile: MemoryNameIndex;

beforeAll(async () => {
  profiles = [];
  for await (const record of readSearchExportProfiles(createReadStream(SAMPLE))) if (record.profile) profiles.push(record.profile);
  wholeFile = new MemoryNameIndex(profiles);
});

const numbers = (items: readonly SearchItem[]) => items.map((item) => item.companyNumber);
const firstTwoWords = (name: string) => name.trim().split(/\s+/).slice(0, 2).join(' ');

describe('search quality on the register sample', () => {
  it('finds CPA GATES LTD (15380840) first for "CPA GATES"', async () => {
    const page = await searchCompanies(wholeFile, { q: 'CPA GATES', jurisdiction: 'GB', limit: 20 });

    expect(page.items[0]).toMatchObject({ companyNumber: '15380840', name: 'CPA GATES LTD', match: { type: 'exact' } });
  });

  it('puts every company first for its exact name, unless another company has the same normalized name', async () => {
    const sharing = new Map<string, number>();
    for (const profile of profiles) sharing.set(normalizeName(profile.name), (sharing.get(normalizeName(profile.name)) ?? 0) + 1);
    let first = 0;
    let sharedFoundInExactTier = 0;
    const misses: string[] = [];

    for (const profile of profiles) {
      const companies = sharing.get(normalizeName(profile.name)) ?? 0;
      const page = await searchCompanies(wholeFile, { q: profile.name, jurisdiction: 'GB', limit: Math.max(1, companies) });
      if (page.items[0]?.companyNumber === profile.companyNumber) first++;
      else if (
        companies > 1 &&
        page.items.every((item) => item.match.type === 'exact') &&
        numbers(page.items).includes(profile.companyNumber)
      )
        sharedFoundInExactTier++;
      else misses.push(`${profile.companyNumber} ${profile.name}`);
    }

    console.info(`exact name: ${first} of ${profiles.length} first; ${sharedFoundInExactTier} share their name and are in its exact tier`);
    expect(profiles.length).toBeGreaterThan(16_000);
    expect(misses).toEqual([]);
  });

  it('finds every company in the top 20 for the first two words of its name', async () => {
    let found = 0;
    const misses: string[] = [];

    for (const profile of profiles) {
      const page = await searchCompanies(wholeFile, { q: firstTwoWords(profile.name), jurisdiction: 'GB', limit: 20 });
      if (numbers(page.items).includes(profile.companyNumber)) found++;
      else misses.push(`${firstTwoWords(profile.name)} → ${profile.companyNumber} ${profile.name}`);
    }

    console.info(`first two words: recall@20 ${((100 * found) / profiles.length).toFixed(2)}% (${found} of ${profiles.length})`);
    expect(found / profiles.length).toBeGreaterThanOrEqual(0.99);
  });
});

describe('DynamoDB Local answers as the in-memory index does, on a slice of the sample', () => {
  let store: DynamoCompanyStore;
  let slice: ProfileContent[];
  let sliceIndex: MemoryNameIndex;

  beforeAll(async () => {
    // Search needs no stream, and stream records slow DynamoDB Local down for every later test.
    const tables = await createTestTables([{ ...companiesTable, stream: undefined }]);
    store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
    slice = profiles.filter((_, index) => index % DYNAMO_SLICE_EVERY === 0);
    sliceIndex = new MemoryNameIndex(slice);
    async function* records() {
      for (const [index, profile] of slice.entries()) yield { line: index + 2, profile };
    }
    const result = await importProfiles(records(), store, { concurrency: 4, batchSize: 25 });
    expect(result.created).toBe(slice.length);
  }, 120_000);

  it('gives the same pages, page by page, for names, name starts, word starts and numbers', async () => {
    const queries = [
      'CPA GATES',
      ...slice
        .filter((_, index) => index % 16 === 0)
        .flatMap((profile) => [profile.name, firstTwoWords(profile.name), profile.name.slice(0, 3), profile.companyNumber]),
      'holdings',
      'property ltd',
      'uk',
    ];
    for (const q of queries) {
      if (normalizeName(q) === '' || q.trim().length < 2) continue;
      let cursor: string | undefined;
      for (let page = 0; page < 3; page++) {
        const fromDynamo = await searchCompanies(store, { q, jurisdiction: 'GB', limit: 7, cursor });
        const fromMemory = await searchCompanies(sliceIndex, { q, jurisdiction: 'GB', limit: 7, cursor });
        expect(fromDynamo, `${q} page ${page + 1}`).toEqual(fromMemory);
        cursor = fromDynamo.nextCursor;
        if (cursor === undefined) break;
      }
    }
  });
});
