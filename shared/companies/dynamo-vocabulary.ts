import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGet, batchWrite } from '../storage/batch';
import type { Jurisdiction } from './profile';
import { isCorrectable } from './spelling';
import { variantKey, variantsOf } from './vocabulary';

const KEYS_PER_ROUND = 100;

/**
 * Adds many words to the vocabulary at once, for a first load: each variant item is read, merged
 * with the new words and written back whole, 25 to a BatchWriteItem, instead of one UpdateItem per
 * word and key. Safe to repeat, and it keeps whatever words the items already hold; but it must not
 * run beside another writer of the same items (a word added in between would be lost), which a first
 * load of an empty database never has.
 */
export async function addToVocabularyInBulk(
  doc: DynamoDBDocumentClient,
  tableName: string,
  words: Iterable<{ readonly jurisdiction: Jurisdiction; readonly word: string }>,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<void> {
  const variants = new Map<string, { jurisdiction: Jurisdiction; variant: string; words: Set<string> }>();
  for (const { jurisdiction, word } of words) {
    if (!isCorrectable(word)) continue;
    for (const variant of variantsOf(word)) {
      const id = `${jurisdiction}\u0000${variant}`;
      const entry = variants.get(id) ?? { jurisdiction, variant, words: new Set<string>() };
      entry.words.add(word);
      variants.set(id, entry);
    }
  }
  const all = [...variants.values()];
  for (let start = 0; start < all.length; start += KEYS_PER_ROUND) {
    const round = all.slice(start, start + KEYS_PER_ROUND);
    const existing = await batchGet<{ pk: string; words?: Set<string> }>(
      doc,
      tableName,
      round.map(({ jurisdiction, variant }) => variantKey(jurisdiction, variant)),
    );
    const held = new Map(existing.map((item) => [item.pk, item.words ?? new Set<string>()]));
    const items = round.map(({ jurisdiction, variant, words: added }) => {
      const key = variantKey(jurisdiction, variant);
      return { ...key, words: new Set([...(held.get(key.pk) ?? []), ...added]) };
    });
    await batchWrite(
      doc,
      tableName,
      items.map((Item) => ({ PutRequest: { Item } })),
    );
    onProgress(Math.min(start + KEYS_PER_ROUND, all.length), all.length);
  }
}
