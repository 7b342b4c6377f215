/**
 * One-edit spelling correction of query words, symmetric-delete style: a word and every string one
 * deletion away from it are keys, so the words within one edit of a query word are found by reading
 * the keys of the query word and its own deletions (docs/search.md, "Typos").
 */

/**
 * Words shorter than this are not corrected: at four letters one edit reaches too many other words
 * ("bank", "band", "bark", "back") for a correction to mean anything.
 */
export const MIN_CORRECTED_WORD_LENGTH = 5;
/** Longer words are rare in names and would make many keys; a typo in one is left to prefix matching. */
export const MAX_CORRECTED_WORD_LENGTH = 24;

const lengthOf = (word: string) => Array.from(word).length;

/**
 * A word with no letter in it: a number. Numbers are never spelling mistakes to correct, and many
 * names are numbers (the register holds thousands of companies named after their own number): their
 * one-deletion keys collide across numbers, so each such key would gather an ever larger set of them.
 */
const NO_LETTER = /^[^\p{L}]*$/u;

/** Words the vocabulary keeps, and so the words a query word can be corrected to. */
export const isCorrectable = (word: string) => {
  const length = lengthOf(word);
  return length >= MIN_CORRECTED_WORD_LENGTH && length <= MAX_CORRECTED_WORD_LENGTH && !NO_LETTER.test(word);
};

/**
 * Query words that may be misspelt: one letter shorter than a vocabulary word too, since a dropped
 * letter makes "gates" "gats"; such a word can only be corrected back to a word of five letters.
 */
export const mayBeMisspelt = (word: string) => {
  const length = lengthOf(word);
  return length >= MIN_CORRECTED_WORD_LENGTH - 1 && length <= MAX_CORRECTED_WORD_LENGTH;
};

/** The distinct strings one deletion away from the word, by code point. */
export function deletionVariants(word: string): string[] {
  const letters = Array.from(word);
  const variants = new Set<string>();
  for (let i = 0; i < letters.length; i++) variants.add([...letters.slice(0, i), ...letters.slice(i + 1)].join(''));
  return [...variants];
}

/**
 * True when `a` becomes `b` by exactly one edit: a letter dropped, added or changed, or two
 * neighbouring letters swapped (optimal string alignment distance 1).
 */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b) return false;
  const x = Array.from(a);
  const y = Array.from(b);
  if (Math.abs(x.length - y.length) > 1) return false;
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start++;
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && x[endX - 1] === y[endY - 1]) {
    endX--;
    endY--;
  }
  const restX = endX - start;
  const restY = endY - start;
  if (restX + restY <= 1) return true; // one added or dropped
  if (restX === 1 && restY === 1) return true; // one changed
  return restX === 2 && restY === 2 && x[start] === y[start + 1] && x[start + 1] === y[start]; // two swapped
}
