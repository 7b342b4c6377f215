import { createHash } from 'node:crypto';
import { decodeCursor, encodeCursor } from '../paging/cursor';
import { startsCommonWord } from './common-words';
import type { NameIndex } from './company-store';
import { misspeltLegalForm, nameWords, normalizeQuery } from './names';
import { isLikelyCompanyNumber } from './numbers';
import type { Jurisdiction } from './profile';
import {
  compareKeys,
  type IndexedAs,
  type IndexItem,
  indexedNamesOfEntry,
  KEY_MAX,
  nameItemSortKey,
  namePartition,
  type SearchEntry,
  wordItemSortKey,
  wordPartition,
} from './search-index';
import { isCorrectable, MIN_CORRECTED_WORD_LENGTH, mayBeMisspelt, oneEditApart } from './spelling';
import { variantsOf } from './vocabulary';

/**
 * Name search over two index tiers (docs/search.md): names that start with the query (exact names
 * first), then names whose words start with every query word. Each tier is a key-ordered range of
 * one partition, so a page is a position in (tier, sort key) and the cursor is that position: no
 * server state, no offsets. Former names are indexed beside current ones, and each item carries
 * every name of its company, so a company shows once, at its best name, without server state.
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
  /**
   * The former name, as the register gives it, that the company was found by; absent when its
   * current name matched (a current name is always preferred when both match).
   */
  readonly matchedPreviousName?: string;
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

/** A result, with the name words the query words matched: what a corrected match reports. */
interface Hit {
  readonly item: SearchItem;
  readonly on: readonly string[];
}

export async function searchCompanies(index: NameIndex, query: SearchQuery): Promise<SearchPage> {
  const plan = planOf(query.q, query.jurisdiction);
  const typed = await typedMatches(index, plan, query.limit, query.cursor);
  const items = typed.hits.map((hit) => hit.item);
  if (typed.position) return { items, nextCursor: cursorOf(typed.position, plan) };
  // Nothing matched as typed: spelling correction gets its turn (two more round trips). A search that
  // found anything as typed costs what it did, typo or not.
  if (items.length > 0 || query.cursor !== undefined) return { items };
  return forgivenMatches(index, plan, query.limit);
}

/** A page of the companies that match as typed, from the cursor's position, and where the next page starts. */
async function typedMatches(index: NameIndex, plan: Plan, limit: number, cursor?: string): Promise<{ hits: Hit[]; position?: Position }> {
  let position: Position | undefined = cursor === undefined ? { tier: 'name' } : positionOf(cursor, plan);
  const hits: Hit[] = [];
  const read = (at: Position, size: number) => readTier(index, plan, at, size);

  // Everything a first page may need goes out at once: the number look-up, the current tier and, from
  // the name tier, the start of the word tier, so a page that spans both tiers costs one round trip.
  const [numberEntry, firstRead, wordStart] = await Promise.all([
    cursor === undefined && plan.numberHit !== undefined ? index.entryByNumber(plan.jurisdiction, plan.numberHit) : undefined,
    read(position, limit + 1),
    position.tier === 'name' ? read({ tier: 'word' }, limit + 1) : undefined,
  ]);
  if (numberEntry) hits.push({ item: resultOf(numberEntry, { type: 'company_number' }), on: [] });

  let current: TierRead | undefined = firstRead;
  for (let round = 1; position && current && hits.length < limit; ) {
    position = take(plan, position, current, hits, limit);
    if (!position || hits.length >= limit) break;
    if (position.tier === 'word' && position.after === undefined && wordStart) {
      current = wordStart;
    } else if (round < MAX_READ_ROUNDS) {
      const need = limit - hits.length;
      current = await read(position, position.tier === 'word' ? Math.max(need + 1, FILTERED_READ_SIZE) : need + 1);
      round++;
    } else {
      current = undefined;
    }
  }
  return position ? { hits, position } : { hits };
}

/**
 * What a query that matched nothing as typed matches once one of its words is read as one edit away
 * from what was meant: a word of some company's name (correctedMatches), or a legal form ending the
 * query, which is then left out as a legal form typed right would have been. Both are looked for at
 * once. Each needs one correction; the matches that account for every query word come first, then
 * those that leave the legal form out, in the order the tiers give them.
 */
async function forgivenMatches(index: NameIndex, plan: Plan, limit: number): Promise<SearchPage> {
  const legalForm = misspeltLegalForm(plan.normalized);
  const [corrected, withoutLegalForm] = await Promise.all([
    correctedMatches(index, plan),
    legalForm ? typedMatches(index, planOf(legalForm.rest.join(' '), plan.jurisdiction), limit).then(({ hits }) => hits) : [],
  ]);
  const found = new Map(corrected.items.map((item) => [item.companyNumber, item]));
  const options = new Map(corrected.corrections);
  if (legalForm && withoutLegalForm.length > 0) {
    const fix = { from: legalForm.from, to: legalForm.to };
    for (const { item, on } of withoutLegalForm) {
      if (!found.has(item.companyNumber))
        found.set(item.companyNumber, { ...item, match: { type: 'fuzzy', on: [...new Set(on)], corrected: [fix] } });
    }
    options.set(fix.from, [...(options.get(fix.from) ?? []), fix.to]);
  }
  if (options.size === 0) return { items: [] };
  const companiesPerCorrection = new Map<string, number>();
  for (const item of found.values()) {
    for (const { to } of item.match.corrected ?? []) companiesPerCorrection.set(to, (companiesPerCorrection.get(to) ?? 0) + 1);
  }
  // The suggestion takes, for each misspelt word, the correction that the most companies found use.
  const suggestion = plan.queryWords
    .map((word) =>
      (options.get(word) ?? [word]).reduce((best, option) =>
        (companiesPerCorrection.get(option) ?? 0) > (companiesPerCorrection.get(best) ?? 0) ? option : best,
      ),
    )
    .join(' ');
  return { items: [...found.values()].slice(0, limit), suggestion };
}

/** Candidate corrections per query word read at most: the closest words, not every one a short word has. */
const MAX_CORRECTIONS_PER_WORD = 5;
/** Companies read per range in the correction round: enough for a common word, bounded all the same. */
const CORRECTED_READ_SIZE = 100;

/**
 * Companies with a name that matches every query word, at least one of them only after correcting it
 * by one edit: to a word of the vocabulary, or, for a word of fewer letters than the vocabulary
 * keeps, to a word of a name read by the other query words. One batched read finds the corrections
 * of every correctable query word that is not itself a vocabulary word; one round of word-index reads
 * finds their companies. Ranked by how few words needed correcting, then by the name matched, a
 * current name before the same former one; each company once, under its best name.
 */
async function correctedMatches(
  index: NameIndex,
  plan: Plan,
): Promise<{ items: SearchItem[]; corrections: ReadonlyMap<string, readonly string[]> }> {
  const correctable = [...new Set(plan.queryWords.filter(mayBeMisspelt))];
  // The vocabulary keeps no word under five letters: a query word one edit from such a word is
  // corrected against the words of the names the other query words read.
  const short = plan.queryWords.length > 1 ? plan.queryWords.filter(mayMisspellShortWord) : [];
  if (correctable.length === 0 && short.length === 0) return { items: [], corrections: new Map() };
  const vocabulary =
    correctable.length === 0 ? new Map() : await index.variantWords(plan.jurisdiction, [...new Set(correctable.flatMap(variantsOf))]);
  const corrections = new Map<string, string[]>();
  for (const word of correctable) {
    if (vocabulary.get(word)?.includes(word)) continue; // spelt as a word of some name
    const candidates = new Set<string>(variantsOf(word).flatMap((variant) => vocabulary.get(variant) ?? []));
    const close = [...candidates].filter((candidate) => oneEditApart(word, candidate)).sort(compareKeys);
    if (close.length > 0) corrections.set(word, close.slice(0, MAX_CORRECTIONS_PER_WORD));
  }
  if (corrections.size === 0 && short.length === 0) return { items: [], corrections };

  // Read by the most selective word that needs no correction, as the word tier would, and check the
  // others in code; when every such word is common (or there is none), read each correction's own
  // word range instead: a whole word, usually far fewer names than "services" or "group". A short
  // word may be the misspelt one, and it may be the one that reads: the next most selective word
  // reads as well.
  const typed = plan.queryWords.filter((word) => !corrections.has(word)).sort((a, b) => selectivity(b) - selectivity(a));
  const [driver] = typed;
  const ranges =
    driver !== undefined && !startsCommonWord(driver)
      ? [wordStartRange(driver)]
      : [...corrections.values()].flat().map((word) => ({ word, lower: `${word}#`, upper: `${word}#${KEY_MAX}` }));
  if (short.length > 0)
    for (const word of typed.slice(0, 2)) if (!ranges.some((range) => range.word === word)) ranges.push(wordStartRange(word));
  const reads = ranges.map(({ word, lower, upper }) =>
    index.queryPartition(wordPartition(plan.jurisdiction, word), { lower, upper }, CORRECTED_READ_SIZE).then((page) => page.items),
  );
  type Found = { item: SearchItem; corrections: number; name: IndexedAs };
  const found = new Map<string, Found>();
  for (const items of await Promise.all(reads)) {
    for (const item of items) {
      if (found.has(item.companyNumber)) continue;
      let best: { name: IndexedAs; on: string[]; corrected: Array<{ from: string; to: string }> } | undefined;
      for (const name of indexedNamesOfEntry(item)) {
        const matched = matchWithCorrections(plan, name.words, corrections);
        if (matched && (!best || matched.corrected.length < best.corrected.length)) best = { name, ...matched };
      }
      if (!best) continue;
      found.set(item.companyNumber, {
        item: resultOf(item, { type: 'fuzzy', on: best.on, corrected: best.corrected }, best.name.formerName),
        corrections: best.corrected.length,
        name: best.name,
      });
    }
  }
  const ranked = [...found.values()].sort(
    (a, b) =>
      a.corrections - b.corrections ||
      compareKeys(a.name.normalizedName, b.name.normalizedName) ||
      Number(a.name.formerName !== undefined) - Number(b.name.formerName !== undefined),
  );
  // A short word's corrections are the name words it was matched to.
  for (const { item } of ranked) {
    for (const { from, to } of item.match.corrected ?? []) {
      const options = corrections.get(from) ?? [];
      if (!options.includes(to)) corrections.set(from, [...options, to]);
    }
  }
  return { items: ranked.map((entry) => entry.item), corrections };
}

/** A word that may be a word too short for the vocabulary, typed with one edit. */
const mayMisspellShortWord = (word: string) => Array.from(word).length <= MIN_CORRECTED_WORD_LENGTH;

/** The word index range of the words that start with `word`; a one-character word matches only itself. */
const wordStartRange = (word: string) =>
  singleCharacter(word) ? { word, lower: `${word}#`, upper: `${word}#${KEY_MAX}` } : { word, lower: word, upper: word + KEY_MAX };

/**
 * How a name's words match every query word, as typed (a word prefix, as the word tier matches) or
 * corrected (a whole word equal to a correction, or, once per name, a word of the name too
 * short for the vocabulary one edit away); undefined when a word matches none of these, or when every word
 * matched as typed (the exact tiers showed that company).
 */
function matchWithCorrections(
  plan: Plan,
  words: readonly string[],
  corrections: ReadonlyMap<string, readonly string[]>,
): { on: string[]; corrected: Array<{ from: string; to: string }> } | undefined {
  const on: string[] = [];
  const corrected: Array<{ from: string; to: string }> = [];
  let shortCorrected = false;
  for (const word of plan.queryWords) {
    const asTyped = firstMatchingWord(words, word);
    if (asTyped !== undefined) {
      on.push(asTyped);
      continue;
    }
    let fixed = (corrections.get(word) ?? []).find((correction) => words.includes(correction));
    // A short word is one edit from many others: only one such guess per name.
    if (fixed === undefined && mayMisspellShortWord(word) && !shortCorrected) {
      fixed = words.filter((nameWord) => !isCorrectable(nameWord) && oneEditApart(word, nameWord)).sort(compareKeys)[0];
      shortCorrected = fixed !== undefined;
    }
    if (fixed === undefined) return undefined;
    on.push(fixed);
    corrected.push({ from: word, to: fixed });
  }
  return corrected.length > 0 ? { on: [...new Set(on)], corrected } : undefined;
}

/** Adds what `read` holds for the page, up to `limit` hits, and says where the next read starts. */
function take(plan: Plan, position: Position, read: TierRead, hits: Hit[], limit: number): Position | undefined {
  const accept = position.tier === 'name' ? acceptName(plan) : acceptWord(plan);
  for (const [i, candidate] of read.items.entries()) {
    const hit = accept(candidate);
    if (hit) hits.push(hit);
    if (hits.length === limit && (i < read.items.length - 1 || read.more)) return { tier: position.tier, after: candidate.sk };
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

function resultOf(entry: SearchEntry, match: SearchItem['match'], formerName?: string): SearchItem {
  return {
    companyNumber: entry.companyNumber,
    jurisdiction: entry.jurisdiction,
    name: entry.name,
    status: entry.status,
    type: entry.type,
    incorporatedOn: entry.incorporatedOn ?? null,
    match,
    ...(formerName === undefined ? {} : { matchedPreviousName: formerName }),
  };
}

const notTheNumberHit = (plan: Plan, item: IndexItem) => item.companyNumber !== plan.numberHit;

/** Whether the name tier reads the name: it is the query or starts with it. */
const inNameTier = (plan: Plan, normalizedName: string) => normalizedName === plan.normalized || normalizedName.startsWith(plan.namePrefix);

/** Orders the names of one company that match equally well: a current name first, then in key order. */
const currentFirst = (a: { name: IndexedAs; sk: string }, b: { name: IndexedAs; sk: string }) =>
  Number(a.name.formerName !== undefined) - Number(b.name.formerName !== undefined) || compareKeys(a.sk, b.sk);

function acceptName(plan: Plan): (item: IndexItem) => Hit | undefined {
  return (item) => {
    if (!notTheNumberHit(plan, item)) return undefined;
    // A company with several names in the tier shows once, at its best: an exact name before a longer
    // one, then a current name before a former one.
    const best = indexedNamesOfEntry(item)
      .filter((name) => inNameTier(plan, name.normalizedName))
      .map((name) => ({ name, sk: nameItemSortKey(name, item.companyNumber) }))
      .sort(
        (a, b) =>
          Number(a.name.normalizedName !== plan.normalized) - Number(b.name.normalizedName !== plan.normalized) || currentFirst(a, b),
      )[0];
    if (best?.sk !== item.sk) return undefined;
    const own = best.name;
    const on = plan.queryWords.flatMap((word) =>
      own.words
        .filter((nameWord) => nameWord.startsWith(word))
        .sort(compareKeys)
        .slice(0, 1),
    );
    return { item: resultOf(item, { type: own.normalizedName === plan.normalized ? 'exact' : 'name_prefix' }, own.formerName), on };
  };
}

function acceptWord(plan: Plan): (item: IndexItem) => Hit | undefined {
  return (item) => {
    if (!notTheNumberHit(plan, item)) return undefined;
    const names = indexedNamesOfEntry(item);
    // The name tier showed the companies with a name that is the query or starts with it.
    if (names.some((name) => inNameTier(plan, name.normalizedName))) return undefined;
    // A company with several words, or names, matching the query has an item for each: it shows at
    // one, its current name's if that matches, and of a name's words matching the driving word, the first.
    const best = names
      .flatMap((name) => {
        const on = plan.queryWords.map((queryWord) => firstMatchingWord(name.words, queryWord));
        const driving = firstMatchingWord(name.words, plan.drivingWord);
        if (driving === undefined || on.includes(undefined)) return [];
        return [{ name, on: [...new Set(on as string[])], sk: wordItemSortKey(driving, name, item.companyNumber) }];
      })
      .sort(currentFirst)[0];
    if (best?.sk !== item.sk) return undefined;
    return { item: resultOf(item, { type: 'word_prefix', on: best.on }, best.name.formerName), on: best.on };
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
