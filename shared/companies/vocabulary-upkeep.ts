import { type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { logger } from '../observability/logger';
import type { Jurisdiction } from './profile';
import { wordPartition } from './search-index';
import { isCorrectable } from './spelling';
import { variantKey, variantsOf } from './vocabulary';

/** Words an import remembers having added, at most; past it the memory starts again (a word is then only written twice). */
const MAX_KNOWN_WORDS = 500_000;
/** Vocabulary updates in flight at once during an import. */
const VOCABULARY_WRITES_IN_FLIGHT = 8;

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
    const limit = pLimit(VOCABULARY_WRITES_IN_FLIGHT);
    await Promise.allSettled(
      [...added].map(([key, { jurisdiction, word }]) =>
        limit(async () => {
          await this.setVocabulary(jurisdiction, word, 'ADD');
          this.knownWords.add(key);
        }),
      ),
    );
    await Promise.allSettled(
      [...removed].map(([key, { jurisdiction, word }]) =>
        limit(async () => {
          if (await this.someCompanyHas(jurisdiction, word)) return;
          await this.setVocabulary(jurisdiction, word, 'DELETE');
          this.knownWords.delete(key);
        }),
      ),
    );
  }

  private async setVocabulary(jurisdiction: Jurisdiction, word: string, action: 'ADD' | 'DELETE'): Promise<void> {
    try {
      await Promise.all(
        variantsOf(word).map((variant) =>
          this.doc.send(
            new UpdateCommand({
              TableName: this.tableName,
              Key: variantKey(jurisdiction, variant),
              UpdateExpression: `${action} words :word`,
              ExpressionAttributeValues: { ':word': new Set([word]) },
            }),
          ),
        ),
      );
    } catch (error) {
      logger.warn('vocabulary not updated', { jurisdiction, word, action, errorName: (error as Error)?.name });
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
