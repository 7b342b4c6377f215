import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import type { StreamName } from './stream-events';

/** The last timepoint whose events were all applied; the next connection asks for timepoint + 1. */
export interface StreamCheckpoint {
  readonly timepoint: number;
  /** published_at of the event at that timepoint, as the register wrote it. */
  readonly publishedAt: string;
  readonly updatedAt: string;
}

export interface StreamLease {
  readonly owner: string;
  /** Epoch milliseconds; past it, any consumer may take the stream over. */
  readonly expiresAt: number;
}

/** A place where the register refused to resume (HTTP 416): events from `from` on were never read. */
export interface StreamGap {
  readonly from: number;
  /** When the refusal came (ISO). */
  readonly at: string;
  /** The first timepoint read after it, once known. */
  readonly resumedAt?: number;
}

/** The lease is held by another consumer, or expired and was taken: this one must stop applying. */
export class LeaseLostError extends Error {
  constructor(
    readonly stream: StreamName,
    readonly owner: string,
  ) {
    super(`The lease on the ${stream} stream is no longer held by ${owner}`);
    this.name = 'LeaseLostError';
  }
}

export interface AdvanceOptions {
  /**
   * The register refused the checkpoint as invalid (416) and reading went on from what it publishes
   * now, which may be numbered lower than the checkpoint (a register that started its numbering
   * again): the position read since then is written even so.
   */
  readonly afterGap?: boolean;
}

/** Checkpoints, leases and gaps of the register's streams: the consumer's port to its storage. */
export interface StreamCheckpoints {
  read(stream: StreamName): Promise<StreamCheckpoint | undefined>;
  /** True when `owner` now holds the lease until now + ttl (it was free, expired, or already its own). */
  acquire(stream: StreamName, owner: string, ttlMs: number): Promise<boolean>;
  /** Extends a lease `owner` still holds; false when it no longer does. */
  renew(stream: StreamName, owner: string, ttlMs: number): Promise<boolean>;
  /** Hands the stream over: a successor may acquire it at once. A lease already lost is left alone. */
  release(stream: StreamName, owner: string): Promise<void>;
  /**
   * Moves the checkpoint forward, only while `owner` holds an unexpired lease and only forward;
   * throws LeaseLostError otherwise, so a consumer that lost its lease never writes a position.
   */
  advance(stream: StreamName, owner: string, checkpoint: Omit<StreamCheckpoint, 'updatedAt'>, options?: AdvanceOptions): Promise<void>;
  recordGap(stream: StreamName, gap: StreamGap): Promise<void>;
  gaps(stream: StreamName): Promise<StreamGap[]>;
  lease(stream: StreamName): Promise<StreamLease | undefined>;
}

const partition = (stream: StreamName) => `STREAM#${stream}`;
const CHECKPOINT = 'CHECKPOINT';
const LEASE = 'LEASE';
const GAP_PREFIX = 'GAP#';

function conditionFailed(error: unknown): boolean {
  if (error instanceof ConditionalCheckFailedException) return true;
  if (error instanceof TransactionCanceledException) {
    return (error.CancellationReasons ?? []).some((reason) => reason.Code === 'ConditionalCheckFailed');
  }
  return false;
}

/**
 * The register streams table (`registerStreamsTable`). Every lease change is a conditional write, so
 * of two consumers racing for a stream exactly one wins, and the checkpoint moves in the same
 * transaction as a check of the lease: a consumer that paused past its lease's end cannot move the
 * position its successor now owns.
 */
export class DynamoStreamCheckpoints implements StreamCheckpoints {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  async read(stream: StreamName): Promise<StreamCheckpoint | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: partition(stream), sk: CHECKPOINT }, ConsistentRead: true }),
    );
    if (!Item) return undefined;
    return { timepoint: Item.timepoint as number, publishedAt: Item.publishedAt as string, updatedAt: Item.updatedAt as string };
  }

  async lease(stream: StreamName): Promise<StreamLease | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: partition(stream), sk: LEASE }, ConsistentRead: true }),
    );
    return Item ? { owner: Item.owner as string, expiresAt: Item.expiresAt as number } : undefined;
  }

  async acquire(stream: StreamName, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk: partition(stream), sk: LEASE, owner, expiresAt: now + ttlMs, acquiredAt: new Date(now).toISOString() },
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now OR #owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':now': now, ':owner': owner },
        }),
      );
      return true;
    } catch (error) {
      if (conditionFailed(error)) return false;
      throw error;
    }
  }

  async renew(stream: StreamName, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk: partition(stream), sk: LEASE, owner, expiresAt: now + ttlMs, renewedAt: new Date(now).toISOString() },
          // An expired lease nobody took yet is still ours to renew: nothing was applied in between.
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner },
        }),
      );
      return true;
    } catch (error) {
      if (conditionFailed(error)) return false;
      throw error;
    }
  }

  async release(stream: StreamName, owner: string): Promise<void> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { pk: partition(stream), sk: LEASE },
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner },
        }),
      );
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
  }

  async advance(
    stream: StreamName,
    owner: string,
    checkpoint: Omit<StreamCheckpoint, 'updatedAt'>,
    options: AdvanceOptions = {},
  ): Promise<void> {
    const now = this.now();
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.tableName,
                Key: { pk: partition(stream), sk: LEASE },
                ConditionExpression: '#owner = :owner AND expiresAt >= :now',
                ExpressionAttributeNames: { '#owner': 'owner' },
                ExpressionAttributeValues: { ':owner': owner, ':now': now },
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: {
                  pk: partition(stream),
                  sk: CHECKPOINT,
                  timepoint: checkpoint.timepoint,
                  publishedAt: checkpoint.publishedAt,
                  updatedAt: new Date(now).toISOString(),
                  owner,
                },
                // Never backwards: a position once written is never applied again by anyone.
                ...(options.afterGap
                  ? {}
                  : {
                      ConditionExpression: 'attribute_not_exists(pk) OR timepoint <= :timepoint',
                      ExpressionAttributeValues: { ':timepoint': checkpoint.timepoint },
                    }),
              },
            },
          ],
        }),
      );
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const [leaseCheck, checkpointPut] = error.CancellationReasons ?? [];
      if (leaseCheck?.Code === 'ConditionalCheckFailed') throw new LeaseLostError(stream, owner);
      if (checkpointPut?.Code === 'ConditionalCheckFailed') {
        throw new Error(`The ${stream} checkpoint is already past ${checkpoint.timepoint}: refusing to move it back`);
      }
      throw error;
    }
  }

  async recordGap(stream: StreamName, gap: StreamGap): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { pk: partition(stream), sk: `${GAP_PREFIX}${gap.at}#${gap.from}`, ...gap },
      }),
    );
  }

  async gaps(stream: StreamName): Promise<StreamGap[]> {
    const gaps: StreamGap[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :gap)',
          ExpressionAttributeValues: { ':pk': partition(stream), ':gap': GAP_PREFIX },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        gaps.push({
          from: item.from as number,
          at: item.at as string,
          ...(typeof item.resumedAt === 'number' ? { resumedAt: item.resumedAt } : {}),
        });
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return gaps;
  }
}
