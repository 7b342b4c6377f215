import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Jurisdiction } from '../companies/profile';
import { JURISDICTIONS } from '../companies/profile';
import { decodeCursor, encodeCursor } from '../paging/cursor';
import { WATCHES_BY_CLIENT_INDEX } from '../storage/tables';
import {
  InvalidWatchCursorError,
  type ListWatchesOptions,
  type Watch,
  type WatcherLookup,
  type WatcherPage,
  type WatchPage,
  type WatchStore,
} from './watch-store';

const CURSOR_VERSION = 1;

/** How stale lastFetchedAt may grow: a fetch within the hour of the last recorded one writes nothing. */
export const FETCH_RESOLUTION_MS = 60 * 60 * 1000;
/**
 * Longer than any profile fetch runs (its function times out after 10 seconds): a watch this new may
 * still be undone by the fetch that created it, so every fetch meanwhile stamps it as its own.
 */
export const NEW_WATCH_MS = 60 * 1000;

const watchKey = (clientId: string, jurisdiction: Jurisdiction, companyNumber: string) => ({
  pk: `${jurisdiction}#${companyNumber}`,
  sk: clientId,
});

interface WatchItem {
  readonly pk: string;
  readonly sk: string;
  readonly createdAt: string;
  readonly lastFetchedAt: string;
}

function watchOf(item: WatchItem): Watch {
  const separator = item.pk.indexOf('#');
  return {
    jurisdiction: item.pk.slice(0, separator) as Jurisdiction,
    companyNumber: item.pk.slice(separator + 1),
    watchedSince: item.createdAt,
    lastFetchedAt: item.lastFetchedAt,
  };
}

/** Company numbers in canonical form, GB and IE alike: at most 8 capitals and digits. */
const CANONICAL_NUMBER = /^[A-Z0-9]{1,8}$/;

/** The cursor carries only the company key: the client half of the position comes from the caller's identity. */
function cursorOf(pk: string): string {
  return encodeCursor({ v: CURSOR_VERSION, pk });
}

function companyKeyOf(cursor: string): string {
  const position = decodeCursor(cursor, () => new InvalidWatchCursorError());
  const { v, pk } = position;
  if (v !== CURSOR_VERSION || typeof pk !== 'string') throw new InvalidWatchCursorError();
  const [jurisdiction, companyNumber, ...rest] = pk.split('#');
  // Only a company key as the store writes it: anything else could be a key DynamoDB refuses.
  if (!JURISDICTIONS.includes(jurisdiction as Jurisdiction) || !companyNumber || !CANONICAL_NUMBER.test(companyNumber) || rest.length > 0) {
    throw new InvalidWatchCursorError();
  }
  return pk;
}

export class DynamoWatchStore implements WatchStore, WatcherLookup {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * One conditional write: lastFetchedAt moves only when the stored one is FETCH_RESOLUTION_MS old, so
   * a client fetching a company all day writes it (and its byClient index copy) once an hour. A watch
   * created within NEW_WATCH_MS is always touched, so the fetch that created it, should it undo the
   * watch, cannot take away one that a concurrent fetch has just answered for.
   */
  async recordWatch(
    clientId: string,
    jurisdiction: Jurisdiction,
    companyNumber: string,
    at: string,
  ): Promise<{ created: boolean; previousFetchedAt?: string }> {
    const now = Date.parse(at);
    try {
      const result = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: watchKey(clientId, jurisdiction, companyNumber),
          UpdateExpression: 'SET lastFetchedAt = :at, createdAt = if_not_exists(createdAt, :at)',
          ConditionExpression: 'attribute_not_exists(lastFetchedAt) OR lastFetchedAt <= :staleAt OR createdAt >= :newSince',
          ExpressionAttributeValues: {
            ':at': at,
            ':staleAt': new Date(now - FETCH_RESOLUTION_MS).toISOString(),
            ':newSince': new Date(now - NEW_WATCH_MS).toISOString(),
          },
          ReturnValues: 'UPDATED_OLD',
        }),
      );
      const previous = result.Attributes?.lastFetchedAt;
      return typeof previous === 'string' ? { created: false, previousFetchedAt: previous } : { created: true };
    } catch (error) {
      // The watch exists and was fetched within the hour: nothing to write, nothing to undo.
      if (error instanceof ConditionalCheckFailedException) return { created: false };
      throw error;
    }
  }

  async restoreFetchedAt(clientId: string, jurisdiction: Jurisdiction, companyNumber: string, at: string, previous: string): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: watchKey(clientId, jurisdiction, companyNumber),
          UpdateExpression: 'SET lastFetchedAt = :previous',
          ConditionExpression: 'lastFetchedAt = :at',
          ExpressionAttributeValues: { ':at': at, ':previous': previous },
        }),
      );
    } catch (error) {
      // A later fetch moved it meanwhile: that one stands.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async forgetNewWatch(clientId: string, jurisdiction: Jurisdiction, companyNumber: string, at: string): Promise<void> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: watchKey(clientId, jurisdiction, companyNumber),
          ConditionExpression: 'createdAt = :at AND lastFetchedAt = :at',
          ExpressionAttributeValues: { ':at': at },
        }),
      );
    } catch (error) {
      // Another fetch created or touched the watch meanwhile: it is theirs to keep.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async isWatching(clientId: string, jurisdiction: Jurisdiction, companyNumber: string): Promise<boolean> {
    const result = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: watchKey(clientId, jurisdiction, companyNumber), ProjectionExpression: 'pk' }),
    );
    return result.Item !== undefined;
  }

  /** Removes the watch whatever its history: the client is leaving. */
  async removeWatch(clientId: string, jurisdiction: Jurisdiction, companyNumber: string): Promise<void> {
    await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: watchKey(clientId, jurisdiction, companyNumber) }));
  }

  async listWatches(clientId: string, options: ListWatchesOptions): Promise<WatchPage> {
    const startAfter = options.cursor === undefined ? undefined : companyKeyOf(options.cursor);
    const result = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: WATCHES_BY_CLIENT_INDEX,
        KeyConditionExpression: 'sk = :client',
        ExpressionAttributeValues: { ':client': clientId },
        Limit: options.limit,
        ...(startAfter === undefined ? {} : { ExclusiveStartKey: { sk: clientId, pk: startAfter } }),
      }),
    );
    const items = ((result.Items ?? []) as WatchItem[]).map(watchOf);
    const last = result.LastEvaluatedKey?.pk;
    return typeof last === 'string' ? { items, nextCursor: cursorOf(last) } : { items };
  }

  async watchers(jurisdiction: Jurisdiction, companyNumber: string, options: { after?: string; limit: number }): Promise<WatcherPage> {
    const pk = `${jurisdiction}#${companyNumber}`;
    const result = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ProjectionExpression: 'sk',
        Limit: options.limit,
        ...(options.after === undefined ? {} : { ExclusiveStartKey: { pk, sk: options.after } }),
      }),
    );
    const clientIds = ((result.Items ?? []) as Array<{ sk: string }>).map((item) => item.sk);
    const next = result.LastEvaluatedKey?.sk;
    return typeof next === 'string' ? { clientIds, next } : { clientIds };
  }
}
