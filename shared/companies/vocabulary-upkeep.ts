import { type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import pLimit, { type LimitFunction } from 'p-limit';
import { logger } from '../observability/logger';
import { batchGet } from '../storage/batch';
import type { Jurisdiction } from './profile';
import { wordPartition } from './search-index';
import { isCorrectable } from './spelling';
import { variantKey, variantsOf } from './vocabulary';

/** Words an import remembers having added, at most; past it the memory starts again (a word is then only written twice). */
const MAX_KNOWN_WORDS = 500_000;
/** Vocabulary requests in flight at once: well under the SDK's 50 sockets, which the profile writes share. */
const VOCABULARY_REQUESTS_IN_FLIGHT = 16;

export interface WordChange {
  readonly jurisdiction: Jurisdiction;
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

/** What the words a name had and has now mean for the vocabulary. */
export function wordChange(jurisdiction: Jurisdiction, before: readonly string[], after: readonly string[]): WordChange {
  const old = new Set(before);
  const now = new Set(after);
  return { jurisdiction, added: [...now].filter((word) => !old.has(word)), removed: [...old].filter((word) => !now.has(word)) };
}

/** The spelling vocabulary kept in step with the names profiles are saved under. */
export class VocabularyUpkeep {
  /** Vocabulary words this store has added (`<J>#<word>`), so an import writes each one once. */
  private readonly knownWords = new Set<string>();

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Adds the words a save brought to the vocabulary and takes out those a rename dropped that no
   * company has any more (the word index says). Words this store already added are not written
   * again, so an import writes each word's variant keys once. After the profiles are saved, so a
   * failure here costs a correction, never a profile: it is logged; a stale word only ever costs an
   * empty read.
   */
  async update(changes: readonly WordChange[]): Promise<void> {
    const added = new Map<string, { jurisdiction: Jurisdiction; word: string }>();
    const removed = new Map<string, { jurisdiction: Jurisdiction; word: string }>();
    for (const { jurisdiction, added: words, removed: dropped } of changes) {
      for (const word of words.filter(isCorrectable)) {
        const key = `${jurisdiction}#${word}`;
        if (!this.knownWords.has(key)) added.set(key, { jurisdiction, word });
      }
      for (const word of dropped.filter(isCorrectable)) removed.set(`${jurisdiction}#${word}`, { jurisdiction, word });
    }
    if (this.knownWords.size + added.size > MAX_KNOWN_WORDS) this.knownWords.clear();
    // One bound for every request of the call, so an import's vocabulary never queues on the SDK's socket pool.
    const limit = pLimit(VOCABULARY_REQUESTS_IN_FLIGHT);
    await Promise.allSettled(
      (await this.notYetHeld([...added.values()])).map(async ({ jurisdiction, word }) => {
        if (await this.setVocabulary(jurisdiction, word, 'ADD', limit)) this.knownWords.add(`${jurisdiction}#${word}`);
      }),
    );
    await Promise.allSettled(
      [...removed].map(async ([key, { jurisdiction, word }]) => {
        if (await limit(() => this.someCompanyHas(jurisdiction, word))) return;
        if (await this.setVocabulary(jurisdiction, word, 'DELETE', limit)) this.knownWords.delete(key);
      }),
    );
  }

  /**
   * The words the vocabulary does not hold yet, by one batched read of each word's own key: a word is
   * written to its own key after all its variants, so its own key holding it means every variant does.
   * Most words of a real import (LIMITED, HOLDINGS, SERVICES…) are held already and cost a read, not
   * a write per variant. A failed read writes them all, as before.
   */
  private async notYetHeld(words: readonly { jurisdiction: Jurisdiction; word: string }[]) {
    if (words.length === 0) return [];
    let held: Map<string, ReadonlySet<string> | undefined>;
    try {
      const items = await batchGet<{ pk: string; words?: Set<string> }>(
        this.doc,
        this.tableName,
        words.map(({ jurisdiction, word }) => variantKey(jurisdiction, word)),
        'pk, words',
      );
      held = new Map(items.map((item) => [item.pk, item.words]));
    } catch (error) {
      logger.warn('vocabulary not read before its update', { words: words.length, errorName: (error as Error)?.name });
      return words;
    }
    return words.filter(({ jurisdiction, word }) => {
      if (!held.get(variantKey(jurisdiction, word).pk)?.has(word)) return true;
      this.knownWords.add(`${jurisdiction}#${word}`);
      return false;
    });
  }

  /**
   * Adds the word to (or takes it from) its own key and each deletion variant's. Its own key is
   * written last on ADD and first on DELETE, so it holds the word only while every variant does.
   */
  private async setVocabulary(jurisdiction: Jurisdiction, word: string, action: 'ADD' | 'DELETE', limit: LimitFunction): Promise<boolean> {
    const write = (variant: string) =>
      limit(() =>
        this.doc.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: variantKey(jurisdiction, variant),
            UpdateExpression: `${action} words :word`,
            ExpressionAttributeValues: { ':word': new Set([word]) },
          }),
        ),
      );
    const others = variantsOf(word).filter((variant) => variant !== word);
    try {
      if (action === 'DELETE') await write(word);
      await Promise.all(others.map(write));
      if (action === 'ADD') await write(word);
      return true;
    } catch (error) {
      logger.warn('vocabulary not updated', { jurisdiction, word, action, errorName: (error as Error)?.name });
      return false;
    }
  }

  /** Whether the word index holds the word for any company: one item read at most. */
  private async someCompanyHas(jurisdiction: Jurisdiction, word: string): Promise<boolean> {
    const result = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :word)',
        ExpressionAttributeValues: { ':pk': wordPartition(jurisdiction, word), ':word': `${word}#` },
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    return (result.Items ?? []).length > 0;
  }
}
