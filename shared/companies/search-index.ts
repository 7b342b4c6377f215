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
 *
 * A company's former names have items of their own, keyed the same way but for the separator before
 * the number (FORMER_NAME_END, FORMER_WORD_END), which sorts just after the current name's: where a
 * current and a former name are the same, the current one ranks first.
 */
export const NAME_END = '\u0001';
export const FORMER_NAME_END = '\u0002';
const WORD_END = '#';
const FORMER_WORD_END = '$';

/** Keeps one company's transaction under DynamoDB's 100-item limit even when a rename replaces every key. */
export const MAX_INDEXED_WORDS = 40;
/**
 * Index items of one company, all its names together: a rename that replaces every key deletes
 * this many and puts this many beside the profile, 99 items, inside one transaction.
 */
export const MAX_INDEX_ITEMS = 49;

export const PROFILE_SORT_KEY = 'PROFILE';

/** Sorts after every character DynamoDB can store, so `prefix + KEY_MAX` bounds a begins_with range. */
export const KEY_MAX = '\u{10FFFF}';

export type IndexKind = 'name' | 'word';

/** A former name as indexed: as the register gives it (what a result shows), normalized, and its words. */
export interface IndexedFormerName extends IndexedName {
  readonly name: string;
}

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
  /**
   * The former names indexed beside the name, most recent first; absent when there are none. Every
   * item of the company carries them all, so an item can tell on its own whether another name of the
   * same company ranks before it for a query.
   */
  readonly formerNames?: readonly IndexedFormerName[];
}

export interface IndexItem extends SearchEntry {
  readonly pk: string;
  readonly sk: string;
  readonly kind: IndexKind;
  /** Set on the items of a former name: that name, as in `formerNames`. */
  readonly formerName?: string;
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

/** One of the names a company is indexed under: its current name (no `formerName`) or a former one. */
export interface IndexedAs extends IndexedName {
  readonly formerName?: string;
}

/** The names a company is indexed under, its current name first. */
export const indexedNamesOfEntry = (entry: SearchEntry): IndexedAs[] => [
  { normalizedName: entry.normalizedName, words: entry.words },
  ...(entry.formerNames ?? []).map(({ name, normalizedName, words }) => ({ normalizedName, words, formerName: name })),
];

/** The sort key of the name item of one of a company's names. */
export const nameItemSortKey = (name: IndexedAs, companyNumber: string) =>
  `${name.normalizedName}${name.formerName === undefined ? NAME_END : FORMER_NAME_END}${companyNumber}`;

/** The sort key of the word item of one word of one of a company's names. */
export const wordItemSortKey = (word: string, name: IndexedAs, companyNumber: string) =>
  `${word}#${name.normalizedName}${name.formerName === undefined ? WORD_END : FORMER_WORD_END}${companyNumber}`;

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

/** Every name a company is indexed under: the current one and the former ones that fit. */
export interface IndexedNames extends IndexedName {
  readonly formerNames?: readonly IndexedFormerName[];
}

/**
 * The former names worth items of their own, most recent first: not one that reads as the current
 * name or as a more recent former name (it would find nothing more), and only as many as fit
 * MAX_INDEX_ITEMS beside the current name, the oldest left out.
 */
export function indexedFormerNames(current: IndexedName, former: readonly IndexedFormerName[]): IndexedFormerName[] {
  const seen = new Set([current.normalizedName]);
  let items = 1 + current.words.length;
  const kept: IndexedFormerName[] = [];
  for (const name of former) {
    if (name.normalizedName === '' || seen.has(name.normalizedName)) continue;
    items += 1 + name.words.length;
    if (items > MAX_INDEX_ITEMS) break;
    seen.add(name.normalizedName);
    kept.push(name);
  }
  return kept;
}

/** Every word a company is indexed under, in any of its names: what the spelling vocabulary keeps. */
export const everyIndexedWord = (indexed: IndexedNames): string[] => [
  ...new Set([...indexed.words, ...(indexed.formerNames ?? []).flatMap(({ words }) => words)]),
];

export function searchEntryOf(content: ProfileContent, indexed: IndexedNames): SearchEntry {
  return {
    jurisdiction: content.jurisdiction,
    companyNumber: content.companyNumber,
    name: content.name,
    status: content.tradingStatus.status,
    type: content.overview.companyType,
    incorporatedOn: content.overview.incorporatedOn,
    normalizedName: indexed.normalizedName,
    words: indexed.words,
    ...(indexed.formerNames === undefined || indexed.formerNames.length === 0 ? {} : { formerNames: indexed.formerNames }),
  };
}

/** The index items of one company, for each of its names; none for a name that normalizes to nothing. */
export function indexItemsOf(entry: SearchEntry): IndexItem[] {
  const { jurisdiction, companyNumber } = entry;
  return indexedNamesOfEntry(entry)
    .filter(({ normalizedName }) => normalizedName !== '')
    .flatMap((name) => {
      const former = name.formerName === undefined ? {} : { formerName: name.formerName };
      return [
        {
          ...entry,
          ...former,
          kind: 'name',
          pk: namePartition(jurisdiction, name.normalizedName),
          sk: nameItemSortKey(name, companyNumber),
        },
        ...name.words.map(
          (word): IndexItem => ({
            ...entry,
            ...former,
            kind: 'word',
            pk: wordPartition(jurisdiction, word),
            sk: wordItemSortKey(word, name, companyNumber),
          }),
        ),
      ];
    });
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
    a.formerName === b.formerName &&
    sameWords(a.words, b.words) &&
    (a.formerNames ?? []).length === (b.formerNames ?? []).length &&
    (a.formerNames ?? []).every((name, i) => {
      const other = b.formerNames?.[i];
      return (
        other !== undefined &&
        name.name === other.name &&
        name.normalizedName === other.normalizedName &&
        sameWords(name.words, other.words)
      );
    })
  );
}

const sameWords = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((word, i) => word === b[i]);
