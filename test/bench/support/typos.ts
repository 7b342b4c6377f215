import { nameWords } from '../../../shared/companies/names';
import { isCorrectable } from '../../../shared/companies/spelling';

export type TypoKind = 'dropped' | 'added' | 'changed' | 'swapped';
export const TYPO_KINDS: readonly TypoKind[] = ['dropped', 'added', 'changed', 'swapped'];

/** Deterministic pseudo-random numbers, so every run makes the same typos. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** The word with one edit of the kind, inside the word (never its first letter, as people rarely slip there). */
export function withTypo(word: string, kind: TypoKind, random: () => number): string {
  const letters = Array.from(word);
  const at = 1 + Math.floor(random() * (letters.length - 2));
  const letter = () => LETTERS[Math.floor(random() * LETTERS.length)] as string;
  switch (kind) {
    case 'dropped':
      letters.splice(at, 1);
      break;
    case 'added':
      letters.splice(at, 0, letter());
      break;
    case 'changed': {
      let replacement = letter();
      while (replacement === letters[at]) replacement = letter();
      letters[at] = replacement;
      break;
    }
    case 'swapped':
      if (letters[at] === letters[at + 1]) return withTypo(word, 'changed', random);
      [letters[at], letters[at + 1]] = [letters[at + 1] as string, letters[at] as string];
      break;
  }
  return letters.join('');
}

/** The normalized name with one of its correctable words misspelt, or undefined when it has none. */
export function misspelt(normalizedName: string, kind: TypoKind, random: () => number): string | undefined {
  const words = nameWords(normalizedName);
  const eligible = words.map((word, index) => ({ word, index })).filter(({ word }) => isCorrectable(word) && /^[a-z]+$/.test(word));
  if (eligible.length === 0) return undefined;
  const { word, index } = eligible[Math.floor(random() * eligible.length)] as { word: string; index: number };
  return words.map((original, i) => (i === index ? withTypo(word, kind, random) : original)).join(' ');
}
