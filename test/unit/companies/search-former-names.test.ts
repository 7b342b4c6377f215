import { describe, expect, it } from 'vitest';
import { indexedNamesOf } from '../../../shared/companies/company-store';
import type { ProfileContent } from '../../../shared/companies/profile';
import { searchCompanies } from '../../../shared/companies/search';
import { indexItemsOf, MAX_INDEX_ITEMS, searchEntryOf } from '../../../shared/companies/search-index';
import { MemoryNameIndex } from '../../support/memory-name-index';
import { profileContent } from '../../support/profile-fixture';

const renamed = (companyNumber: string, name: string, ...former: string[]): ProfileContent => {
  const content = profileContent({ companyNumber, name });
  return {
    ...content,
    overview: { ...content.overview, previousNames: former.map((formerName, i) => ({ name: formerName, changedOn: `202${3 - i}-05-01` })) },
  };
};

const index = new MemoryNameIndex([
  renamed('50000001', 'ZEPHYR HOLDINGS LTD', 'ACME WIDGETS LIMITED'),
  profileContent({ companyNumber: '50000002', name: 'ACME WIDGETS LTD' }),
  renamed('50000003', 'ACME WIDGETS EUROPE LTD', 'ACME WIDGETS EU LTD', 'ACME EUROPE LTD'),
  renamed('50000004', 'HARROW TIMBER LTD', 'HARROW TIMBER LIMITED', 'WEALD TIMBER LIMITED'),
  profileContent({ companyNumber: '50000005', name: 'WEALD TIMBER LTD' }),
]);
const search = (q: string, limit = 10) => searchCompanies(index, { q, jurisdiction: 'GB', limit });
const summary = (items: Awaited<ReturnType<typeof search>>['items']) =>
  items.map((item) => [item.companyNumber, item.match.type, item.matchedPreviousName ?? null]);

describe('search by a former name', () => {
  it('finds a renamed company by its former name and says which name matched', async () => {
    const page = await search('acme widgets');

    expect(summary(page.items)).toEqual([
      ['50000002', 'exact', null],
      ['50000001', 'exact', 'ACME WIDGETS LIMITED'],
      ['50000003', 'name_prefix', null],
    ]);
    expect(page.items[1]).toEqual({
      companyNumber: '50000001',
      jurisdiction: 'GB',
      name: 'ZEPHYR HOLDINGS LTD',
      status: 'active',
      type: 'ltd',
      incorporatedOn: '2024-01-02',
      match: { type: 'exact' },
      matchedPreviousName: 'ACME WIDGETS LIMITED',
    });
  });

  it('says nothing of former names when the current name matched', async () => {
    const page = await search('zephyr holdings');

    expect(page.items).toHaveLength(1);
    expect(page.items[0]).not.toHaveProperty('matchedPreviousName');
  });

  it('shows a company once when several of its names match, under its current name when they match equally well', async () => {
    const page = await search('acme');

    expect(page.items.map((item) => item.companyNumber).sort()).toEqual(['50000001', '50000002', '50000003']);
    expect(summary(page.items).find(([number]) => number === '50000003')).toEqual(['50000003', 'name_prefix', null]);
  });

  it('shows a company under a former name that matches better than its current name', async () => {
    const page = await search('acme widgets eu');

    expect(summary(page.items)).toEqual([['50000003', 'exact', 'ACME WIDGETS EU LTD']]);
  });

  it('finds former names by their words in any order, and ranks a current name before the same former one', async () => {
    const page = await search('timber weald');

    expect(summary(page.items)).toEqual([
      ['50000005', 'word_prefix', null],
      ['50000004', 'word_prefix', 'WEALD TIMBER LIMITED'],
    ]);
  });

  it('forgives a typo in a former name', async () => {
    const page = await search('acme widgtes');

    expect(page.items.map((item) => [item.companyNumber, item.matchedPreviousName ?? null])).toContainEqual([
      '50000001',
      'ACME WIDGETS LIMITED',
    ]);
    expect(page.items.every((item) => item.match.type === 'fuzzy')).toBe(true);
  });

  it('pages through current and former names without showing a company twice', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await searchCompanies(index, { q: 'acme', jurisdiction: 'GB', limit: 1, cursor });
      seen.push(...page.items.map((item) => item.companyNumber));
      cursor = page.nextCursor;
    } while (cursor !== undefined);

    expect(seen).toEqual((await search('acme')).items.map((item) => item.companyNumber));
    expect(new Set(seen).size).toBe(seen.length);
  });
});

describe('former names in the index', () => {
  it('indexes a former name that reads as the current one, or as a more recent former one, only once', () => {
    const names = indexedNamesOf(renamed('1', 'HARROW TIMBER LTD', 'HARROW TIMBER LIMITED', 'WEALD TIMBER LTD', 'WEALD TIMBER PLC'));

    expect(names.formerNames?.map((name) => name.name)).toEqual(['WEALD TIMBER LTD']);
  });

  it('keeps the items of all names within one transaction, leaving out the oldest former names', () => {
    const many = Array.from({ length: 20 }, (_, i) => `FORMER NAME NUMBER ${i} OF MANY WORDS LTD`);
    const content = renamed('1', 'CURRENT LTD', ...many);
    const items = indexItemsOf(searchEntryOf(content, indexedNamesOf(content)));

    expect(items.length).toBeLessThanOrEqual(MAX_INDEX_ITEMS);
    expect(items.filter((item) => item.kind === 'name').map((item) => item.formerName ?? null)).toEqual([
      null,
      ...many.slice(0, (MAX_INDEX_ITEMS - 2) / 8),
    ]);
  });
});
