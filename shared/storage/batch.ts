import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';

/** BatchGetItem takes at most 100 keys, BatchWriteItem 25 requests. */
const BATCH_GET_LIMIT = 100;
export const BATCH_WRITE_LIMIT = 25;
/** Rounds a chunk gets before what DynamoDB keeps leaving unprocessed is reported: at most 3.55 s of backoff in all. */
const MAX_ROUNDS = 8;
/** Chunks in flight at once: enough to hide latency, few enough not to throttle the table. */
const CHUNKS_IN_FLIGHT = 4;

type Key = object;
export type WriteRequest = { readonly PutRequest: { readonly Item: Key } } | { readonly DeleteRequest: { readonly Key: Key } };

/** DynamoDB still left items unprocessed after every round: nothing is dropped without saying which. */
export class UnprocessedItemsError extends Error {
  constructor(
    readonly tableName: string,
    readonly operation: 'BatchGetItem' | 'BatchWriteItem',
    readonly keys: readonly Key[],
    rounds: number = MAX_ROUNDS,
  ) {
    super(
      `${operation} on ${tableName} left ${keys.length} item(s) unprocessed after ${rounds} rounds: ${keys
        .slice(0, 5)
        .map((key) => JSON.stringify(key))
        .join(', ')}${keys.length > 5 ? ', …' : ''}`,
    );
    this.name = 'UnprocessedItemsError';
  }
}

/** Full jitter (0 to the exponential cap): retries of many chunks spread out instead of arriving together. */
const backoffMs = (round: number, random: () => number, capMs = 1000) => random() * Math.min(capMs, 25 * 2 ** round);

/**
 * How long a client's batches keep asking before they give up: a bulk writer (the register import)
 * waits out throttling that an API request must not. Registered once for its document client.
 */
export interface BatchPatience {
  readonly maxRounds: number;
  /** The longest wait between two rounds. */
  readonly capMs: number;
}

const patience = new WeakMap<DynamoDBDocumentClient, BatchPatience>();

export function setBatchPatience(doc: DynamoDBDocumentClient, value: BatchPatience): void {
  patience.set(doc, value);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface BatchOptions {
  /** Tests: the jitter's source (default Math.random) and the wait (default a timer). */
  readonly random?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Default: what setBatchPatience registered for the client, else MAX_ROUNDS rounds of up to a second. */
  readonly patience?: BatchPatience;
  /** Reads only: false for an eventually consistent read, half the cost, where a second's lag does not matter. Default true. */
  readonly consistentRead?: boolean;
}

const roundsOf = (doc: DynamoDBDocumentClient, options: BatchOptions) => (options.patience ?? patience.get(doc))?.maxRounds ?? MAX_ROUNDS;

const withPatience = (doc: DynamoDBDocumentClient, options: BatchOptions): BatchOptions => {
  const registered = options.patience ?? patience.get(doc);
  return registered ? { ...options, patience: registered } : options;
};

function chunked<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/** What one chunk's requests left unprocessed: the requests it would still have to send. */
async function untilProcessed<T>(
  first: readonly T[],
  send: (pending: readonly T[]) => Promise<readonly T[]>,
  options: BatchOptions,
): Promise<readonly T[]> {
  let pending = first;
  const rounds = options.patience?.maxRounds ?? MAX_ROUNDS;
  for (let round = 0; pending.length > 0 && round < rounds; round++) {
    if (round > 0) await (options.sleep ?? sleep)(backoffMs(round, options.random ?? Math.random, options.patience?.capMs));
    pending = await send(pending);
  }
  return pending;
}

/**
 * Every chunk runs to its end, a few at a time, even when another fails, so one error can name
 * everything left unprocessed rather than the first chunk's share of it.
 */
async function eachChunk<T>(
  chunks: readonly (readonly T[])[],
  send: (pending: readonly T[]) => Promise<readonly T[]>,
  fail: (left: readonly T[]) => Error,
  options: BatchOptions,
): Promise<void> {
  const limit = pLimit(CHUNKS_IN_FLIGHT);
  const settled = await Promise.allSettled(chunks.map((chunk) => limit(() => untilProcessed(chunk, send, options))));
  const failure = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  const left = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value : []));
  if (left.length > 0) throw fail(left);
}

/**
 * Every item that exists among the keys, read consistently in requests of 100, a few at a time; keys
 * DynamoDB leaves unprocessed are asked for again with backoff and jitter, a bounded number of times.
 */
export async function batchGet<T>(
  doc: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly Key[],
  /** The attributes to read; with names for those that are reserved words (`#name`). */
  projection?: string | { readonly expression: string; readonly names: Readonly<Record<string, string>> },
  options: BatchOptions = {},
): Promise<T[]> {
  const projected =
    projection === undefined
      ? {}
      : typeof projection === 'string'
        ? { ProjectionExpression: projection }
        : { ProjectionExpression: projection.expression, ExpressionAttributeNames: { ...projection.names } };
  const found: T[] = [];
  await eachChunk(
    chunked(keys, BATCH_GET_LIMIT),
    async (pending) => {
      const result = await doc.send(
        new BatchGetCommand({
          RequestItems: {
            [tableName]: { Keys: [...pending], ConsistentRead: options.consistentRead ?? true, ...projected },
          },
        }),
      );
      found.push(...((result.Responses?.[tableName] ?? []) as T[]));
      return (result.UnprocessedKeys?.[tableName]?.Keys ?? []) as Key[];
    },
    (left) => new UnprocessedItemsError(tableName, 'BatchGetItem', left, roundsOf(doc, options)),
    withPatience(doc, options),
  );
  return found;
}

/**
 * Puts and deletes in requests of 25, a few at a time, re-sending what DynamoDB leaves unprocessed
 * with backoff and jitter, a bounded number of times; then it throws, naming the items left.
 */
export async function batchWrite(
  doc: DynamoDBDocumentClient,
  tableName: string,
  requests: readonly WriteRequest[],
  options: BatchOptions = {},
): Promise<void> {
  await eachChunk(
    chunked(requests, BATCH_WRITE_LIMIT),
    async (pending) => {
      const result = await doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: [...pending] as never } }));
      return (result.UnprocessedItems?.[tableName] ?? []) as WriteRequest[];
    },
    (left) =>
      new UnprocessedItemsError(
        tableName,
        'BatchWriteItem',
        left.map((request) => ('PutRequest' in request ? request.PutRequest.Item : request.DeleteRequest.Key)),
        roundsOf(doc, options),
      ),
    withPatience(doc, options),
  );
}
