import { describe, expect, it } from 'vitest';
import { indexedNameOf, type KeyRange, type NameIndex, type PartitionPage } from '../../../shared/companies/company-store';
import { MAX_READ_ROUNDS, type SearchItem, searchCompanies } from '../../../shared/companies/search';
import { compareKeys, type IndexItem, indexItemsOf, SHARD_COUNT, type SearchEntry } from '../../../shared/companies/search-index';

/** The index held in memory with DynamoDB's range semantics, counting the partition reads a search makes. */
class MemoryNameIndex implements NameIndex {
  readonly partitions = new Map<string, IndexItem[]>();
  private readonly entries = new Map<string, SearchEntry>();
  reads = 0;

  constructor(names: readonly [string, string][]) {
    for (const [companyNumber, name] of names) {
      const entry: SearchEntry = { jurisdiction: 'GB', companyNumber, name, status: 'active', type: 'ltd', incorporatedOn: null, ...indexedNameOf(name) };
      this.entries.set(companyNumber, entry);
      for (const item of indexItemsOf(entry)) this.partitions.set(item.pk, [...(this.partitions.get(item.pk) ?? []), item]);
    }
    for (const items of this.partitions.values()) items.sort((a, b) => compareKeys(a.sk, b.sk));
  }

  async queryPartition(pk: string, range: KeyRange, limit: number): Promise<PartitionPage> {
    this.reads++;
    const inRange = (this.partitions.get(pk) ?? []).filter(
      (item) => item.sk.startsWith(range.prefix) && (range.after === undefined || compareKeys(item.sk, range.after) >= 0),
    );
    const page = inRange.slice(0, limit);
    return { items: page.filter((item) => item.sk !== range.after), more: inRange.length > limit };
  }

  async entryByNumber(_jurisdiction: 'GB' | 'IE', companyNumber: string): Promise<SearchEntry | undefined> {
    return this.entries.get(companyNumber);
  }
}

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
  const index = new MemoryNameIndex(names);

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
    const crowded = new MemoryNameIndex([
      ...Array.from({ length: 3000 }, (_, i): [string, string] => [String(30_000_000 + i), `Workshop ${i} Ltd`]),
      ['39999998', 'Zulu Workshop Ltd'],
      ['39999999', 'Workshop Zulu Ltd'],
    ]);

    crowded.reads = 0;
    const first = await searchCompanies(crowded, { q: 'workshop zu', jurisdiction: 'GB', limit: 10 });
    const readsOfFirstPage = crowded.reads;
    const all = await collect(crowded, 'workshop zu', () => 10);

    expect(readsOfFirstPage).toBeLessThanOrEqual(MAX_READ_ROUNDS * SHARD_COUNT);
    expect(first.items.length).toBeLessThan(10);
    expect(first.nextCursor).toBeDefined();
    expect([...all.numbers].sort()).toEqual(['39999998', '39999999']);
  });
});
