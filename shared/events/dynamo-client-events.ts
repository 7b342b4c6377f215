import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { decodeCursor, encodeCursor } from '../paging/cursor';
import { batchWrite } from '../storage/batch';
import {
  type ClientEvent,
  type ClientEventStore,
  clientEventOf,
  EVENT_DAYS,
  type EventPage,
  type EventQuery,
  InvalidEventCursorError,
} from './client-events';
import type { WebhookEnvelope } from './envelope';

const partition = (clientId: string) => `CLIENT#${clientId}`;
const PREFIX = 'EVENT#';
/** Sorts after every ISO instant: the upper bound when no `until` is given. */
const END = `${PREFIX}~`;
const EVENT_SK = /^EVENT#\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#evt_[A-Za-z0-9_-]{27}$/;
/** Items read for one page before answering with what matched: a filter that matches little still answers quickly. */
const READ_BUDGET = 1000;

const sortKey = (event: ClientEvent) => `${PREFIX}${event.occurredAt}#${event.id}`;

/** Clients' events in the events table, newest first by key; TTL removes them after EVENT_DAYS. */
export class DynamoClientEventStore implements ClientEventStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async recordFor(clientIds: readonly string[], envelope: WebhookEnvelope): Promise<void> {
    const event = clientEventOf(envelope);
    const expiresAt = Math.floor(Date.parse(event.occurredAt) / 1000) + EVENT_DAYS * 24 * 3600;
    await batchWrite(
      this.doc,
      this.tableName,
      [...new Set(clientIds)].map((clientId) => ({
        PutRequest: {
          Item: {
            pk: partition(clientId),
            sk: sortKey(event),
            ...event,
            jurisdiction: event.data.jurisdiction,
            companyNumber: event.data.companyNumber,
            expiresAt,
          },
        },
      })),
    );
  }

  async list(clientId: string, query: EventQuery): Promise<EventPage> {
    const lowest = `${PREFIX}${query.since.toISOString()}`;
    const highest = query.until ? `${PREFIX}${query.until.toISOString()}~` : END;
    const before = query.cursor === undefined ? undefined : skOf(query.cursor);
    // A cursor is only a position: one older than since has nothing left in the window (its since moves on with
    // the clock), and one newer than until has all of it left. DynamoDB refuses a start key outside the range.
    if (before !== undefined && before < lowest) return { items: [] };
    let startKey = before !== undefined && before <= highest ? { pk: partition(clientId), sk: before } : undefined;
    const filters: string[] = [];
    const values: Record<string, unknown> = { ':pk': partition(clientId), ':since': lowest, ':until': highest };
    const names: Record<string, string> = {};
    for (const [field, value] of [
      ['type', query.type],
      ['block', query.block],
      ['jurisdiction', query.jurisdiction],
      ['companyNumber', query.companyNumber],
    ] as const) {
      if (value === undefined) continue;
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      filters.push(`#${field} = :${field}`);
    }
    const filtered = filters.length > 0;
    const items: ClientEvent[] = [];
    let read = 0;
    do {
      const result = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :since AND :until',
          ...(filtered ? { FilterExpression: filters.join(' AND '), ExpressionAttributeNames: names } : {}),
          ExpressionAttributeValues: values,
          ScanIndexForward: false,
          // A filter's Limit counts the items read, not those kept: a filtered page reads its whole budget in one request.
          Limit: filtered ? READ_BUDGET - read : query.limit - items.length,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      read += result.ScannedCount ?? 0;
      items.push(...((result.Items ?? []) as Array<Record<string, unknown>>).map(eventOf));
      startKey = result.LastEvaluatedKey as typeof startKey;
    } while (startKey && items.length < query.limit && read < READ_BUDGET);
    if (items.length > query.limit) {
      // More matched than the page holds: it ends at its last item, and the next page begins after it.
      const page = items.slice(0, query.limit);
      return { items: page, nextCursor: encodeCursor({ before: sortKey(page.at(-1) as ClientEvent) }) };
    }
    // A page cut short by the read budget still says where to go on, so nothing is skipped.
    return startKey ? { items, nextCursor: encodeCursor({ before: startKey.sk }) } : { items };
  }
}

function eventOf(item: Record<string, unknown>): ClientEvent {
  const { id, type, apiVersion, occurredAt, idempotencyKey, block, data } = item as unknown as ClientEvent;
  return { id, type, apiVersion, occurredAt, idempotencyKey, block, data };
}

function skOf(cursor: string): string {
  const position = decodeCursor(cursor, () => new InvalidEventCursorError());
  if (typeof position.before !== 'string' || !EVENT_SK.test(position.before)) throw new InvalidEventCursorError();
  return position.before;
}
