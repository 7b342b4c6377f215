import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ProfileContent } from './profile';
import { type IndexedFormerName, type IndexedNames, indexChanges, indexItemsOf, type SearchEntry, searchEntryOf } from './search-index';
import { keyOf, type StoredProfile, storedEntryOf } from './stored-profile';

/** What a write knows about the content beyond the content itself. */
export interface ProfileBookkeeping {
  readonly indexed: IndexedNames;
  readonly contentHash: string;
  readonly updatedAt: string;
  /** The register snapshot the content was derived from, when it came from one: what the gone-companies sweep reads. */
  readonly registerSnapshot?: string;
  /** When each group of register facts was true, where the stream stated it after the snapshot (register/facts-as-of.ts). */
  readonly factsAsOf?: Readonly<Record<string, string>>;
}

/** The profile item as written: the content, the next version, and what validators and the index read back. */
export function profileItem(content: ProfileContent, current: StoredProfile | undefined, bookkeeping: ProfileBookkeeping) {
  return {
    ...keyOf(content),
    ...content,
    version: (current?.version ?? 0) + 1,
    updatedAt: bookkeeping.updatedAt,
    contentHash: bookkeeping.contentHash,
    normalizedName: bookkeeping.indexed.normalizedName,
    words: bookkeeping.indexed.words,
    ...(bookkeeping.indexed.formerNames === undefined ? {} : { formerNames: bookkeeping.indexed.formerNames }),
    ...(bookkeeping.registerSnapshot ? { registerSnapshot: bookkeeping.registerSnapshot } : {}),
    ...(bookkeeping.factsAsOf && Object.keys(bookkeeping.factsAsOf).length > 0 ? { factsAsOf: bookkeeping.factsAsOf } : {}),
  };
}

/**
 * What the stored profile was indexed under, former names included, as its item recorded it: the
 * keys to delete come from there, not from today's normalization, so no index item is orphaned.
 */
export function indexedEntryOf(stored: StoredProfile): SearchEntry {
  const { formerNames } = stored as StoredProfile & { readonly formerNames?: readonly IndexedFormerName[] };
  return formerNames === undefined ? storedEntryOf(stored) : { ...storedEntryOf(stored), formerNames };
}

/** Every item of a company not stored yet: its profile at version 1 and its name-index items. */
export const newCompanyItems = (content: ProfileContent, bookkeeping: ProfileBookkeeping): object[] => [
  profileItem(content, undefined, bookkeeping),
  ...indexItemsOf(searchEntryOf(content, bookkeeping.indexed)),
];

/**
 * Replaces the profile read as `current` (or creates it when there was none) in one transaction with
 * the index items that changed, guarded by the version read, so the index never describes a profile
 * that is not stored. False when another writer got there first: the caller reads again.
 */
export async function replaceProfile(
  doc: DynamoDBDocumentClient,
  tableName: string,
  content: ProfileContent,
  current: StoredProfile | undefined,
  bookkeeping: ProfileBookkeeping,
): Promise<boolean> {
  const { puts, deletes } = indexChanges(
    current ? indexItemsOf(indexedEntryOf(current)) : [],
    indexItemsOf(searchEntryOf(content, bookkeeping.indexed)),
  );
  const guard = current
    ? { ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': current.version } }
    : { ConditionExpression: 'attribute_not_exists(pk)' };
  const item = profileItem(content, current, bookkeeping);
  // Most changes leave the name alone: the profile item is then the only item to write, and one
  // conditional put is the same guard at a fraction of a transaction's cost.
  if (puts.length === 0 && deletes.length === 0) {
    try {
      await doc.send(new PutCommand({ TableName: tableName, Item: item, ...guard }));
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }
  try {
    await doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName, Item: item, ...guard } },
          ...puts.map((put) => ({ Put: { TableName: tableName, Item: put } })),
          ...deletes.map((key) => ({ Delete: { TableName: tableName, Key: key } })),
        ],
      }),
    );
    return true;
  } catch (error) {
    if (isLostRace(error)) return false;
    throw error;
  }
}

/** The profile's version guard failed, or another transaction held one of the items. */
function isLostRace(error: unknown): boolean {
  if (!(error instanceof TransactionCanceledException)) return false;
  return (error.CancellationReasons ?? []).some(
    (reason) => reason.Code === 'ConditionalCheckFailed' || reason.Code === 'TransactionConflict',
  );
}
