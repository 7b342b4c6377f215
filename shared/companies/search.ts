import { createHash } from 'node:crypto';
import { decodeCursor, encodeCursor } from '../paging/cursor';
import type { NameIndex } from './company-store';
import { nameWords, normalizeQuery } from './names';
import { isLikelyCompanyNumber } from './numbers';
import type { Jurisdiction } from './profile';
import {
  allShards,
  compareKeys,
  exactPartition,
  type IndexItem,
  namePrefixPartition,
  type SearchEntry,
  wordOfSortKey,
  wordPrefixPartition,
} from './search-index';

/**
 * Name search over the three index tiers (docs/search.md): exact normalized name, then names that
 * start with the query, then names whose words start with every query word. Each tier is a
 * key-ordered range read, so a page is a position in (tier, sort key) and the cursor is that
 * position: no server state, no offsets.
 */
export type MatchType = 'company_number' | 'exact' | 'name_prefix' | 'word_prefix';
type Tier = 'exact' | 'name_prefix' | 'word_prefix';
const TIERS: readonly Tier[] = ['exact', 'name_prefix', 'word_prefix'];

export interface SearchItem {
  readonly companyNumber: string;
  readonly jurisdiction: Jurisdiction;
  readonly name: string;
  readonly status: string;
  readonly type: string;
  readonly incorporatedOn: string | null;
  /** Why the company matched; for word matches, the name words that the query words matched. */
  readonly match: { readonly type: MatchType; readonly on?: readonly string[] };
}

export interface SearchQuery {
  readonly q: string;
  readonly jurisdiction: Jurisdiction;
  readonly limit: number;
  readonly cursor?: string;
}

export interface SearchPage {
  readonly items: readonly SearchItem[];
  /** Present while more results may follow; a page may be short and still carry one. */
  readonly nextCursor?: string;
}

export class InvalidCursorError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'InvalidCursorError';
  }
}

/** The query holds nothing to search for once normalized (only punctuation or a legal form). */
export class UnsearchableQueryError extends Error {
  constructor() {
    super('The query has no letters or digits to search for');
    this.name = 'UnsearchableQueryError';
  }
}

/**
 * The normalized query becomes index keys (a partition key, sort-key prefixes): DynamoDB refuses a
 * sort key over 1,024 bytes, and normalization can expand a character many times over (U+FDFA becomes
 * 18 letters), so the bound is on bytes after normalization, far below the key limits. No real
 * company name comes near it.
 */
export const MAX_NORMALIZED_QUERY_BYTES = 512;
export const MAX_NORMALIZED_WORD_BYTES = 128;

/** The query is too long once normalized to be searched for. */
export class QueryTooLongError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'QueryTooLongError';
  }
}

/** Range reads per request: bounds latency and cost when a tier filters out most of what it reads. */
export const MAX_READ_ROUNDS = 5;
/** Per-shard read size when most of what is read may be filtered out in code. */
const FILTERED_READ_SIZE = 50;
const CURSOR_VERSION = 1;
/** DynamoDB refuses a longer sort-key value in a key condition. */
const MAX_SORT_KEY_BYTES = 1024;

interface Plan {
  readonly jurisdiction: Jurisdiction;
  readonly normalized: string;
  /** The range the name-prefix tier reads; a one-character query only matches a whole first word. */
  readonly namePrefix: string;
  readonly drivingWord: string;
  readonly otherWords: readonly string[];
  readonly numberHit?: string;
  readonly fingerprint: string;
}

interface Position {
  readonly tier: Tier;
  readonly after?: string;
}

interface TierReader {
  readonly partitions: readonly string[];
  readonly prefix: string;
  readonly readSize: (need: number) => number;
  readonly accept: (item: IndexItem) => SearchItem | undefined;
}

export async function searchCompanies(index: NameIndex, query: SearchQuery): Promise<SearchPage> {
  const plan = planOf(query.q, query.jurisdiction);
  let position: Position | undefined = query.cursor === undefined ? { tier: 'exact' } : positionOf(query.cursor, plan);
  const items: SearchItem[] = [];

  if (query.cursor === undefined && plan.numberHit !== undefined) {
    const entry = await index.entryByNumber(plan.jurisdiction, plan.numberHit);
    if (entry) items.push(resultOf(entry, { type: 'company_number' }));
  }

  for (let round = 0; position && items.length < query.limit && round < MAX_READ_ROUNDS; round++) {
    const reader = readerFor(plan, position.tier);
    const { candidates, complete } = await readRound(index, reader, position.after, reader.readSize(query.limit - items.length));
    let stoppedAfter: string | undefined;
    for (const [i, candidate] of candidates.entries()) {
      const result = reader.accept(candidate);
      if (result) items.push(result);
      if (items.length === query.limit && (i < candidates.length - 1 || !complete)) {
        stoppedAfter = candidate.sk;
        break;
      }
    }
    const lastRead = candidates.at(-1)?.sk;
    if (stoppedAfter !== undefined) position = { tier: position.tier, after: stoppedAfter };
    else if (!complete && lastRead !== undefined) position = { tier: position.tier, after: lastRead };
    else position = nextTier(position.tier);
  }
  return position ? { items, nextCursor: cursorOf(position, plan) } : { items };
}

function planOf(q: string, jurisdiction: Jurisdiction): Plan {
  const normalized = normalizeQuery(q);
  if (normalized === '') throw new UnsearchableQueryError();
  const bytes = Buffer.byteLength(normalized, 'utf8');
  if (bytes > MAX_NORMALIZED_QUERY_BYTES) {
    throw new QueryTooLongError(
      `The query is ${bytes} bytes long once normalized; at most ${MAX_NORMALIZED_QUERY_BYTES} can be searched for`,
    );
  }
  const words = nameWords(normalized);
  const longWord = words.find((word) => Buffer.byteLength(word, 'utf8') > MAX_NORMALIZED_WORD_BYTES);
  if (longWord !== undefined) {
    throw new QueryTooLongError(
      `A word of the query is ${Buffer.byteLength(longWord, 'utf8')} bytes long once normalized; at most ${MAX_NORMALIZED_WORD_BYTES} can be searched for`,
    );
  }
  const drivingWord = words.reduce((longest, word) => (Array.from(word).length > Array.from(longest).length ? word : longest));
  return {
    jurisdiction,
    normalized,
    namePrefix: Array.from(normalized).length === 1 ? `${normalized} ` : normalized,
    drivingWord,
    otherWords: words.filter((word) => word !== drivingWord),
    numberHit: isLikelyCompanyNumber(q.trim(), jurisdiction),
    fingerprint: createHash('sha256').update(`${jurisdiction}\n${normalized}`).digest('base64url').slice(0, 12),
  };
}

const singleCharacter = (word: string) => Array.from(word).length === 1;

/** One-character query words match whole words only; longer ones match word prefixes. */
const wordMatches = (nameWord: string, queryWord: string) =>
  singleCharacter(queryWord) ? nameWord === queryWord : nameWord.startsWith(queryWord);

const firstMatchingWord = (words: readonly string[], queryWord: string) =>
  words.filter((word) => wordMatches(word, queryWord)).sort(compareKeys)[0];

function resultOf(entry: SearchEntry, match: SearchItem['match']): SearchItem {
  return {
    companyNumber: entry.companyNumber,
    jurisdiction: entry.jurisdiction,
    name: entry.name,
    status: entry.status,
    type: entry.type,
    incorporatedOn: entry.incorporatedOn ?? null,
    match,
  };
}

function readerFor(plan: Plan, tier: Tier): TierReader {
  const notTheNumberHit = (item: IndexItem) => item.companyNumber !== plan.numberHit;
  const exactOrNamePrefix = (item: IndexItem) => item.normalizedName === plan.normalized || item.normalizedName.startsWith(plan.namePrefix);
  switch (tier) {
    case 'exact':
      return {
        partitions: [exactPartition(plan.jurisdiction, plan.normalized)],
        prefix: '',
        readSize: (need) => need + 1,
        accept: (item) => (notTheNumberHit(item) ? resultOf(item, { type: 'exact' }) : undefined),
      };
    case 'name_prefix':
      return {
        partitions: allShards((shard) => namePrefixPartition(plan.jurisdiction, plan.namePrefix, shard)),
        prefix: plan.namePrefix,
        readSize: (need) => need + 1,
        accept: (item) =>
          notTheNumberHit(item) && item.normalizedName !== plan.normalized ? resultOf(item, { type: 'name_prefix' }) : undefined,
      };
    case 'word_prefix':
      return {
        partitions: allShards((shard) => wordPrefixPartition(plan.jurisdiction, plan.drivingWord, shard)),
        prefix: plan.drivingWord,
        readSize: (need) => Math.max(need + 1, FILTERED_READ_SIZE),
        accept: (item) => {
          if (!notTheNumberHit(item) || exactOrNamePrefix(item)) return undefined;
          // A name with several words matching the driving word has one index item per word: keep the first.
          if (firstMatchingWord(item.words, plan.drivingWord) !== wordOfSortKey(item.sk)) return undefined;
          const on = [wordOfSortKey(item.sk)];
          for (const queryWord of plan.otherWords) {
            const matched = firstMatchingWord(item.words, queryWord);
            if (matched === undefined) return undefined;
            on.push(matched);
          }
          return resultOf(item, { type: 'word_prefix', on: [...new Set(on)] });
        },
      };
  }
}

function nextTier(tier: Tier): Position | undefined {
  const next = TIERS[TIERS.indexOf(tier) + 1];
  return next && { tier: next };
}

/**
 * Reads every partition of a tier in parallel and merges by sort key. Only items up to the lowest
 * last key among partitions that have more are certain to be in order: later ones wait for the next
 * round, which starts after the last key taken.
 */
async function readRound(
  index: NameIndex,
  reader: TierReader,
  after: string | undefined,
  readSize: number,
): Promise<{ candidates: IndexItem[]; complete: boolean }> {
  const range = after === undefined ? { prefix: reader.prefix } : { prefix: reader.prefix, after };
  const pages = await Promise.all(reader.partitions.map((pk) => index.queryPartition(pk, range, readSize)));
  let frontier: string | undefined;
  for (const page of pages) {
    const last = page.items.at(-1)?.sk;
    if (page.more && last !== undefined && (frontier === undefined || compareKeys(last, frontier) < 0)) frontier = last;
  }
  const merged = pages.flatMap((page) => page.items).sort((a, b) => compareKeys(a.sk, b.sk));
  if (frontier === undefined) return { candidates: merged, complete: true };
  const bound = frontier;
  return { candidates: merged.filter((item) => compareKeys(item.sk, bound) <= 0), complete: false };
}

function cursorOf(position: Position, plan: Plan): string {
  return encodeCursor({
    v: CURSOR_VERSION,
    f: plan.fingerprint,
    t: position.tier,
    ...(position.after === undefined ? {} : { a: position.after }),
  });
}

function positionOf(cursor: string, plan: Plan): Position {
  const body = decodeCursor(cursor, () => new InvalidCursorError('The cursor is not one this API issued'));
  const { v, f, t, a } = body;
  if (v !== CURSOR_VERSION) throw new InvalidCursorError('The cursor comes from another version of the API; start the search again');
  if (f !== plan.fingerprint)
    throw new InvalidCursorError('The cursor belongs to a different query or jurisdiction; pass the same q and jurisdiction');
  if (typeof t !== 'string' || !TIERS.includes(t as Tier)) throw new InvalidCursorError('The cursor is not one this API issued');
  const tier = t as Tier;
  if (a === undefined) return { tier };
  if (typeof a !== 'string' || a === '' || Buffer.byteLength(a, 'utf8') > MAX_SORT_KEY_BYTES || !a.startsWith(readerPrefix(plan, tier))) {
    throw new InvalidCursorError('The cursor is not one this API issued');
  }
  return { tier, after: a };
}

function readerPrefix(plan: Plan, tier: Tier): string {
  return tier === 'exact' ? '' : tier === 'name_prefix' ? plan.namePrefix : plan.drivingWord;
}
