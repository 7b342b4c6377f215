import { describe, expect, it } from 'vitest';
import { searchCompanies } from '../../../shared/companies/search';
import { deletionVariants, isCorrectable, oneEditApart } from '../../../shared/companies/spelling';
import { MemoryNameIndex } from '../../support/memory-name-index';
import { profileContent } from '../../support/profile-fixture';

const indexOf = (names: readonly string[]) =>
  new MemoryNameIndex(names.map((name, i) => profileContent({ companyNumber: String(30_000_000 + i), name })));

describe('one-edit spelling', () => {
  it('finds a letter dropped, added, changed, or two neighbours swapped, and nothing further', () => {
    expect(oneEditApart('logistcs', 'logistics')).toBe(true);
    expect(oneEditApart('improvvements', 'improvements')).toBe(true);
    expect(oneEditApart('recruitent', 'recruitment')).toBe(true);
    expect(oneEditApart('logistcis', 'logistics')).toBe(true);
    expect(oneEditApart('lpgistics', 'logistics')).toBe(true);
    expect(oneEditApart('logistics', 'logistics')).toBe(false);
    expect(oneEditApart('lgoistcis', 'logistics')).toBe(false);
    expect(oneEditApart('logist', 'logistics')).toBe(false);
  });

  it('corrects words of five to 24 letters only', () => {
    expect(isCorrectable('bank')).toBe(false);
    expect(isCorrectable('banks')).toBe(true);
    expect(isCorrectable('x'.repeat(25))).toBe(false);
  });

  it('leaves numbers out of the vocabulary: they are not misspelt words', () => {
    expect(isCorrectable('15380840')).toBe(false);
    expect(isCorrectable('2024-25')).toBe(false);
    expect(isCorrectable('route66')).toBe(true);
  });

  it('makes one deletion variant per distinct result', () => {
    expect(deletionVariants('hello').sort()).toEqual(['ello', 'hell', 'helo', 'hllo']);
  });
});

describe('search with a typo', () => {
  const index = indexOf([
    'Kings Logistics Services Ltd',
    'Kings Lodge Ltd',
    'Delta Improvements Ltd',
    'Delta Improvemint Ltd',
    'Alpha Builders Ltd',
    'Alpahs Builders Ltd',
    'Gencell Recruitment Services Ltd',
  ]);
  const search = (q: string, limit = 10) => searchCompanies(index, { q, jurisdiction: 'GB', limit });

  it('finds the company with one misspelt word, says what it corrected, and suggests the corrected query', async () => {
    const page = await search('KINGS LOGISTCIS SERVICES');

    expect(page.items[0]).toMatchObject({
      name: 'Kings Logistics Services Ltd',
      match: { type: 'fuzzy', on: ['kings', 'logistics', 'services'], corrected: [{ from: 'logistcis', to: 'logistics' }] },
    });
    expect(page.suggestion).toBe('kings logistics services');
  });

  it('corrects nothing, and reads no vocabulary, when something matched as typed', async () => {
    index.reads = 0;
    const page = await search('delta improvement');

    expect(page.items.map((item) => [item.name, item.match.type])).toEqual([['Delta Improvements Ltd', 'name_prefix']]);
    expect(page.suggestion).toBeUndefined();
    expect(index.reads).toBe(2);
  });

  it('ranks a name needing fewer corrections first', async () => {
    const page = await search('alpah buildres');

    expect(page.items.map((item) => [item.name, item.match.corrected?.length])).toEqual([
      ['Alpahs Builders Ltd', 1],
      ['Alpha Builders Ltd', 2],
    ]);
  });

  it('corrects a dropped letter that leaves four, back to a word of five', async () => {
    const page = await search('kings ldge');

    expect(page.items.map((item) => [item.name, item.match.corrected])).toEqual([['Kings Lodge Ltd', [{ from: 'ldge', to: 'lodge' }]]]);
  });

  it('leaves short words and words of the vocabulary as typed', async () => {
    expect((await search('kings lodgr')).items.map((item) => item.name)).toEqual(['Kings Lodge Ltd']);
    expect((await search('kinf lodge')).items).toEqual([]);
    // "builders" is a word of some name: a query with it is not corrected, whatever else it finds.
    expect((await search('alpha builders')).items.map((item) => item.match.type)).toEqual(['exact']);
  });

  it('suggests the corrected query even when no company has every corrected word', async () => {
    const page = await search('gencell logistcis');

    expect(page.items).toEqual([]);
    expect(page.suggestion).toBe('gencell logistics');
  });
});
