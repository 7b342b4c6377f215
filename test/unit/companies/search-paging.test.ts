import { describe, expect, it } from 'vitest';
import { indexedNameOf, type NameIndex } from '../../../shared/companies/company-store';
import { MAX_READ_ROUNDS, type SearchItem, searchCompanies } from '../../../shared/companies/search';
import { MemoryNameIndex } from '../../support/memory-name-index';
import { profileContent } from '../../support/profile-fixture';

const indexOf = (names: readonly [string, string][]) =>
  new MemoryNameIndex(names.map(([companyNumber, name]) => profileContent({ companyNumber, name })));

/** Deterministic pseudo-random numbers, so a failure replays. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

async function collect(index: NameIndex, q: string, limits: () => number) {
  const items: SearchItem[] = [];
  const pageSizes: number[] = [];
  let cursor: string | undefined;
  do {
    const limit = limits();
    const page = await searchCompanies(index, { q, jurisdiction: 'GB', limit, cursor });
    expect(page.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.items);
    pageSizes.push(page.items.length);
    cursor = page.nextCursor;
  } while (cursor !== undefined && pageSizes.length < 10_000);
  return { numbers: items.map((item) => item.companyNumber), pageSizes };
}

describe('search paging', () => {
  const next = random(42);
  const words = ['north', 'northern', 'star', 'stars', 'trading', 'trade', 'green', 'greenwich', 'a', 'and', 'holdings', 'no'];
  const names: [string, string][] = Array.from({ length: 600 }, (_, i) => {
    const length = 1 + Math.floor(next() * 4);
    const name = Array.from({ length }, () => words[Math.floor(next() * words.length)]).join(' ');
    return [String(20_000_000 + i), `${name} Ltd`];
  });
  const index = indexOf(names);

  it('returns the same results in the same order whatever the page sizes, each company once', async () => {
    for (const q of ['north star', 'nor', 'star trad', 'green', 'a', 'and holdings', 'no']) {
      const reference = await collect(index, q, () => 100);
      const sizes = random(q.length);
      const varied = await collect(index, q, () => 1 + Math.floor(sizes() * 12));

      expect(varied.numbers, q).toEqual(reference.numbers);
      expect(new Set(reference.numbers).size, q).toBe(reference.numbers.length);
      expect(reference.numbers.length, q).toBeGreaterThan(0);
    }
  });

  it('finds every company whose words start with each query word', async () => {
    const q = 'star gree';
    const expected = names
      .filter(([, name]) => {
        const nameWords = indexedNameOf(name).words;
        return ['star', 'gree'].every((word) => nameWords.some((candidate) => candidate.startsWith(word)));
      })
      .map(([number]) => number)
      .sort();

    const found = await collect(index, q, () => 9);

    expect([...found.numbers].sort()).toEqual(expected);
  });

  it('bounds the reads of one request and returns a short page with a cursor when most of what it reads is filtered out', async () => {
    const crowded = indexOf([
      ...Array.from({ length: 3000 }, (_, i): [string, string] => [String(30_000_000 + i), `Workshop ${i} Ltd`]),
      ['39999998', 'Zulu Workshop Ltd'],
      ['39999999', 'Workshop Zulu Ltd'],
    ]);

    crowded.reads = 0;
    const first = await searchCompanies(crowded, { q: 'workshop zu', jurisdiction: 'GB', limit: 10 });
    const readsOfFirstPage = crowded.reads;
    const all = await collect(crowded, 'workshop zu', () => 10);

    // The first round reads the name tier and the start of the word tier together.
    expect(readsOfFirstPage).toBeLessThanOrEqual(MAX_READ_ROUNDS + 1);
    expect(first.items.length).toBeLessThan(10);
    expect(first.nextCursor).toBeDefined();
    expect([...all.numbers].sort()).toEqual(['39999998', '39999999']);
  });

  it('answers a first page that spans both tiers in one round of reads', async () => {
    const small = indexOf([
      ['12345678', 'Harbour Lights Ltd'],
      ['22222222', 'Harbour Lights Trading Ltd'],
      ['33333333', 'The Harbour Lights Company Ltd'],
    ]);
    const rounds = countRounds(small);

    const page = await searchCompanies(rounds.index, { q: 'harbour lights', jurisdiction: 'GB', limit: 10 });

    expect(page.items.map((item) => [item.companyNumber, item.match.type])).toEqual([
      ['12345678', 'exact'],
      ['22222222', 'name_prefix'],
      ['33333333', 'word_prefix'],
    ]);
    expect(rounds.count()).toBe(1);
  });

  it('reads the word index by the query word that starts no common word, and reports matches in query order', async () => {
    const crowded = indexOf([
      ...Array.from({ length: 400 }, (_, i): [string, string] => [String(40_000_000 + i), `Acme ${i} Consulting Ltd`]),
      ['49999999', 'Smithfield Consulting Ltd'],
    ]);

    crowded.reads = 0;
    const page = await searchCompanies(crowded, { q: 'consulting smit', jurisdiction: 'GB', limit: 10 });

    expect(page.items).toEqual([
      expect.objectContaining({ companyNumber: '49999999', match: { type: 'word_prefix', on: ['consulting', 'smithfield'] } }),
    ]);
    expect(page.nextCursor).toBeUndefined();
    expect(crowded.reads).toBe(2);
  });
});

/** Counts how many times reads went out with none already in flight: the round trips a search makes, in sequence. */
function countRounds(inner: NameIndex): { index: NameIndex; count: () => number } {
  let inFlight = 0;
  let rounds = 0;
  const track = async <T>(read: () => Promise<T>): Promise<T> => {
    if (inFlight++ === 0) rounds++;
    try {
      await new Promise((resolve) => setImmediate(resolve));
      return await read();
    } finally {
      inFlight--;
    }
  };
  return {
    index: {
      queryPartition: (pk, range, limit) => track(() => inner.queryPartition(pk, range, limit)),
      entryByNumber: (jurisdiction, companyNumber) => track(() => inner.entryByNumber(jurisdiction, companyNumber)),
      variantWords: (jurisdiction, variants) => track(() => inner.variantWords(jurisdiction, variants)),
    },
    count: () => rounds,
  };
}
