import type { Jurisdiction } from './profile';
import { deletionVariants } from './spelling';

/**
 * The vocabulary of the words in company names, kept in the companies table for spelling correction:
 * every correctable word w is in the `words` set of the items `D#<J>#<v>` for v = w and each of its
 * one-deletion variants. A query word q then finds its candidates in the `words` of q and of q's own
 * deletions: one batched read. A word joins when a company with it is saved and leaves when a rename
 * drops it and the word index shows no other company has it; the index is the count.
 */
export const variantKey = (jurisdiction: Jurisdiction, variant: string) => ({ pk: `D#${jurisdiction}#${variant}`, sk: 'WORDS' });

/** The keys a vocabulary word is written under, and a query word's candidates are read from. */
export const variantsOf = (word: string) => [word, ...deletionVariants(word)];
