import { createHash } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, type DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { nameWords, normalizeName } from './names';
import type { CompanyProfile, Jurisdiction, ProfileContent } from './profile';
import {
  compareKeys,
  type IndexedName,
  type IndexItem,
  indexChanges,
  indexedWords,
  indexItemsOf,
  KEY_MAX,
  profileKey,
  type SearchEntry,
  searchEntryOf,
} from './search-index';

export type SaveOutcome = 'created' | 'updated' | 'unchanged';

export interface SaveManyOptions {
  /** Transactions in flight at once. */
  readonly concurrency?: number;
}

/** A profile with the hash of its content: together with the version, what a validator (ETag) needs. */
export interface ProfileRecord {
  readonly profile: CompanyProfile;
  readonly contentHash: string;
}

/** Company profiles, keyed by jurisdiction and canonical company number. */
export interface CompanyStore {
  get(jurisdiction: Jurisdiction, companyNumber: string): Promise<CompanyProfile | undefined>;
  getRecord(jurisdiction: Jurisdiction, companyNumber: string): Promise<ProfileRecord | undefined>;
  /** Writes the profile and its name-index items atomically; identical content writes nothing. */
  save(content: ProfileContent): Promise<SaveOutcome>;
  /** Saves many profiles with bounded parallelism; one result per input, in input order. */
  saveMany(contents: readonly ProfileContent[], options?: SaveManyOptions): Promise<PromiseSettledResult<SaveOutcome>[]>;
}

/** A key range inside one index partition: sort keys starting with `prefix`, strictly after `after`. */
export interface KeyRange {
  readonly prefix: string;
  readonly after?: string;
}

export interface PartitionPage {
  /** In sort-key order. */
  readonly items: readonly IndexItem[];
  /** True when the partition holds more items in the range than were returned. */
  readonly more: boolean;
}

/** The read side of the name index, as search needs it. */
export interface NameIndex {
  queryPartition(pk: string, range: KeyRange, limit: number): Promise<PartitionPage>;
  /** The search projection of one company, read from its profile. */
  entryByNumber(jurisdiction: Jurisdiction, companyNumber: string): Promise<SearchEntry | undefined>;
}

/** Another writer changed the profile between our read and our write, twice in a row. */
export class ConcurrentProfileUpdateError extends Error {
  constructor(
    readonly jurisdiction: Jurisdiction,
    readonly companyNumber: string,
  ) {
    super(`The profile ${jurisdiction} ${companyNumber} kept changing while it was being saved`);
    this.name = 'ConcurrentProfileUpdateError';
  }
}

/** The profile item as stored: the content plus bookkeeping the API never shows. */
interface StoredProfile extends CompanyProfile {
  readonly contentHash: string;
  readonly normalizedName: string;
  readonly words: readonly string[];
}

/** JSON with object keys sorted at every level, so equal content always hashes equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function contentHashOf(content: ProfileContent): string {
  return createHash('sha256').update(canonicalJson(content)).digest('hex');
}

export function indexedNameOf(name: string): IndexedName {
  const normalizedName = normalizeName(name);
  return { normalizedName, words: indexedWords(nameWords(normalizedName)) };
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

/** BatchGetItem takes at most 100 keys. */
const BATCH_GET_LIMIT = 100;

export class DynamoCompanyStore implements CompanyStore, NameIndex {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async get(jurisdiction: Jurisdiction, companyNumber: string): Promise<CompanyProfile | undefined> {
    const stored = await this.read(jurisdiction, companyNumber, false);
    return stored && profileOf(stored);
  }

  async getRecord(jurisdiction: Jurisdiction, companyNumber: string): Promise<ProfileRecord | undefined> {
    const stored = await this.read(jurisdiction, companyNumber, false);
    return stored && { profile: profileOf(stored), contentHash: stored.contentHash };
  }

  async save(content: ProfileContent): Promise<SaveOutcome> {
    return this.write(content, await this.read(content.jurisdiction, content.companyNumber, true), true);
  }

  async saveMany(contents: readonly ProfileContent[], options: SaveManyOptions = {}): Promise<PromiseSettledResult<SaveOutcome>[]> {
    const current = await this.readMany(contents);
    // The same company twice in one call: a later copy waits for the earlier write, then re-reads.
    const inFlight = new Map<string, Promise<SaveOutcome>>();
    return settleWithConcurrency(contents, options.concurrency ?? 16, (content) => {
      const key = keyText(content);
      const earlier = inFlight.get(key);
      const saved = earlier
        ? earlier.then(
            () => this.save(content),
            () => this.save(content),
          )
        : this.write(content, current.get(key), true);
      inFlight.set(key, saved);
      return saved;
    });
  }

  async queryPartition(pk: string, range: KeyRange, limit: number): Promise<PartitionPage> {
    const condition =
      range.after !== undefined ? ' AND sk BETWEEN :after AND :upper' : range.prefix !== '' ? ' AND begins_with(sk, :prefix)' : '';
    const values: Record<string, string> = { ':pk': pk };
    if (range.after !== undefined) {
      values[':after'] = range.after;
      values[':upper'] = range.prefix + KEY_MAX;
    } else if (range.prefix !== '') {
      values[':prefix'] = range.prefix;
    }
    const result = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: `pk = :pk${condition}`,
        ExpressionAttributeValues: values,
        Limit: limit,
      }),
    );
    const items = (result.Items ?? []) as IndexItem[];
    return {
      // BETWEEN is inclusive: the item the range starts after was already read.
      items: range.after === undefined ? items : items.filter((item) => compareKeys(item.sk, range.after as string) > 0),
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
    const found = new Map<string, StoredProfile>();
    for (let start = 0; start < keys.length; start += BATCH_GET_LIMIT) {
      let pending: Record<string, unknown>[] = keys.slice(start, start + BATCH_GET_LIMIT).map((key) => ({ ...key }));
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
        const result = await this.doc.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } } }),
        );
        for (const item of (result.Responses?.[this.tableName] ?? []) as StoredProfile[]) found.set(keyText(item), item);
        pending = result.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
      }
    }
    return found;
  }

  private async write(content: ProfileContent, current: StoredProfile | undefined, mayRetry: boolean): Promise<SaveOutcome> {
    const contentHash = contentHashOf(content);
    if (current?.contentHash === contentHash) return 'unchanged';

    const indexed = indexedNameOf(content.name);
    const { puts, deletes } = indexChanges(
      current ? indexItemsOf(storedEntryOf(current)) : [],
      indexItemsOf(searchEntryOf(content, indexed)),
    );
    const item = {
      ...keyOf(content),
      ...content,
      version: (current?.version ?? 0) + 1,
      updatedAt: this.clock().toISOString(),
      contentHash,
      normalizedName: indexed.normalizedName,
      words: indexed.words,
    };
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the tasks with at most `concurrency` in flight; one settled result per task, in task order. */
async function settleWithConcurrency<T, R>(
  tasks: readonly T[],
  concurrency: number,
  run: (task: T, index: number) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      try {
        results[index] = { status: 'fulfilled', value: await run(tasks[index] as T, index) };
      } catch (reason) {
        results[index] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, tasks.length)) }, worker));
  return results;
}
