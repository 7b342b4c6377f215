import type { Jurisdiction } from './profile';
import { deletionVariants, isCorrectable } from './spelling';

/**
 * The vocabulary of the words in company names, kept in the companies table for spelling correction.
 * For every correctable word w: the item `V#<J>#<w>` counts the companies whose name has it (`uses`),
 * and w is in the `words` set of the items `D#<J>#<v>` for v = w and each of its one-deletion
 * variants. A query word q then finds its candidates in the `words` of q and of q's own deletions: one
 * batched read. A word gets its variant items when its first company arrives and leaves them when its
 * last one goes.
 */
export const usesKey = (jurisdiction: Jurisdiction, word: string) => ({ pk: `V#${jurisdiction}#${word}`, sk: 'USES' });
export const variantKey = (jurisdiction: Jurisdiction, variant: string) => ({ pk: `D#${jurisdiction}#${variant}`, sk: 'WORDS' });

/** The keys a query word's candidates are read from. */
export const lookupVariants = (word: string) => [word, ...deletionVariants(word)];

/** The keys a vocabulary word is written under. */
export const variantsOf = (word: string) => [word, ...deletionVariants(word)];

export interface WordChange {
  readonly jurisdiction: Jurisdiction;
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

/** Net change of `uses` per (jurisdiction, word) over many saved companies, correctable words only. */
export function usesDeltas(changes: readonly WordChange[]): Map<string, { jurisdiction: Jurisdiction; word: string; delta: number }> {
  const deltas = new Map<string, { jurisdiction: Jurisdiction; word: string; delta: number }>();
  const add = (jurisdiction: Jurisdiction, word: string, delta: number) => {
    if (!isCorrectable(word)) return;
    const key = `${jurisdiction}#${word}`;
    const entry = deltas.get(key) ?? { jurisdiction, word, delta: 0 };
    entry.delta += delta;
    deltas.set(key, entry);
  };
  for (const change of changes) {
    for (const word of change.added) add(change.jurisdiction, word, 1);
    for (const word of change.removed) add(change.jurisdiction, word, -1);
  }
  for (const [key, entry] of deltas) if (entry.delta === 0) deltas.delete(key);
  return deltas;
}

/** What the words a name had and has now mean for the vocabulary. */
export function wordChange(jurisdiction: Jurisdiction, before: readonly string[], after: readonly string[]): WordChange {
  const old = new Set(before);
  const now = new Set(after);
  return { jurisdiction, added: [...now].filter((word) => !old.has(word)), removed: [...old].filter((word) => !now.has(word)) };
}
