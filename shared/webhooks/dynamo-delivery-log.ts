import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { decodeCursor, encodeCursor } from '../paging/cursor';
import { batchGet, batchWrite } from '../storage/batch';
import {
  type AttemptPage,
  DELIVERY_LOG_DAYS,
  type DeliveryAttempt,
  type DeliveryLog,
  type DeliveryRecord,
  InvalidAttemptCursorError,
} from './delivery-log';
import { DELIVERY_ID } from './events';

const partition = (subscriptionId: string) => `WEBHOOK#${subscriptionId}`;
const ATTEMPT_PREFIX = 'ATTEMPT#';
/** Sorts after every ISO instant: the upper bound of the attempt range. */
const ATTEMPT_END = `${ATTEMPT_PREFIX}~`;
const ATTEMPT_SK = /^ATTEMPT#\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#msg_[A-Za-z0-9_-]{27}#\d{1,6}$/;
const DAY_MS = 24 * 3600 * 1000;

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

  async record(delivery: DeliveryRecord, attempt: DeliveryAttempt): Promise<void> {
    const expiresAt = Math.floor(Date.parse(attempt.attemptedAt) / 1000) + DELIVERY_LOG_DAYS * 24 * 3600;
    const pk = partition(delivery.subscriptionId);
    await batchWrite(this.doc, this.tableName, [
      { PutRequest: { Item: { pk, sk: `DELIVERY#${delivery.deliveryId}`, ...delivery, expiresAt } } },
      { PutRequest: { Item: { pk, sk: attemptSk(attempt), ...attempt, expiresAt } } },
    ]);
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
