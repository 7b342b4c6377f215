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

  async recordWatch(
    clientId: string,
    jurisdiction: Jurisdiction,
    companyNumber: string,
    at: string,
  ): Promise<{ created: boolean; previousFetchedAt?: string }> {
    const result = await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: watchKey(clientId, jurisdiction, companyNumber),
        UpdateExpression: 'SET lastFetchedAt = :at, createdAt = if_not_exists(createdAt, :at)',
        ExpressionAttributeValues: { ':at': at },
        ReturnValues: 'UPDATED_OLD',
      }),
    );
    const previous = result.Attributes?.lastFetchedAt;
    return typeof previous === 'string' ? { created: false, previousFetchedAt: previous } : { created: true };
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
