import { oneEditApart } from './spelling';

/**
 * Company name normalization: the form both the search index and search queries are reduced to, so
 * that "O’Brien & Sons Ltd.", "OBRIEN AND SONS LIMITED" and "O'Brien + Sons" meet.
 */

/** Letters that Unicode does not decompose into a base letter plus marks. */
const UNDECOMPOSABLE: Readonly<Record<string, string>> = {
  æ: 'ae',
  ð: 'd',
  đ: 'd',
  ħ: 'h',
  ı: 'i',
  ĳ: 'ij',
  ł: 'l',
  ŀ: 'l',
  ø: 'o',
  œ: 'oe',
  ß: 'ss',
  þ: 'th',
};

/**
 * Legal-form words that end company names, in normalized spelling (dotted abbreviations such as
 * "P.L.C." normalize to "plc"). GB: Companies Act 2006 and the Company, Limited Liability
 * Partnership and Business (Names and Trading Disclosures) Regulations 2015, English and Welsh forms.
 * IE: Companies Act 2014, English and Irish forms. Plus the overseas forms common on the GB register.
 * "PC" (Welsh for limited partnership) is left out on purpose: as a trailing word it far more often
 * means "personal computer".
 */
export const LEGAL_SUFFIXES: readonly string[] = [
  // GB private and public companies
  'limited',
  'ltd',
  'cyfyngedig',
  'cyf',
  'unlimited',
  'public limited company',
  'plc',
  'cwmni cyfyngedig cyhoeddus',
  'ccc',
  'company limited by guarantee',
  'limited by guarantee',
  // GB partnerships
  'limited liability partnership',
  'llp',
  'partneriaeth atebolrwydd cyfyngedig',
  'pac',
  'limited partnership',
  'lp',
  'partneriaeth cyfyngedig',
  // GB community interest companies and charitable incorporated organisations
  'community interest company',
  'community interest public limited company',
  'community interest plc',
  'cic',
  'cwmni buddiant cymunedol',
  'cwmni buddiant cymunedol cyhoeddus cyfyngedig',
  'cbc',
  'cbcc',
  'charitable incorporated organisation',
  'cio',
  'sefydliad corfforedig elusennol',
  'sce',
  // IE
  'teoranta',
  'teo',
  'designated activity company',
  'dac',
  'cuideachta ghniomhaiochta ainmnithe',
  'cga',
  'cuideachta phoibli theoranta',
  'cpt',
  'clg',
  'cuideachta faoi theorainn rathaiochta',
  'cuideachta faoi theorainn ratha',
  'cftr',
  'unlimited company',
  'uc',
  'ulc',
  'cuideachta neamhtheoranta',
  'public unlimited company',
  'puc',
  'cuideachta phoibli neamhtheoranta',
  'cpn',
  // Overseas forms seen on the GB register
  'gmbh',
  'inc',
  'llc',
  'sarl',
  'sa rl',
];

const SUFFIX_WORDS: readonly (readonly string[])[] = LEGAL_SUFFIXES.map((suffix) => suffix.split(' ')).sort((a, b) => b.length - a.length);

const endsWith = (words: readonly string[], suffix: readonly string[]) =>
  suffix.every((word, index) => words[words.length - suffix.length + index] === word);

/** Initials written with full stops ("S.O.H.O.", "Y.H", "P.L.C.") read as one word. */
const DOTTED_INITIALS = /(?<![\p{L}\p{N}])(?:\p{L}\.)+\p{L}(?![\p{L}\p{N}])\.?/gu;

/** Case, accents and punctuation folded; "&" and "+" read as "and"; legal-form suffixes kept. */
export function foldName(name: string): string {
  const decomposed = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  return Array.from(decomposed, (char) => UNDECOMPOSABLE[char] ?? char)
    .join('')
    .replace(DOTTED_INITIALS, (initials) => initials.replace(/\./g, ''))
    .replace(/['’‘`´ʼ]/g, '')
    .replace(/[&+]/g, ' and ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * Removes trailing legal-form words ("... HOLDINGS LIMITED LTD" → "... holdings"), repeatedly, but
 * never the last remaining word: a name that is nothing but a legal form keeps its last word.
 */
export function stripLegalSuffixes(words: readonly string[]): string[] {
  let remaining = [...words];
  for (;;) {
    const suffix = SUFFIX_WORDS.find((candidate) => candidate.length < remaining.length && endsWith(remaining, candidate));
    if (!suffix) return remaining;
    remaining = remaining.slice(0, remaining.length - suffix.length);
  }
}

/** The normalized name: folded, legal suffixes stripped, single spaces. */
export function normalizeName(name: string): string {
  const folded = foldName(name);
  return folded === '' ? '' : stripLegalSuffixes(folded.split(' ')).join(' ');
}

/**
 * A search query reduced the way names are, so that it compares with normalized names. Only whole
 * legal-form words are stripped: a trailing fragment such as "lim" stays, because it may as well be
 * the start of a real word ("LIME", "LIMERICK").
 */
export function normalizeQuery(query: string): string {
  return normalizeName(query);
}

/** A legal form at the end of a query with one of its words misspelt, and what is left without it. */
export interface MisspeltLegalForm {
  /** The query's words before the legal form, with any further legal forms stripped. */
  readonly rest: readonly string[];
  readonly from: string;
  readonly to: string;
}

/**
 * Reads the end of a normalized query as a legal form typed with one edit in one of its words
 * ("acme widgets limted", "acme cwmni budiant cymunedol"), the longest form first. Normalization
 * cannot strip it, and the index never holds it, so as typed such a query finds nothing. This is no
 * part of normalization: a short form is one edit from too many real words ("ltd" from "led"), so
 * search only asks when nothing matched as typed.
 */
export function misspeltLegalForm(normalizedQuery: string): MisspeltLegalForm | undefined {
  const words = normalizedQuery.split(' ');
  for (const suffix of SUFFIX_WORDS) {
    if (suffix.length >= words.length) continue;
    const tail = words.slice(words.length - suffix.length);
    const differing = suffix.flatMap((word, i) => (tail[i] === word ? [] : [i]));
    const at = differing[0];
    if (differing.length !== 1 || at === undefined || !oneEditApart(tail[at] as string, suffix[at] as string)) continue;
    return { rest: stripLegalSuffixes(words.slice(0, words.length - suffix.length)), from: tail[at] as string, to: suffix[at] as string };
  }
  return undefined;
}

/** The distinct words of a normalized name, in their first order. */
export function nameWords(normalized: string): string[] {
  return [...new Set(normalized.split(' ').filter((word) => word !== ''))];
}
