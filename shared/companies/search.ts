import { createHash } from 'node:crypto';
import { decodeCursor, encodeCursor } from '../paging/cursor';
import { startsCommonWord } from './common-words';
import type { NameIndex } from './company-store';
import { nameWords, normalizeQuery } from './names';
import { isLikelyCompanyNumber } from './numbers';
import type { Jurisdiction } from './profile';
import { compareKeys, type IndexItem, KEY_MAX, namePartition, type SearchEntry, wordOfSortKey, wordPartition } from './search-index';
import { mayBeMisspelt, oneEditApart } from './spelling';
import { variantsOf } from './vocabulary';

/**
 * Name search over two index tiers (docs/search.md): names that start with the query (exact names
 * first), then names whose words start with every query word. Each tier is a key-ordered range of
 * one partition, so a page is a position in (tier, sort key) and the cursor is that position: no
 * server state, no offsets.
 */
export type MatchType = 'company_number' | 'exact' | 'name_prefix' | 'word_prefix' | 'fuzzy';
type Tier = 'name' | 'word';
const TIERS: readonly Tier[] = ['name', 'word'];

export interface SearchItem {
  readonly companyNumber: string;
  readonly jurisdiction: Jurisdiction;
  readonly name: string;
  readonly status: string;
  readonly type: string;
  readonly incorporatedOn: string | null;
  /**
   * Why the company matched; for word and fuzzy matches, the name words that the query words matched;
   * for fuzzy matches, which query words were corrected to which.
   */
  readonly match: {
    readonly type: MatchType;
    readonly on?: readonly string[];
    readonly corrected?: ReadonlyArray<{ readonly from: string; readonly to: string }>;
  };
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
  /** The query with its misspelt words corrected, when nothing matched as typed. */
  readonly suggestion?: string;
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

/** Round trips per request: bounds latency and cost when a tier filters out most of what it reads. */
export const MAX_READ_ROUNDS = 3;
/** Read size after the first round of the word tier, where most of what is read may be filtered out. */
const FILTERED_READ_SIZE = 100;
const CURSOR_VERSION = 2;
/** DynamoDB refuses a longer sort-key value in a key condition. */
const MAX_SORT_KEY_BYTES = 1024;

interface TierRange {
  readonly partition: string;
  readonly lower: string;
  readonly upper: string;
}

interface Plan {
  readonly jurisdiction: Jurisdiction;
  readonly normalized: string;
  /** What a name must start with to be a name-tier match: a one-character query only matches a whole first word. */
  readonly namePrefix: string;
  readonly name: TierRange;
  readonly word: TierRange;
  /** The word the word tier reads by; every query word, in query order, is checked in code. */
  readonly drivingWord: string;
  readonly queryWords: readonly string[];
  readonly numberHit?: string;
  readonly fingerprint: string;
}

interface Position {
  readonly tier: Tier;
  readonly after?: string;
}

interface TierRead {
  readonly items: readonly IndexItem[];
  readonly more: boolean;
}

export async function searchCompanies(index: NameIndex, query: SearchQuery): Promise<SearchPage> {
  const plan = planOf(query.q, query.jurisdiction);
  let position: Position | undefined = query.cursor === undefined ? { tier: 'name' } : positionOf(query.cursor, plan);
  const items: SearchItem[] = [];
  const read = (at: Position, size: number) => readTier(index, plan, at, size);

  // Everything a first page may need goes out at once: the number look-up, the current tier and, from
  // the name tier, the start of the word tier, so a page that spans both tiers costs one round trip.
  const [numberEntry, firstRead, wordStart] = await Promise.all([
    query.cursor === undefined && plan.numberHit !== undefined ? index.entryByNumber(plan.jurisdiction, plan.numberHit) : undefined,
    read(position, query.limit + 1),
    position.tier === 'name' ? read({ tier: 'word' }, query.limit + 1) : undefined,
  ]);
  if (numberEntry) items.push(resultOf(numberEntry, { type: 'company_number' }));

  let current: TierRead | undefined = firstRead;
  for (let round = 1; position && current && items.length < query.limit; ) {
    position = take(plan, position, current, items, query.limit);
    if (!position || items.length >= query.limit) break;
    if (position.tier === 'word' && position.after === undefined && wordStart) {
      current = wordStart;
    } else if (round < MAX_READ_ROUNDS) {
      const need = query.limit - items.length;
      current = await read(position, position.tier === 'word' ? Math.max(need + 1, FILTERED_READ_SIZE) : need + 1);
      round++;
    } else {
      current = undefined;
    }
  }
  if (position) return { items, nextCursor: cursorOf(position, plan) };
  // Nothing matched as typed: spelling correction gets its turn (two more round trips). A search that
  // found anything as typed costs what it did, typo or not.
  if (items.length > 0 || query.cursor !== undefined) return { items };
  const corrected = await correctedMatches(index, plan, query.limit);
  return corrected.suggestion === undefined ? { items: corrected.items } : { items: corrected.items, suggestion: corrected.suggestion };
}

/** Candidate corrections per query word read at most: the closest words, not every one a short word has. */
const MAX_CORRECTIONS_PER_WORD = 5;
/** Companies read per range in the correction round: enough for a common word, bounded all the same. */
const CORRECTED_READ_SIZE = 100;

/**
 * Companies whose names match every query word, at least one of them only after correcting it by one
 * edit to a word of the vocabulary. One batched read finds the corrections of every correctable query
 * word that is not itself a vocabulary word; one round of word-index reads finds their companies.
 * Ranked by how few words needed correcting, then by name.
 */
async function correctedMatches(index: NameIndex, plan: Plan, limit: number): Promise<{ items: SearchItem[]; suggestion?: string }> {
  const correctable = [...new Set(plan.queryWords.filter(mayBeMisspelt))];
  if (correctable.length === 0) return { items: [] };
  const vocabulary = await index.variantWords(plan.jurisdiction, [...new Set(correctable.flatMap(variantsOf))]);
  const corrections = new Map<string, string[]>();
  for (const word of correctable) {
    if (vocabulary.get(word)?.includes(word)) continue; // spelt as a word of some name
    const candidates = new Set(variantsOf(word).flatMap((variant) => vocabulary.get(variant) ?? []));
    const close = [...candidates].filter((candidate) => oneEditApart(word, candidate)).sort(compareKeys);
    if (close.length > 0) corrections.set(word, close.slice(0, MAX_CORRECTIONS_PER_WORD));
  }
  if (corrections.size === 0) return { items: [] };

  // Read by the most selective word that needs no correction, as the word tier would, and check the
  // others in code; when every such word is common (or there is none), read each correction's own
  // word range instead: a whole word, usually far fewer names than "services" or "group".
  const typed = plan.queryWords.filter((word) => !corrections.has(word));
  const driver = typed.length > 0 ? typed.reduce((best, word) => (selectivity(word) > selectivity(best) ? word : best)) : undefined;
  const ranges =
    driver !== undefined && !startsCommonWord(driver)
      ? [
          singleCharacter(driver)
            ? { word: driver, lower: `${driver}#`, upper: `${driver}#${KEY_MAX}` }
            : { word: driver, lower: driver, upper: driver + KEY_MAX },
        ]
      : [...corrections.values()].flat().map((word) => ({ word, lower: `${word}#`, upper: `${word}#${KEY_MAX}` }));
  const reads = ranges.map(({ word, lower, upper }) =>
    index.queryPartition(wordPartition(plan.jurisdiction, word), { lower, upper }, CORRECTED_READ_SIZE).then((page) => page.items),
  );
  const found = new Map<string, { item: SearchItem; corrections: number; name: string }>();
  for (const items of await Promise.all(reads)) {
    for (const item of items) {
      const matched = matchWithCorrections(plan, item, corrections);
      if (!matched) continue;
      const known = found.get(item.companyNumber);
      if (!known || matched.corrected.length < known.corrections) {
        found.set(item.companyNumber, {
          item: resultOf(item, { type: 'fuzzy', on: matched.on, corrected: matched.corrected }),
          corrections: matched.corrected.length,
          name: item.normalizedName,
        });
      }
    }
  }
  const ranked = [...found.values()].sort((a, b) => a.corrections - b.corrections || compareKeys(a.name, b.name));
  const companiesPerCorrection = new Map<string, number>();
  for (const { item } of ranked) {
    for (const { to } of item.match.corrected ?? []) companiesPerCorrection.set(to, (companiesPerCorrection.get(to) ?? 0) + 1);
  }
  // The suggestion takes, for each misspelt word, the correction that the most companies found use.
  const suggestion = plan.queryWords
    .map((word) => {
      const options = corrections.get(word);
      if (!options) return word;
      return options.reduce((best, option) =>
        (companiesPerCorrection.get(option) ?? 0) > (companiesPerCorrection.get(best) ?? 0) ? option : best,
      );
    })
    .join(' ');
  return { items: ranked.slice(0, limit).map((entry) => entry.item), suggestion };
}

/**
 * How a name matches every query word, as typed (a word prefix, as the word tier matches) or
 * corrected (a whole word equal to a correction); undefined when a word matches neither, or when
 * every word matched as typed (the exact tiers showed that company).
 */
function matchWithCorrections(
  plan: Plan,
  item: IndexItem,
  corrections: ReadonlyMap<string, readonly string[]>,
): { on: string[]; corrected: Array<{ from: string; to: string }> } | undefined {
  const on: string[] = [];
  const corrected: Array<{ from: string; to: string }> = [];
  for (const word of plan.queryWords) {
    const asTyped = firstMatchingWord(item.words, word);
    if (asTyped !== undefined) {
      on.push(asTyped);
      continue;
    }
    const fixed = (corrections.get(word) ?? []).find((correction) => item.words.includes(correction));
    if (fixed === undefined) return undefined;
    on.push(fixed);
    corrected.push({ from: word, to: fixed });
  }
  return corrected.length > 0 ? { on: [...new Set(on)], corrected } : undefined;
}

/** Adds what `read` holds for the page, up to `limit` items, and says where the next read starts. */
function take(plan: Plan, position: Position, read: TierRead, items: SearchItem[], limit: number): Position | undefined {
  const accept = position.tier === 'name' ? acceptName(plan) : acceptWord(plan);
  for (const [i, candidate] of read.items.entries()) {
    const result = accept(candidate);
    if (result) items.push(result);
    if (items.length === limit && (i < read.items.length - 1 || read.more)) return { tier: position.tier, after: candidate.sk };
  }
  const lastRead = read.items.at(-1)?.sk;
  if (read.more && lastRead !== undefined) return { tier: position.tier, after: lastRead };
  return nextTier(position.tier);
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
  const drivingWord = words.reduce((best, word) => (selectivity(word) > selectivity(best) ? word : best));
  const namePrefix = singleCharacter(normalized) ? `${normalized} ` : normalized;
  return {
    jurisdiction,
    normalized,
    namePrefix,
    name: { partition: namePartition(jurisdiction, normalized), lower: normalized, upper: namePrefix + KEY_MAX },
    word: { partition: wordPartition(jurisdiction, drivingWord), lower: drivingWord, upper: drivingWord + KEY_MAX },
    drivingWord,
    queryWords: words,
    numberHit: isLikelyCompanyNumber(q.trim(), jurisdiction),
    fingerprint: createHash('sha256').update(`${jurisdiction}\n${normalized}`).digest('base64url').slice(0, 12),
  };
}

const singleCharacter = (word: string) => Array.from(word).length === 1;

/**
 * Which query word the word tier reads by: one that starts no common word, then the longest, as
 * either narrows the range read; the others are checked in code.
 */
const selectivity = (word: string) => (startsCommonWord(word) ? 0 : 1_000) + Array.from(word).length;

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

const notTheNumberHit = (plan: Plan, item: IndexItem) => item.companyNumber !== plan.numberHit;

function acceptName(plan: Plan): (item: IndexItem) => SearchItem | undefined {
  return (item) =>
    notTheNumberHit(plan, item) ? resultOf(item, { type: item.normalizedName === plan.normalized ? 'exact' : 'name_prefix' }) : undefined;
}

function acceptWord(plan: Plan): (item: IndexItem) => SearchItem | undefined {
  return (item) => {
    // The name tier showed the names that are the query or start with it.
    if (!notTheNumberHit(plan, item) || item.normalizedName === plan.normalized || item.normalizedName.startsWith(plan.namePrefix)) {
      return undefined;
    }
    // A name with several words matching the driving word has one index item per word: keep the first.
    if (firstMatchingWord(item.words, plan.drivingWord) !== wordOfSortKey(item.sk)) return undefined;
    const on: string[] = [];
    for (const queryWord of plan.queryWords) {
      const matched = queryWord === plan.drivingWord ? wordOfSortKey(item.sk) : firstMatchingWord(item.words, queryWord);
      if (matched === undefined) return undefined;
      on.push(matched);
    }
    return resultOf(item, { type: 'word_prefix', on: [...new Set(on)] });
  };
}

function nextTier(tier: Tier): Position | undefined {
  const next = TIERS[TIERS.indexOf(tier) + 1];
  return next && { tier: next };
}

function readTier(index: NameIndex, plan: Plan, position: Position, size: number): Promise<TierRead> {
  const { partition, lower, upper } = plan[position.tier];
  return index.queryPartition(partition, { lower, upper, ...(position.after === undefined ? {} : { after: position.after }) }, size);
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
  const { lower, upper } = plan[tier];
  if (
    typeof a !== 'string' ||
    Buffer.byteLength(a, 'utf8') > MAX_SORT_KEY_BYTES ||
    compareKeys(a, lower) <= 0 ||
    compareKeys(a, upper) >= 0
  ) {
    throw new InvalidCursorError('The cursor is not one this API issued');
  }
  return { tier, after: a };
}
