import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { decodeCursor, encodeCursor } from '../paging/cursor';
import { batchGet, batchWrite, type WriteRequest } from '../storage/batch';
import {
  type AttemptPage,
  DELIVERY_LOG_DAYS,
  type DeadDelivery,
  type DeadDeliveryPage,
  type DeliveryAttempt,
  type DeliveryLog,
  type DeliveryRecord,
  InvalidAttemptCursorError,
  isDead,
  type LogEntry,
  RECOVERY_DAYS,
} from './delivery-log';
import { DELIVERY_ID } from './events';

const partition = (subscriptionId: string) => `WEBHOOK#${subscriptionId}`;
const ATTEMPT_PREFIX = 'ATTEMPT#';
/** Sorts after every ISO instant: the upper bound of the attempt range. */
const ATTEMPT_END = `${ATTEMPT_PREFIX}~`;
const ATTEMPT_SK = /^ATTEMPT#\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#msg_[A-Za-z0-9_-]{27}#\d{1,6}$/;
const DEAD_PREFIX = 'DEAD#';
const DEAD_END = `${DEAD_PREFIX}~`;
const DEAD_SK = /^DEAD#\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#msg_[A-Za-z0-9_-]{27}$/;
const DAY_MS = 24 * 3600 * 1000;
const DAY_SECONDS = 24 * 3600;

const deadSk = (record: Pick<DeliveryRecord, 'lastAttemptAt' | 'deliveryId'>) =>
  `${DEAD_PREFIX}${record.lastAttemptAt}#${record.deliveryId}`;

const attemptSk = (attempt: DeliveryAttempt) =>
  `${ATTEMPT_PREFIX}${attempt.attemptedAt}#${attempt.deliveryId}#${String(attempt.attempt).padStart(6, '0')}`;

function strip<T extends object>(item: T & { pk?: unknown; sk?: unknown; expiresAt?: unknown }): T {
  const { pk: _pk, sk: _sk, expiresAt: _expiresAt, ...rest } = item;
  return rest as T;
}

/** The delivery log in the deliveries table; TTL removes what is older than DELIVERY_LOG_DAYS. */
export class DynamoDeliveryLog implements DeliveryLog {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async read(subscriptionId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
    if (!DELIVERY_ID.test(deliveryId)) return undefined;
    const result = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: partition(subscriptionId), sk: `DELIVERY#${deliveryId}` },
        ConsistentRead: true,
      }),
    );
    return result.Item && strip(result.Item as DeliveryRecord);
  }

  async readMany(
    keys: ReadonlyArray<{ readonly subscriptionId: string; readonly deliveryId: string }>,
  ): Promise<Map<string, DeliveryRecord>> {
    const wanted = [...new Map(keys.filter((key) => DELIVERY_ID.test(key.deliveryId)).map((key) => [key.deliveryId, key])).values()];
    const items = await batchGet<DeliveryRecord>(
      this.doc,
      this.tableName,
      wanted.map((key) => ({ pk: partition(key.subscriptionId), sk: `DELIVERY#${key.deliveryId}` })),
    );
    return new Map(items.map(strip).map((record) => [record.deliveryId, record]));
  }

  /**
   * Each delivery's record and attempt, and for a dead delivery its entry among the dead (kept
   * RECOVERY_DAYS from its last attempt, where recovery finds it by time), in batched writes: a batch
   * of ten deliveries is one request.
   */
  async recordMany(entries: readonly LogEntry[]): Promise<void> {
    const requests = entries.flatMap(({ delivery, attempt, previous }) => {
      const attempted = Math.floor(Date.parse(attempt.attemptedAt) / 1000);
      const expiresAt = attempted + DELIVERY_LOG_DAYS * DAY_SECONDS;
      const pk = partition(delivery.subscriptionId);
      const writes: WriteRequest[] = [
        { PutRequest: { Item: { pk, sk: `DELIVERY#${delivery.deliveryId}`, ...delivery, expiresAt } } },
        { PutRequest: { Item: { pk, sk: attemptSk(attempt), ...attempt, expiresAt } } },
      ];
      if (previous && isDead(previous)) writes.push({ DeleteRequest: { Key: { pk, sk: deadSk(previous) } } });
      if (isDead(delivery)) {
        const dead: DeadDelivery = {
          deliveryId: delivery.deliveryId,
          clientId: delivery.clientId,
          subscriptionId: delivery.subscriptionId,
          envelope: delivery.envelope,
          status: delivery.status as DeadDelivery['status'],
          attempts: delivery.attempts,
          lastAttemptAt: delivery.lastAttemptAt,
        };
        const deadUntil = Math.floor(Date.parse(delivery.lastAttemptAt) / 1000) + RECOVERY_DAYS * DAY_SECONDS;
        writes.push({ PutRequest: { Item: { pk, sk: deadSk(delivery), ...dead, expiresAt: deadUntil } } });
      }
      return writes;
    });
    await batchWrite(this.doc, this.tableName, requests);
  }

  async deadSince(subscriptionId: string, since: Date, options: { limit: number; cursor?: string }): Promise<DeadDeliveryPage> {
    const after = options.cursor === undefined ? undefined : deadSkOf(options.cursor);
    const result = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :since AND :end',
        ExpressionAttributeValues: { ':pk': partition(subscriptionId), ':since': `${DEAD_PREFIX}${since.toISOString()}`, ':end': DEAD_END },
        ConsistentRead: true,
        Limit: options.limit,
        ...(after === undefined ? {} : { ExclusiveStartKey: { pk: partition(subscriptionId), sk: after } }),
      }),
    );
    const items = ((result.Items ?? []) as DeadDelivery[]).map(strip);
    const last = result.LastEvaluatedKey?.sk;
    return typeof last === 'string' ? { items, nextCursor: encodeCursor({ after: last }) } : { items };
  }

  async attempts(subscriptionId: string, options: { limit: number; cursor?: string }): Promise<AttemptPage> {
    const oldest = `${ATTEMPT_PREFIX}${new Date(this.clock().getTime() - DELIVERY_LOG_DAYS * DAY_MS).toISOString()}`;
    const before = options.cursor === undefined ? undefined : skOf(options.cursor);
    const result = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :oldest AND :end',
        ExpressionAttributeValues: { ':pk': partition(subscriptionId), ':oldest': oldest, ':end': ATTEMPT_END },
        ScanIndexForward: false,
        Limit: options.limit,
        ...(before === undefined ? {} : { ExclusiveStartKey: { pk: partition(subscriptionId), sk: before } }),
      }),
    );
    const items = ((result.Items ?? []) as DeliveryAttempt[]).map(strip);
    const last = result.LastEvaluatedKey?.sk;
    return typeof last === 'string' ? { items, nextCursor: encodeCursor({ before: last }) } : { items };
  }
}

function skOf(cursor: string): string {
  const position = decodeCursor(cursor, () => new InvalidAttemptCursorError());
  if (typeof position.before !== 'string' || !ATTEMPT_SK.test(position.before)) throw new InvalidAttemptCursorError();
  return position.before;
}

function deadSkOf(cursor: string): string {
  const position = decodeCursor(cursor, () => new InvalidAttemptCursorError());
  if (typeof position.after !== 'string' || !DEAD_SK.test(position.after)) throw new InvalidAttemptCursorError();
  return position.after;
}
