import { describe, expect, it } from 'vitest';
import {
  compareKeys,
  indexChanges,
  indexedWords,
  indexItemsOf,
  MAX_INDEXED_WORDS,
  NAME_END,
  namePartition,
  partitionHead,
  type SearchEntry,
  wordOfSortKey,
} from '../../../shared/companies/search-index';

const entry = (overrides: Partial<SearchEntry> = {}): SearchEntry => ({
  jurisdiction: 'GB',
  companyNumber: '15380840',
  name: 'CPA GATES LTD',
  status: 'active',
  type: 'Private limited company',
  incorporatedOn: '2024-01-02',
  normalizedName: 'cpa gates',
  words: ['cpa', 'gates'],
  ...overrides,
});

describe('search index keys', () => {
  it('puts a company in one name item and one item per distinct word', () => {
    const items = indexItemsOf(entry());

    expect(items.map(({ kind, pk, sk }) => ({ kind, pk, sk }))).toEqual([
      { kind: 'name', pk: 'N#GB#cp', sk: `cpa gates${NAME_END}15380840` },
      { kind: 'word', pk: 'W#GB#cp', sk: 'cpa#cpa gates#15380840' },
      { kind: 'word', pk: 'W#GB#ga', sk: 'gates#cpa gates#15380840' },
    ]);
    expect(items.every((item) => item.name === 'CPA GATES LTD' && item.status === 'active')).toBe(true);
  });

  it('sorts a name that is exactly the query before the longer names that start with it', () => {
    const keys = [
      indexItemsOf(entry({ normalizedName: 'cpa gates ventures', words: ['cpa', 'gates', 'ventures'], companyNumber: '1' })),
      indexItemsOf(entry({ normalizedName: 'cpa gatesway', words: ['cpa', 'gatesway'], companyNumber: '2' })),
      indexItemsOf(entry({ companyNumber: '99999999' })),
      indexItemsOf(entry({ companyNumber: '00000001' })),
    ].map((items) => (items[0] as { sk: string }).sk);

    expect([...keys].sort(compareKeys)).toEqual([keys[3], keys[2], keys[0], keys[1]]);
  });

  it('indexes nothing for a name that normalizes to nothing', () => {
    expect(indexItemsOf(entry({ normalizedName: '', words: [] }))).toEqual([]);
  });

  it('keeps a one-character word in its own partition and a one-character name beside the names it starts', () => {
    const items = indexItemsOf(entry({ normalizedName: 'a plus', words: ['a', 'plus'] }));

    expect(items.map((item) => item.pk)).toEqual(['N#GB#a ', 'W#GB#a', 'W#GB#pl']);
    expect(namePartition('GB', 'a')).toBe('N#GB#a ');
  });

  it('chooses partitions by code points, so a letter outside the BMP is never split', () => {
    expect(partitionHead('𝔸𝔹c')).toBe('𝔸𝔹');
    expect(partitionHead('é')).toBe('é');
  });

  it('reads the word back out of a word-prefix sort key', () => {
    expect(wordOfSortKey('gates#cpa gates#15380840')).toBe('gates');
  });

  it('caps the indexed words so a rename stays inside one transaction', () => {
    const words = Array.from({ length: 60 }, (_, i) => `w${i}`);

    expect(indexedWords([...words, 'w0'])).toEqual(words.slice(0, MAX_INDEXED_WORDS));
  });

  it('orders keys by UTF-8 bytes as DynamoDB does', () => {
    expect(compareKeys('\u{FFFD}', '\u{1F600}')).toBeLessThan(0);
    expect('\u{FFFD}' < '\u{1F600}').toBe(false);
    expect(compareKeys('abc', 'abc')).toBe(0);
  });
});

describe('index changes between two versions of a company', () => {
  it('writes nothing when the projection is the same', () => {
    expect(indexChanges(indexItemsOf(entry()), indexItemsOf(entry()))).toEqual({ puts: [], deletes: [] });
  });

  it('rewrites every item in place when a projected field such as the status changes', () => {
    const changes = indexChanges(indexItemsOf(entry()), indexItemsOf(entry({ status: 'dissolved' })));

    expect(changes.puts).toHaveLength(3);
    expect(changes.puts.every((item) => item.status === 'dissolved')).toBe(true);
    expect(changes.deletes).toEqual([]);
  });

  it('deletes the keys a rename leaves behind and puts the new ones', () => {
    const renamed = entry({ name: 'CPA FENCES LTD', normalizedName: 'cpa fences', words: ['cpa', 'fences'] });

    const changes = indexChanges(indexItemsOf(entry()), indexItemsOf(renamed));

    expect(changes.deletes.map((key) => key.sk).sort()).toEqual([
      `cpa gates${NAME_END}15380840`,
      'cpa#cpa gates#15380840',
      'gates#cpa gates#15380840',
    ]);
    expect(changes.puts.map((item) => item.sk).sort()).toEqual([
      `cpa fences${NAME_END}15380840`,
      'cpa#cpa fences#15380840',
      'fences#cpa fences#15380840',
    ]);
  });
});

describe('key order', () => {
  it('agrees with UTF-8 byte order across ASCII, accented, high-BMP and astral characters', () => {
    const samples = [
      'a',
      'ab',
      'a#b',
      'a b',
      'é',
      'z',
      '\u{E000}',
      '\u{FFFD}',
      '\u{FFFF}',
      '\u{10000}',
      '\u{1F600}',
      '\u{10FFFF}',
      'abc\u{1F600}',
      'abc\u{FFFD}',
      '',
    ];
    for (const a of samples) {
      for (const b of samples) {
        expect(Math.sign(compareKeys(a, b)), `${a} vs ${b}`).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }
    }
  });
});
