import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { batchGet } from '../storage/batch';
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
import { createNewProfiles } from './dynamo-bulk-create';
import { DynamoNameIndex } from './dynamo-name-index';
import type { CompanyProfile, Jurisdiction, ProfileContent } from './profile';
import { type IndexedName, indexChanges, indexItemsOf, profileKey, type SearchEntry, searchEntryOf } from './search-index';
import { keyOf, keyText, profileOf, readStoredProfile, readStoredProfiles, type StoredProfile, storedEntryOf } from './stored-profile';
import { wordChange } from './vocabulary';
import { VocabularyUpkeep } from './vocabulary-upkeep';

/**
 * Company profiles in the companies table: read, saved one by one behind a version guard that keeps
 * a profile's index items consistent with it, and saved in bulk. Search reads go to the name index;
 * the spelling vocabulary follows every save.
 */
export class DynamoCompanyStore implements CompanyStore, NameIndex {
  private readonly index: DynamoNameIndex;
  private readonly vocabulary?: VocabularyUpkeep;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: () => Date = () => new Date(),
    /** False for a first load that writes the vocabulary in bulk afterwards (infra/operations/companies/dynamo-vocabulary.ts). */
    keepVocabulary = true,
  ) {
    this.index = new DynamoNameIndex(doc, tableName);
    if (keepVocabulary) this.vocabulary = new VocabularyUpkeep(doc, tableName);
  }

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
    const current = await readStoredProfiles(this.doc, this.tableName, contents);
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
    const freshContents = fresh.map((index) => contents[index] as ProfileContent);
    const created = await createNewProfiles(
      {
        doc: this.doc,
        tableName: this.tableName,
        itemsOf: (content) => {
          const indexed = indexedNameOf(content.name);
          return [this.profileItem(content, undefined, indexed, contentHashOf(content)), ...indexItemsOf(searchEntryOf(content, indexed))];
        },
        writeAlone: (content) => this.write(content, undefined, true),
      },
      freshContents,
      (position, result) => {
        results[fresh[position] as number] = result;
      },
    );
    await this.vocabulary?.update(
      created.map((position) => {
        const content = freshContents[position] as ProfileContent;
        return wordChange(content.jurisdiction, [], indexedNameOf(content.name).words);
      }),
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

  queryPartition(pk: string, range: KeyRange, limit: number): Promise<PartitionPage> {
    return this.index.queryPartition(pk, range, limit);
  }

  entryByNumber(jurisdiction: Jurisdiction, companyNumber: string): Promise<SearchEntry | undefined> {
    return this.index.entryByNumber(jurisdiction, companyNumber);
  }

  variantWords(jurisdiction: Jurisdiction, variants: readonly string[]): Promise<Map<string, readonly string[]>> {
    return this.index.variantWords(jurisdiction, variants);
  }

  private read(jurisdiction: Jurisdiction, companyNumber: string, consistent: boolean): Promise<StoredProfile | undefined> {
    return readStoredProfile(this.doc, this.tableName, jurisdiction, companyNumber, consistent);
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
    await this.vocabulary?.update([wordChange(content.jurisdiction, current?.words ?? [], indexed.words)]);
    return current ? 'updated' : 'created';
  }
}

/** The profile's version guard failed, or another transaction held one of the items. */
function isLostRace(error: unknown): boolean {
  if (!(error instanceof TransactionCanceledException)) return false;
  return (error.CancellationReasons ?? []).some(
    (reason) => reason.Code === 'ConditionalCheckFailed' || reason.Code === 'TransactionConflict',
  );
}
