import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { decodeCursor, encodeCursor } from '../paging/cursor';
import { batchGet, batchWrite, type WriteRequest } from '../storage/batch';
import { withCompany } from './attempt-company';
import {
  ATTEMPT_READ_BUDGET,
  type AttemptFilter,
  type AttemptPage,
  type AttemptQuery,
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
  type RecoveryLedger,
  type RecoverySlots,
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
/** The subscription's recovery schedule: where the next recovered delivery's slot begins (epoch ms). */
const RECOVERY_PACE_SK = 'RECOVERY_PACE';
const PACE_ATTEMPTS = 5;
/** Claims given back at once, as many as a recovery sends. */
const CLAIM_CONCURRENCY = 50;

const deadSk = (record: Pick<DeliveryRecord, 'lastAttemptAt' | 'deliveryId'>) =>
  `${DEAD_PREFIX}${record.lastAttemptAt}#${record.deliveryId}`;

const attemptSk = (attempt: DeliveryAttempt) =>
  `${ATTEMPT_PREFIX}${attempt.attemptedAt}#${attempt.deliveryId}#${String(attempt.attempt).padStart(6, '0')}`;

function strip<T extends object>(item: T & { pk?: unknown; sk?: unknown; expiresAt?: unknown }): T {
  const { pk: _pk, sk: _sk, expiresAt: _expiresAt, ...rest } = item;
  return rest as T;
}

/** The delivery log in the deliveries table; TTL removes what is older than DELIVERY_LOG_DAYS. */
export class DynamoDeliveryLog implements DeliveryLog, RecoveryLedger {
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
    const lowest = `${DEAD_PREFIX}${since.toISOString()}`;
    const after = options.cursor === undefined ? undefined : deadSkOf(options.cursor, since);
    const result = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :since AND :end',
        FilterExpression: 'attribute_not_exists(recoveryClaim)',
        ExpressionAttributeValues: { ':pk': partition(subscriptionId), ':since': lowest, ':end': DEAD_END },
        ConsistentRead: true,
        Limit: options.limit,
        ...(after === undefined ? {} : { ExclusiveStartKey: { pk: partition(subscriptionId), sk: after } }),
      }),
    );
    const items = ((result.Items ?? []) as Array<DeadDelivery & { recoveryClaim?: unknown }>).map(({ recoveryClaim: _claim, ...dead }) =>
      strip(dead),
    );
    const last = result.LastEvaluatedKey?.sk;
    return typeof last === 'string' ? { items, nextCursor: encodeCursor({ after: last, since: since.toISOString() }) } : { items };
  }

  async claimDead(dead: DeadDelivery, claim: string): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: partition(dead.subscriptionId), sk: deadSk(dead) },
          UpdateExpression: 'SET recoveryClaim = :claim',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(recoveryClaim)',
          ExpressionAttributeValues: { ':claim': claim },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async releaseClaims(dead: readonly DeadDelivery[], claim: string): Promise<void> {
    const limit = pLimit(CLAIM_CONCURRENCY);
    await Promise.allSettled(
      dead.map((entry) =>
        limit(() =>
          this.doc.send(
            new UpdateCommand({
              TableName: this.tableName,
              Key: { pk: partition(entry.subscriptionId), sk: deadSk(entry) },
              UpdateExpression: 'REMOVE recoveryClaim',
              ConditionExpression: 'recoveryClaim = :claim',
              ExpressionAttributeValues: { ':claim': claim },
            }),
          ),
        ),
      ),
    );
  }

  /**
   * The schedule is one number, where the next free slot begins: a reservation either starts it
   * afresh from now (it lies in the past) or moves it on by its span (it lies ahead), each a
   * conditional write, so reservations made at once never share a slot.
   */
  async reserveRecoverySlots(
    subscriptionId: string,
    count: number,
    options: { readonly now: Date; readonly intervalMs: number; readonly maxAheadMs?: number },
  ): Promise<RecoverySlots> {
    const now = options.now.getTime();
    const span = count * options.intervalMs;
    const key = { pk: partition(subscriptionId), sk: RECOVERY_PACE_SK };
    const latestStart = options.maxAheadMs === undefined ? undefined : now + options.maxAheadMs - span;
    if (latestStart !== undefined && latestStart < now) throw new RangeError(`${count} slots do not fit in the schedule at all`);
    for (let attempt = 0; attempt < PACE_ATTEMPTS; attempt++) {
      const expiresAt = Math.ceil(now / 1000) + DAY_SECONDS;
      try {
        await this.doc.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: key,
            UpdateExpression: 'SET nextSlotAt = :end, expiresAt = :expiresAt',
            ConditionExpression: 'attribute_not_exists(nextSlotAt) OR nextSlotAt <= :now',
            ExpressionAttributeValues: { ':end': now + span, ':now': now, ':expiresAt': expiresAt },
          }),
        );
        return { kind: 'reserved', firstAt: new Date(now) };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
      try {
        const result = await this.doc.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: key,
            UpdateExpression: 'SET nextSlotAt = nextSlotAt + :span, expiresAt = :expiresAt',
            ConditionExpression: `nextSlotAt > :now${latestStart === undefined ? '' : ' AND nextSlotAt <= :latest'}`,
            ExpressionAttributeValues: {
              ':span': span,
              ':now': now,
              ':expiresAt': expiresAt + Math.ceil(span / 1000),
              ...(latestStart === undefined ? {} : { ':latest': latestStart }),
            },
            ReturnValues: 'UPDATED_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { kind: 'reserved', firstAt: new Date(Number(result.Attributes?.nextSlotAt) - span) };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        const next = Number(error.Item?.nextSlotAt?.N ?? Number.NaN);
        // Behind now again (the schedule ran out meanwhile): start it afresh on the next turn.
        if (latestStart !== undefined && next > latestStart) return { kind: 'full', roomAt: new Date(next - latestStart + now) };
      }
    }
    throw new Error(`The recovery schedule of ${subscriptionId} kept changing; try again`);
  }

  async attempts(subscriptionId: string, query: AttemptQuery): Promise<AttemptPage> {
    const pk = partition(subscriptionId);
    const oldest = `${ATTEMPT_PREFIX}${new Date(this.clock().getTime() - DELIVERY_LOG_DAYS * DAY_MS).toISOString()}`;
    const before = query.cursor === undefined ? undefined : skOf(query.cursor, oldest);
    const filter = attemptFilterExpression(query);
    const items: DeliveryAttempt[] = [];
    let startKey = before === undefined ? undefined : { pk, sk: before };
    let read = 0;
    do {
      const result = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :oldest AND :end',
          ExpressionAttributeValues: { ':pk': pk, ':oldest': oldest, ':end': ATTEMPT_END, ...filter?.values },
          ...(filter ? { FilterExpression: filter.expression, ExpressionAttributeNames: filter.names } : {}),
          ScanIndexForward: false,
          // A filter's Limit counts the items read, not those kept: a filtered page reads its whole budget in one request.
          Limit: filter ? ATTEMPT_READ_BUDGET - read : query.limit - items.length,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      read += result.ScannedCount ?? 0;
      items.push(...((result.Items ?? []) as DeliveryAttempt[]).map(strip).map(withCompany));
      startKey = result.LastEvaluatedKey as typeof startKey;
    } while (startKey && items.length < query.limit && read < ATTEMPT_READ_BUDGET);
    if (items.length > query.limit) {
      // More matched than the page holds: it ends at its last item, and the next page begins after it.
      const page = items.slice(0, query.limit);
      return { items: page, nextCursor: encodeCursor({ before: attemptSk(page.at(-1) as DeliveryAttempt) }) };
    }
    // A page cut short by the read budget still says where to go on, so nothing is skipped.
    return startKey ? { items, nextCursor: encodeCursor({ before: startKey.sk }) } : { items };
  }
}

/**
 * The filter as a FilterExpression. An attempt logged before its company was kept is matched by its
 * idempotencyKey, which names the company as `:GB:12345678:` (attempt-company.ts).
 */
function attemptFilterExpression(
  filter: AttemptFilter,
): { expression: string; names: Record<string, string>; values: Record<string, unknown> } | undefined {
  const clauses: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (filter.outcome !== undefined) {
    names['#outcome'] = 'outcome';
    values[':outcome'] = filter.outcome;
    clauses.push('#outcome = :outcome');
  }
  if (filter.jurisdiction !== undefined || filter.companyNumber !== undefined) {
    names['#jurisdiction'] = 'jurisdiction';
    names['#companyNumber'] = 'companyNumber';
    names['#key'] = 'idempotencyKey';
    const kept: string[] = [];
    if (filter.jurisdiction !== undefined) {
      values[':jurisdiction'] = filter.jurisdiction;
      kept.push('#jurisdiction = :jurisdiction');
    }
    if (filter.companyNumber !== undefined) {
      values[':companyNumber'] = filter.companyNumber;
      kept.push('#companyNumber = :companyNumber');
    }
    values[':keyPart'] = `:${[filter.jurisdiction, filter.companyNumber].filter((part) => part !== undefined).join(':')}:`;
    clauses.push(`((${kept.join(' AND ')}) OR (attribute_not_exists(#companyNumber) AND contains(#key, :keyPart)))`);
  }
  return clauses.length === 0 ? undefined : { expression: clauses.join(' AND '), names, values };
}

function skOf(cursor: string, oldest: string): string {
  const position = decodeCursor(cursor, () => new InvalidAttemptCursorError());
  if (typeof position.before !== 'string' || !ATTEMPT_SK.test(position.before)) throw new InvalidAttemptCursorError();
  if (position.before < oldest) {
    throw new InvalidAttemptCursorError(
      `The cursor points before the ${DELIVERY_LOG_DAYS} days the log keeps; list again from the first page, without it`,
    );
  }
  return position.before;
}

/** A recovery's cursor holds the since it was given for, and a position at or after it: DynamoDB refuses any other start. */
function deadSkOf(cursor: string, since: Date): string {
  const position = decodeCursor(cursor, () => new InvalidAttemptCursorError());
  if (typeof position.after !== 'string' || !DEAD_SK.test(position.after)) throw new InvalidAttemptCursorError();
  if (position.since !== since.toISOString() || position.after < `${DEAD_PREFIX}${since.toISOString()}`) {
    throw new InvalidAttemptCursorError('The cursor is not one a recovery from this since returned');
  }
  return position.after;
}
