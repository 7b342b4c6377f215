import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { logger } from '../observability/logger';
import { BATCH_WRITE_LIMIT, batchGet, batchWrite } from '../storage/batch';
import {
  type CompanyStore,
  ConcurrentProfileUpdateError,
  contentHashOf,
  indexedNameOf,
  type KeyRange,
  type NameIndex,
  type PartitionPage,
  type ProfileRecord,
  type SaveManyOptions,
  type SaveOutcome,
} from './company-store';
import type { CompanyProfile, Jurisdiction, ProfileContent } from './profile';
import {
  type IndexedName,
  type IndexItem,
  indexChanges,
  indexItemsOf,
  profileKey,
  type SearchEntry,
  searchEntryOf,
  wordPartition,
} from './search-index';
import { isCorrectable } from './spelling';
import { variantKey, variantsOf, type WordChange, wordChange } from './vocabulary';

/** The profile item as stored: the content plus bookkeeping the API never shows. */
interface StoredProfile extends CompanyProfile {
  readonly contentHash: string;
  readonly normalizedName: string;
  readonly words: readonly string[];
}

function profileOf(item: CompanyProfile): CompanyProfile {
  return {
    jurisdiction: item.jurisdiction,
    companyNumber: item.companyNumber,
    name: item.name,
    version: item.version,
    updatedAt: item.updatedAt,
    dataSource: item.dataSource,
    overview: item.overview,
    tradingStatus: item.tradingStatus,
    filingBehaviour: item.filingBehaviour,
    riskOfFailure: item.riskOfFailure,
    creditCapacity: item.creditCapacity,
    earlySignals: item.earlySignals,
  };
}

function contentOf(item: CompanyProfile): ProfileContent {
  const { version: _version, updatedAt: _updatedAt, ...content } = profileOf(item);
  return content;
}

const storedEntryOf = (item: StoredProfile): SearchEntry =>
  searchEntryOf(contentOf(item), { normalizedName: item.normalizedName, words: item.words });

const keyOf = (content: ProfileContent) => profileKey(content.jurisdiction, content.companyNumber);
const keyText = (content: ProfileContent) => keyOf(content).pk;

/** BatchWriteItem requests of new companies in flight per saveMany call. */
const CREATE_REQUESTS_IN_FLIGHT = 4;

export class DynamoCompanyStore implements CompanyStore, NameIndex {
  /** Vocabulary words this store has added (`<J>#<word>`), so an import writes each one once. */
  private readonly knownWords = new Set<string>();

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: () => Date = () => new Date(),
    /** False for a first load that writes the vocabulary in bulk afterwards (dynamo-vocabulary.ts). */
    private readonly keepVocabulary = true,
  ) {}

  async get(jurisdiction: Jurisdiction, companyNumber: string): Promise<CompanyProfile | undefined> {
    const stored = await this.read(jurisdiction, companyNumber, false);
    return stored && profileOf(stored);
  }

  async getMany(keys: ReadonlyArray<{ jurisdiction: Jurisdiction; companyNumber: string }>): Promise<Map<string, CompanyProfile>> {
    const items = await batchGet<StoredProfile>(this.doc, this.tableName, [
      ...new Map(keys.map((key) => [`${key.jurisdiction}#${key.companyNumber}`, profileKey(key.jurisdiction, key.companyNumber)])).values(),
    ]);
    return new Map(items.map((item) => [keyText(item), profileOf(item)]));
  }

  async getRecord(jurisdiction: Jurisdiction, companyNumber: string): Promise<ProfileRecord | undefined> {
    const stored = await this.read(jurisdiction, companyNumber, false);
    return stored && { profile: profileOf(stored), contentHash: stored.contentHash };
  }

  async save(content: ProfileContent): Promise<SaveOutcome> {
    return this.write(content, await this.read(content.jurisdiction, content.companyNumber, true), true);
  }

  /**
   * Companies not stored yet are written with BatchWriteItem, their profile and index items together,
   * 25 items a request; a company that exists goes through its version-guarded transaction, which
   * keeps its index items consistent with the profile it replaces; unchanged content writes nothing.
   */
  async saveMany(contents: readonly ProfileContent[], options: SaveManyOptions = {}): Promise<PromiseSettledResult<SaveOutcome>[]> {
    const current = await this.readMany(contents);
    const results: PromiseSettledResult<SaveOutcome>[] = new Array(contents.length);
    const fresh: number[] = [];
    const rest: number[] = [];
    const seen = new Set<string>();
    for (const [index, content] of contents.entries()) {
      const key = keyText(content);
      if (!current.has(key) && !seen.has(key)) fresh.push(index);
      else rest.push(index);
      seen.add(key);
    }
    await this.createMany(
      fresh.map((index) => contents[index] as ProfileContent),
      (position, result) => {
        results[fresh[position] as number] = result;
      },
    );
    // The same company twice in one call: a later copy waits for the earlier write, then re-reads.
    const inFlight = new Map<string, Promise<SaveOutcome>>();
    const limit = pLimit(options.concurrency ?? 16);
    const settled = await Promise.allSettled(
      rest.map((index) =>
        limit(() => {
          const content = contents[index] as ProfileContent;
          const key = keyText(content);
          const earlier = inFlight.get(key);
          const saved = earlier
            ? earlier.then(
                () => this.save(content),
                () => this.save(content),
              )
            : current.has(key)
              ? this.write(content, current.get(key), true)
              : this.save(content);
          inFlight.set(key, saved);
          return saved;
        }),
      ),
    );
    for (const [position, result] of settled.entries()) results[rest[position] as number] = result;
    return results;
  }

  /**
   * New companies in BatchWriteItem requests of up to 25 items, a company's items never split across
   * two requests; unprocessed items are sent again with backoff. A request that fails rejects the
   * companies it carried, and only those.
   */
  private async createMany(
    contents: readonly ProfileContent[],
    settle: (position: number, result: PromiseSettledResult<SaveOutcome>) => void,
  ): Promise<void> {
    const requests: Array<{ positions: number[]; items: object[] }> = [];
    const oversize: number[] = [];
    const created: number[] = [];
    for (const [position, content] of contents.entries()) {
      const indexed = indexedNameOf(content.name);
      const items: object[] = [
        this.profileItem(content, undefined, indexed, contentHashOf(content)),
        ...indexItemsOf(searchEntryOf(content, indexed)),
      ];
      if (items.length > BATCH_WRITE_LIMIT) {
        // A name of more than 23 words needs more items than one request carries: its own transaction.
        oversize.push(position);
        continue;
      }
      let last = requests.at(-1);
      if (!last || last.items.length + items.length > BATCH_WRITE_LIMIT) {
        last = { positions: [], items: [] };
        requests.push(last);
      }
      last.positions.push(position);
      last.items.push(...items);
    }
    const limit = pLimit(CREATE_REQUESTS_IN_FLIGHT);
    const transactions = oversize.map((position) =>
      limit(async () => {
        try {
          settle(position, { status: 'fulfilled', value: await this.write(contents[position] as ProfileContent, undefined, true) });
        } catch (reason) {
          settle(position, { status: 'rejected', reason });
        }
      }),
    );
    const batches = requests.map((request) =>
      limit(async () => {
        try {
          await batchWrite(
            this.doc,
            this.tableName,
            request.items.map((Item) => ({ PutRequest: { Item } })),
          );
          for (const position of request.positions) settle(position, { status: 'fulfilled', value: 'created' });
          created.push(...request.positions);
        } catch (reason) {
          for (const position of request.positions) settle(position, { status: 'rejected', reason });
        }
      }),
    );
    await Promise.all([...transactions, ...batches]);
    await this.updateVocabulary(
      created.map((position) => {
        const content = contents[position] as ProfileContent;
        return wordChange(content.jurisdiction, [], indexedNameOf(content.name).words);
      }),
    );
  }

  private profileItem(content: ProfileContent, current: StoredProfile | undefined, indexed: IndexedName, contentHash: string) {
    return {
      ...keyOf(content),
      ...content,
      version: (current?.version ?? 0) + 1,
      updatedAt: this.clock().toISOString(),
      contentHash,
      normalizedName: indexed.normalizedName,
      words: indexed.words,
    };
  }

  async queryPartition(pk: string, range: KeyRange, limit: number): Promise<PartitionPage> {
    const result = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :upper',
        ExpressionAttributeValues: { ':pk': pk, ':from': range.after ?? range.lower, ':upper': range.upper },
        Limit: limit,
      }),
    );
    const items = (result.Items ?? []) as IndexItem[];
    return {
      // BETWEEN is inclusive: the item the range starts after was already read.
      items: range.after === undefined ? items : items.filter((item) => item.sk !== range.after),
      more: result.LastEvaluatedKey !== undefined,
    };
  }

  async entryByNumber(jurisdiction: Jurisdiction, companyNumber: string): Promise<SearchEntry | undefined> {
    const stored = await this.read(jurisdiction, companyNumber, false);
    return stored && storedEntryOf(stored);
  }

  private async read(jurisdiction: Jurisdiction, companyNumber: string, consistent: boolean): Promise<StoredProfile | undefined> {
    const result = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: profileKey(jurisdiction, companyNumber), ConsistentRead: consistent }),
    );
    return result.Item as StoredProfile | undefined;
  }

  /** The stored profiles of a batch, by key, so unchanged content costs one batched read and no write. */
  private async readMany(contents: readonly ProfileContent[]): Promise<Map<string, StoredProfile>> {
    const keys = [...new Map(contents.map((content) => [keyText(content), keyOf(content)])).values()];
    const items = await batchGet<StoredProfile>(this.doc, this.tableName, keys);
    return new Map(items.map((item) => [keyText(item), item]));
  }

  private async write(content: ProfileContent, current: StoredProfile | undefined, mayRetry: boolean): Promise<SaveOutcome> {
    const contentHash = contentHashOf(content);
    if (current?.contentHash === contentHash) return 'unchanged';

    const indexed = indexedNameOf(content.name);
    const { puts, deletes } = indexChanges(
      current ? indexItemsOf(storedEntryOf(current)) : [],
      indexItemsOf(searchEntryOf(content, indexed)),
    );
    const item = this.profileItem(content, current, indexed, contentHash);
    const guard = current
      ? { ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': current.version } }
      : { ConditionExpression: 'attribute_not_exists(pk)' };
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: this.tableName, Item: item, ...guard } },
            ...puts.map((put) => ({ Put: { TableName: this.tableName, Item: put } })),
            ...deletes.map((key) => ({ Delete: { TableName: this.tableName, Key: key } })),
          ],
        }),
      );
    } catch (error) {
      if (!isLostRace(error)) throw error;
      if (!mayRetry) throw new ConcurrentProfileUpdateError(content.jurisdiction, content.companyNumber);
      return this.write(content, await this.read(content.jurisdiction, content.companyNumber, true), false);
    }
    await this.updateVocabulary([wordChange(content.jurisdiction, current?.words ?? [], indexed.words)]);
    return current ? 'updated' : 'created';
  }

  /** The vocabulary's candidate words under each key (a word or one of its deletions), in one batched read. */
  async variantWords(jurisdiction: Jurisdiction, variants: readonly string[]): Promise<Map<string, readonly string[]>> {
    const items = await batchGet<{ pk: string; words?: Set<string> }>(
      this.doc,
      this.tableName,
      [...new Set(variants)].map((variant) => variantKey(jurisdiction, variant)),
    );
    const prefix = `D#${jurisdiction}#`;
    return new Map(items.map((item) => [item.pk.slice(prefix.length), [...(item.words ?? [])]]));
  }

  /**
   * Adds the words a save brought to the vocabulary and takes out those a rename dropped that no
   * company has any more (the word index says). Words this store already added are not written
   * again, so an import writes each word's variant keys once. After the profiles are saved, so a
   * failure here costs a correction, never a profile: it is logged; a stale word only ever costs an
   * empty read.
   */
  private async updateVocabulary(changes: readonly WordChange[]): Promise<void> {
    if (!this.keepVocabulary) return;
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

/** Words an import remembers having added, at most; past it the memory starts again (a word is then only written twice). */
const MAX_KNOWN_WORDS = 500_000;
/** Vocabulary updates in flight at once during an import. */
const VOCABULARY_WRITES_IN_FLIGHT = 8;

/** The profile's version guard failed, or another transaction held one of the items. */
function isLostRace(error: unknown): boolean {
  if (!(error instanceof TransactionCanceledException)) return false;
  return (error.CancellationReasons ?? []).some(
    (reason) => reason.Code === 'ConditionalCheckFailed' || reason.Code === 'TransactionConflict',
  );
}
