import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { batchGet } from '../storage/batch';
import { createNewProfiles } from './bulk-creation';
import {
  type CompanyStore,
  ConcurrentProfileUpdateError,
  contentHashOf,
  type FactsAsOf,
  indexedNamesOf,
  isDraft,
  isStoredDraft,
  type KeyRange,
  type NameIndex,
  type PartitionPage,
  type ProfileInput,
  type SaveManyOptions,
  type SaveOutcome,
} from './company-store';
import { DynamoNameIndex } from './dynamo-name-index';
import { DynamoProfileReader } from './dynamo-profile-reader';
import type { Jurisdiction, ProfileContent } from './profile';
import { indexedEntryOf, newCompanyItems, type ProfileBookkeeping, replaceProfile } from './profile-transaction';
import { withRiskHistory } from './risk-history';
import { everyIndexedWord, type SearchEntry } from './search-index';
import { keyOf, keyText, profileOf, type StoredProfile } from './stored-profile';
import { VocabularyUpkeep, wordChange } from './vocabulary-upkeep';

/**
 * Company profiles in the companies table as imports and demo changes write them: saved one by one
 * behind a version guard that keeps a profile's index items consistent with it, or in bulk; the
 * spelling vocabulary follows every save. Reads as the API serves them, and search's reads of the
 * name index, come with it.
 */
export class DynamoCompanyStore extends DynamoProfileReader implements CompanyStore, NameIndex {
  private readonly index: DynamoNameIndex;
  private readonly vocabulary?: VocabularyUpkeep;

  constructor(
    doc: DynamoDBDocumentClient,
    tableName: string,
    private readonly clock: () => Date = () => new Date(),
    /** False for a first load that writes the vocabulary in bulk afterwards (dynamo-vocabulary.ts). */
    keepVocabulary = true,
  ) {
    super(doc, tableName);
    this.index = new DynamoNameIndex(doc, tableName);
    if (keepVocabulary) this.vocabulary = new VocabularyUpkeep(doc, tableName);
  }

  async save(input: ProfileInput): Promise<SaveOutcome> {
    return this.write(input, await this.read(input.jurisdiction, input.companyNumber, true));
  }

  /**
   * Companies not stored yet are written with BatchWriteItem, their profile and index items together,
   * 25 items a request; a company that exists goes through its version-guarded transaction, which
   * keeps its index items consistent with the profile it replaces; unchanged content writes nothing.
   */
  async saveMany(inputs: readonly ProfileInput[], options: SaveManyOptions = {}): Promise<PromiseSettledResult<SaveOutcome>[]> {
    const current = await this.readMany(inputs);
    const results: PromiseSettledResult<SaveOutcome>[] = new Array(inputs.length);
    const fresh: number[] = [];
    const rest: number[] = [];
    const seen = new Set<string>();
    for (const [index, content] of inputs.entries()) {
      const key = keyText(content);
      if (!current.has(key) && !seen.has(key)) fresh.push(index);
      else rest.push(index);
      seen.add(key);
    }
    const freshInputs = fresh.map((index) => inputs[index] as ProfileInput);
    const freshContents = freshInputs.map((input) => withRiskHistory(isDraft(input) ? input.derive(undefined) : input, undefined, ''));
    const created = await createNewProfiles(
      {
        doc: this.doc,
        tableName: this.tableName,
        itemsOf: (content, position) => newCompanyItems(content, this.bookkeepingOf(content, snapshotOf(freshInputs[position]))),
        writeAlone: (content, position) => this.write(freshInputs[position] ?? content, undefined),
      },
      freshContents,
      (position, result) => {
        results[fresh[position] as number] = result;
      },
    );
    await this.settleCreationRaces(created, freshInputs, freshContents, (position, result) => {
      results[fresh[position] as number] = result;
    });
    await this.vocabulary?.update(
      created.map((position) => {
        const content = freshContents[position] as ProfileContent;
        return wordChange(content.jurisdiction, [], everyIndexedWord(indexedNamesOf(content)));
      }),
    );
    // The same company twice in one call: a later copy waits for the earlier write, then re-reads.
    const inFlight = new Map<string, Promise<SaveOutcome>>();
    const limit = pLimit(options.concurrency ?? 16);
    const settled = await Promise.allSettled(
      rest.map((index) =>
        limit(() => {
          const content = inputs[index] as ProfileInput;
          const key = keyText(content);
          const earlier = inFlight.get(key);
          const saved = earlier
            ? earlier.then(
                () => this.save(content),
                () => this.save(content),
              )
            : current.has(key)
              ? this.write(content, current.get(key))
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
   * BatchWriteItem cannot be conditional: another writer creating the same company at once (a
   * second import) may have written over these items, or these over its. One consistent read of
   * what was created finds each company whose stored content is not what was written, and saves it
   * again behind the version guard, over what is there: the as-of rule keeps the newer facts of the
   * two, and neither writer's are lost. The other writer does the same, so the two converge.
   */
  private async settleCreationRaces(
    created: number[],
    inputs: readonly ProfileInput[],
    contents: readonly ProfileContent[],
    settle: (position: number, result: PromiseSettledResult<SaveOutcome>) => void,
  ): Promise<void> {
    if (created.length === 0) return;
    const stored = await batchGet<{ pk: string; contentHash?: string }>(
      this.doc,
      this.tableName,
      created.map((position) => keyOf(contents[position] as ProfileContent)),
      'pk, contentHash',
    );
    const hashes = new Map(stored.map((item) => [item.pk, item.contentHash]));
    const lost = created.filter((position) => {
      const content = contents[position] as ProfileContent;
      return hashes.get(keyText(content)) !== contentHashOf(content);
    });
    await Promise.all(
      lost.map(async (position) => {
        try {
          settle(position, { status: 'fulfilled', value: await this.save(inputs[position] as ProfileInput) });
        } catch (reason) {
          settle(position, { status: 'rejected', reason });
        }
      }),
    );
    for (const position of lost) created.splice(created.indexOf(position), 1);
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

  private bookkeepingOf(
    content: ProfileContent,
    registerSnapshot: string | undefined,
    contentHash = contentHashOf(content),
    updatedAt = this.clock().toISOString(),
  ): ProfileBookkeeping {
    return {
      indexed: indexedNamesOf(content),
      contentHash,
      updatedAt,
      ...(registerSnapshot ? { registerSnapshot } : {}),
    };
  }

  /** The stored profiles of a batch, by key, so unchanged content costs one batched read and no write. */
  private async readMany(keys: readonly ProfileInput[]): Promise<Map<string, StoredProfile>> {
    const unique = [...new Map(keys.map((key) => [keyText(key), keyOf(key)])).values()];
    const items = await batchGet<StoredProfile>(this.doc, this.tableName, unique);
    return new Map(items.map((item) => [keyText(item), item]));
  }

  /**
   * Derives and writes behind the version read; a write lost to another writer (a stream consumer,
   * another import) reads again and derives afresh over what that writer stored, a few times.
   */
  private async write(input: ProfileInput, current: StoredProfile | undefined, attemptsLeft = WRITE_ATTEMPTS): Promise<SaveOutcome> {
    let factsAsOf: FactsAsOf | undefined;
    let content: ProfileContent;
    let registerSnapshot = snapshotOf(input);
    if (isStoredDraft(input)) {
      const derived = input.deriveStored(current);
      content = derived.content;
      factsAsOf = derived.factsAsOf;
      registerSnapshot ??= derived.registerSnapshot;
    } else {
      content = isDraft(input) ? input.derive(current ? profileOf(current) : undefined) : input;
      // A profile replaced whole keeps the dates of the facts it does not restate: none of a demo or document profile's.
      factsAsOf = undefined;
    }
    const writtenAt = this.clock().toISOString();
    content = withRiskHistory(content, current, writtenAt);
    const contentHash = contentHashOf(content);
    if (current?.contentHash === contentHash) {
      if (registerSnapshot && current.registerSnapshot !== registerSnapshot) await this.recordSnapshot(current, registerSnapshot);
      return 'unchanged';
    }

    const bookkeeping = { ...this.bookkeepingOf(content, registerSnapshot, contentHash, writtenAt), ...(factsAsOf ? { factsAsOf } : {}) };
    if (!(await replaceProfile(this.doc, this.tableName, content, current, bookkeeping))) {
      if (attemptsLeft <= 1) throw new ConcurrentProfileUpdateError(content.jurisdiction, content.companyNumber);
      return this.write(input, await this.read(content.jurisdiction, content.companyNumber, true), attemptsLeft - 1);
    }
    await this.vocabulary?.update([
      wordChange(content.jurisdiction, current ? everyIndexedWord(indexedEntryOf(current)) : [], everyIndexedWord(bookkeeping.indexed)),
    ]);
    return current ? 'updated' : 'created';
  }

  /**
   * An unchanged company seen in a newer snapshot: only the bookkeeping moves, so no version, no
   * stream event the detector acts on, no webhook. An older snapshot never overwrites a newer one.
   */
  private async recordSnapshot(current: StoredProfile, registerSnapshot: string): Promise<void> {
    await this.doc
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(current),
          UpdateExpression: 'SET registerSnapshot = :snapshot',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(registerSnapshot) OR registerSnapshot < :snapshot)',
          ExpressionAttributeValues: { ':snapshot': registerSnapshot },
        }),
      )
      .catch((error: unknown) => {
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      });
  }
}

/** Writes of one company tried before giving up on it: the stream's consumers write the same companies as imports. */
const WRITE_ATTEMPTS = 5;

const snapshotOf = (input: ProfileInput | undefined) => (input && isDraft(input) ? input.registerSnapshot : undefined);
