import { gunzipSync, gzipSync } from 'node:zlib';
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type ApplyEvents, STREAM_NAMES, type StreamEvent, type StreamName } from './stream-events';

/**
 * Events a stream could not apply, kept aside so the stream moves on. An event whose apply fails
 * for a reason that would fail again (a write DynamoDB refuses, a fault in the rules) would
 * otherwise hold its stream's checkpoint for ever: it is kept here, in the register streams table
 * beside the stream's checkpoint, counted and logged, listed by `bureau streams set-aside`, and
 * applied again by `--replay` once what refused it is fixed. A transient failure (throttling, the
 * network, a lost race) is never set aside: the consumer applies its batch again.
 */

export interface SetAsideEvent {
  readonly stream: StreamName;
  readonly timepoint: number;
  readonly publishedAt: string;
  readonly resourceUri: string;
  readonly resourceKind: string;
  /** Why its apply failed, as the error said. */
  readonly error: string;
  /** When it was set aside (ISO). */
  readonly setAsideAt: string;
  /** The event itself; absent only where even compressed it would not fit an item, so it cannot be replayed. */
  readonly event?: StreamEvent;
}

export interface SetAsideEvents {
  keep(event: StreamEvent, error: string): Promise<void>;
  /** Every event set aside, of one stream or of all, in timepoint order per stream. */
  list(stream?: StreamName): Promise<SetAsideEvent[]>;
  remove(stream: StreamName, timepoint: number): Promise<void>;
}

const partition = (stream: StreamName) => `STREAM#${stream}`;
const PREFIX = 'SET_ASIDE#';
/** Timepoints padded so the sort key orders them. */
const sortKey = (timepoint: number) => `${PREFIX}${String(timepoint).padStart(16, '0')}`;
/** Room for the event in one item, well inside DynamoDB's 400 KB with the attributes beside it. */
const MAX_STORED_EVENT_BYTES = 300 * 1024;
const MAX_ERROR_LENGTH = 1_000;

export class DynamoSetAsideEvents implements SetAsideEvents {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  async keep(event: StreamEvent, error: string): Promise<void> {
    const packed = gzipSync(JSON.stringify(event));
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: partition(event.stream),
          sk: sortKey(event.timepoint),
          stream: event.stream,
          timepoint: event.timepoint,
          publishedAt: event.publishedAt.slice(0, 64),
          resourceUri: event.resourceUri.slice(0, 500),
          resourceKind: event.resourceKind.slice(0, 100),
          error: error.slice(0, MAX_ERROR_LENGTH),
          setAsideAt: new Date(this.now()).toISOString(),
          ...(packed.byteLength <= MAX_STORED_EVENT_BYTES ? { event: packed } : {}),
        },
      }),
    );
  }

  async list(stream?: StreamName): Promise<SetAsideEvent[]> {
    const found: SetAsideEvent[] = [];
    for (const name of stream ? [stream] : STREAM_NAMES) {
      let start: Record<string, unknown> | undefined;
      do {
        const page = await this.doc.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': partition(name), ':prefix': PREFIX },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        for (const item of page.Items ?? []) found.push(setAsideOf(item));
        start = page.LastEvaluatedKey;
      } while (start);
    }
    return found;
  }

  async remove(stream: StreamName, timepoint: number): Promise<void> {
    await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: { pk: partition(stream), sk: sortKey(timepoint) } }));
  }
}

function setAsideOf(item: Record<string, unknown>): SetAsideEvent {
  const packed = item.event as Uint8Array | undefined;
  return {
    stream: item.stream as StreamName,
    timepoint: item.timepoint as number,
    publishedAt: item.publishedAt as string,
    resourceUri: item.resourceUri as string,
    resourceKind: item.resourceKind as string,
    error: item.error as string,
    setAsideAt: item.setAsideAt as string,
    ...(packed ? { event: JSON.parse(gunzipSync(packed).toString('utf8')) as StreamEvent } : {}),
  };
}

const TRANSIENT_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'Throttling',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TransactionInProgressException',
  'TransactionConflictException',
  'RequestTimeout',
  'RequestTimeoutException',
  'TimeoutError',
  'AbortError',
  'WritesLostError',
  'LeaseLostError',
]);

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Cancellation reasons of a transaction that another try may not meet. */
const TRANSIENT_CANCELLATIONS = new Set(['ThrottlingError', 'TransactionConflict', 'ProvisionedThroughputExceeded']);

/**
 * True for a failure another try may not meet: throttling, a service fault (5xx), the network, a
 * race lost to another writer. Anything else (a ValidationException, a fault in the rules) fails
 * the same way every time.
 */
export function isTransient(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 3) return false;
  const found = error as Error & {
    $retryable?: unknown;
    $metadata?: { httpStatusCode?: number };
    code?: unknown;
    CancellationReasons?: readonly { Code?: string }[];
  };
  if (found.$retryable) return true;
  if (TRANSIENT_NAMES.has(found.name)) return true;
  if (typeof found.code === 'string' && NETWORK_CODES.has(found.code)) return true;
  const status = found.$metadata?.httpStatusCode;
  if (status !== undefined && (status >= 500 || status === 429)) return true;
  if (found.name === 'TransactionCanceledException') {
    return (found.CancellationReasons ?? []).some((reason) => reason.Code !== undefined && TRANSIENT_CANCELLATIONS.has(reason.Code));
  }
  return isTransient(found.cause, depth + 1);
}

export interface ReplayOutcome {
  /** Applied now, and no longer kept aside. */
  readonly replayed: number;
  /** Failing still, kept aside with the new error. */
  readonly failing: number;
  /** Kept without the event (too large to store): listed, never replayable. */
  readonly unreplayable: number;
}

/**
 * Applies the events set aside again, one at a time, through the stream's own applier: each one
 * that now applies is removed, each one that fails again stays with its new error. Applying is
 * idempotent and each group of facts moves only forward, so an event older than what the stream
 * has told since changes nothing.
 */
export async function replaySetAside(store: SetAsideEvents, apply: ApplyEvents, stream?: StreamName): Promise<ReplayOutcome> {
  let replayed = 0;
  let failing = 0;
  let unreplayable = 0;
  for (const kept of await store.list(stream)) {
    if (!kept.event) {
      unreplayable++;
      continue;
    }
    try {
      await apply(kept.stream, [kept.event]);
      await store.remove(kept.stream, kept.timepoint);
      replayed++;
    } catch (error) {
      failing++;
      await store.keep(kept.event, error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    }
  }
  return { replayed, failing, unreplayable };
}
