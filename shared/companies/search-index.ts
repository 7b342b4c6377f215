import type { Jurisdiction, ProfileContent } from './profile';

/**
 * The name index lives in the companies table beside the profiles, as two families of items, each
 * read as one key-ordered range of one partition (see docs/search.md):
 *
 * - name: pk `N#<J>#<first 2 chars of name>`  sk `<normalizedName><NAME_END><number>`
 * - word: pk `W#<J>#<first 2 chars of word>`  sk `<word>#<normalizedName>#<number>`
 *
 * NAME_END sorts below every character of a normalized name, so the companies whose name is exactly
 * the query come first in the range of names that start with it, in number order: one read answers
 * both the exact and the name-prefix matches.
 */
export const NAME_END = '\u0001';

/** Keeps one company's transaction under DynamoDB's 100-item limit even when a rename replaces every key. */
export const MAX_INDEXED_WORDS = 40;

export const PROFILE_SORT_KEY = 'PROFILE';

/** Sorts after every character DynamoDB can store, so `prefix + KEY_MAX` bounds a begins_with range. */
export const KEY_MAX = '\u{10FFFF}';

export type IndexKind = 'name' | 'word';

/** What a search result needs, copied onto every index item so a search never reads the profiles. */
export interface SearchEntry {
  readonly jurisdiction: Jurisdiction;
  readonly companyNumber: string;
  readonly name: string;
  readonly status: string;
  readonly type: string;
  readonly incorporatedOn: string | null;
  readonly normalizedName: string;
  /** The distinct indexed words of the normalized name, in name order. */
  readonly words: readonly string[];
}

export interface IndexItem extends SearchEntry {
  readonly pk: string;
  readonly sk: string;
  readonly kind: IndexKind;
}

export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

export function profileKey(jurisdiction: Jurisdiction, companyNumber: string): ItemKey {
  return { pk: `${jurisdiction}#${companyNumber}`, sk: PROFILE_SORT_KEY };
}

/** The first two characters (code points, not UTF-16 units) choose the partition. */
export function partitionHead(text: string): string {
  return Array.from(text).slice(0, 2).join('');
}

/** A one-character name shares the partition of the names whose first word it is ("x" beside "x ray"). */
export const namePartition = (jurisdiction: Jurisdiction, name: string) => `N#${jurisdiction}#${partitionHead(`${name} `)}`;

export const wordPartition = (jurisdiction: Jurisdiction, word: string) => `W#${jurisdiction}#${partitionHead(word)}`;

export const nameSortKey = (normalizedName: string, companyNumber: string) => `${normalizedName}${NAME_END}${companyNumber}`;

/**
 * Index keys are built from normalized text joined with '#'; normalized names hold letters,
 * digits and single spaces only, so '#' never occurs inside a part.
 */
export function wordOfSortKey(sk: string): string {
  return sk.slice(0, sk.indexOf('#'));
}

export interface IndexedName {
  readonly normalizedName: string;
  readonly words: readonly string[];
}

export function indexedWords(words: readonly string[]): string[] {
  return [...new Set(words)].slice(0, MAX_INDEXED_WORDS);
}

export function searchEntryOf(content: ProfileContent, indexed: IndexedName): SearchEntry {
  return {
    jurisdiction: content.jurisdiction,
    companyNumber: content.companyNumber,
    name: content.name,
    status: content.tradingStatus.status,
    type: content.overview.companyType,
    incorporatedOn: content.overview.incorporatedOn,
    normalizedName: indexed.normalizedName,
    words: indexed.words,
  };
}

/** The index items of one company; none when its name normalizes to nothing. */
export function indexItemsOf(entry: SearchEntry): IndexItem[] {
  const { jurisdiction, companyNumber, normalizedName } = entry;
  if (normalizedName === '') return [];
  return [
    { ...entry, kind: 'name', pk: namePartition(jurisdiction, normalizedName), sk: nameSortKey(normalizedName, companyNumber) },
    ...entry.words.map(
      (word): IndexItem => ({
        ...entry,
        kind: 'word',
        pk: wordPartition(jurisdiction, word),
        sk: `${word}#${normalizedName}#${companyNumber}`,
      }),
    ),
  ];
}

export const keyId = (key: ItemKey) => `${key.pk}\u0000${key.sk}`;

/**
 * DynamoDB orders string keys by their UTF-8 bytes, that is by code point. UTF-16 code units give
 * the same order except that surrogates (U+D800–DFFF, halves of characters beyond U+FFFF) must rank
 * above U+E000–FFFF: comparing unit by unit with that one correction avoids encoding every key.
 */
export function compareKeys(a: string, b: string): number {
  const shorter = Math.min(a.length, b.length);
  for (let i = 0; i < shorter; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

const codePointRank = (unit: number) => (unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit);

export interface IndexChanges {
  readonly puts: readonly IndexItem[];
  readonly deletes: readonly ItemKey[];
}

/**
 * What a save must write to move the index from `before` to `after`: items that are new or whose
 * projection changed are put, keys that disappeared (a rename, a dropped word) are deleted, and
 * items that are identical are left alone.
 */
export function indexChanges(before: readonly IndexItem[], after: readonly IndexItem[]): IndexChanges {
  const previous = new Map(before.map((item) => [keyId(item), item]));
  const next = new Set(after.map(keyId));
  return {
    puts: after.filter((item) => {
      const old = previous.get(keyId(item));
      return old === undefined || !sameItem(old, item);
    }),
    deletes: before.filter((item) => !next.has(keyId(item))).map(({ pk, sk }) => ({ pk, sk })),
  };
}

function sameItem(a: IndexItem, b: IndexItem): boolean {
  return (
    a.name === b.name &&
    a.status === b.status &&
    a.type === b.type &&
    a.incorporatedOn === b.incorporatedOn &&
    a.normalizedName === b.normalizedName &&
    a.words.length === b.words.length &&
    a.words.every((word, i) => word === b.words[i])
  );
}
