import { indexedNamesOf, type KeyRange, type NameIndex, type PartitionPage } from '../../shared/companies/company-store';
import type { Jurisdiction, ProfileContent } from '../../shared/companies/profile';
import {
  compareKeys,
  everyIndexedWord,
  type IndexItem,
  indexItemsOf,
  type SearchEntry,
  searchEntryOf,
} from '../../shared/companies/search-index';
import { isCorrectable } from '../../shared/companies/spelling';
import { variantsOf } from '../../shared/companies/vocabulary';

/**
 * The name index held in memory, built by the same key functions as the DynamoDB store and read with
 * DynamoDB's Query semantics (inclusive BETWEEN, Limit, a LastEvaluatedKey whenever Limit is
 * reached). It lets search behaviour be checked over many thousands of companies in milliseconds;
 * the DynamoDB tests check that both give the same answers.
 */
export class MemoryNameIndex implements NameIndex {
  private readonly partitions = new Map<string, IndexItem[]>();
  private readonly entries = new Map<string, SearchEntry>();
  /** Vocabulary key (`<J>#<variant>`) → the words kept under it, as the DynamoDB store keeps them. */
  private readonly vocabulary = new Map<string, Set<string>>();
  /** Partition reads so far: what a search costs. */
  reads = 0;

  constructor(profiles: Iterable<ProfileContent>) {
    for (const profile of profiles) {
      const entry = searchEntryOf(profile, indexedNamesOf(profile));
      this.entries.set(`${profile.jurisdiction}#${profile.companyNumber}`, entry);
      for (const word of everyIndexedWord(entry).filter(isCorrectable)) {
        for (const variant of variantsOf(word)) {
          const key = `${profile.jurisdiction}#${variant}`;
          const words = this.vocabulary.get(key) ?? new Set<string>();
          words.add(word);
          this.vocabulary.set(key, words);
        }
      }
      for (const item of indexItemsOf(entry)) {
        const items = this.partitions.get(item.pk);
        if (items) items.push(item);
        else this.partitions.set(item.pk, [item]);
      }
    }
    for (const items of this.partitions.values()) items.sort((a, b) => compareKeys(a.sk, b.sk));
  }

  async queryPartition(pk: string, range: KeyRange, limit: number): Promise<PartitionPage> {
    this.reads++;
    const items = this.partitions.get(pk) ?? [];
    const from = range.after ?? range.lower;
    let low = 0;
    let high = items.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareKeys((items[middle] as IndexItem).sk, from) < 0) low = middle + 1;
      else high = middle;
    }
    const page: IndexItem[] = [];
    for (let i = low; i < items.length && page.length < limit && compareKeys((items[i] as IndexItem).sk, range.upper) <= 0; i++)
      page.push(items[i] as IndexItem);
    return { items: page.filter((item) => item.sk !== range.after), more: page.length === limit };
  }

  async variantWords(jurisdiction: Jurisdiction, variants: readonly string[]): Promise<Map<string, readonly string[]>> {
    this.reads++;
    const found = new Map<string, readonly string[]>();
    for (const variant of variants) {
      const words = this.vocabulary.get(`${jurisdiction}#${variant}`);
      if (words) found.set(variant, [...words]);
    }
    return found;
  }

  async entryByNumber(jurisdiction: Jurisdiction, companyNumber: string): Promise<SearchEntry | undefined> {
    return this.entries.get(`${jurisdiction}#${companyNumber}`);
  }
}
