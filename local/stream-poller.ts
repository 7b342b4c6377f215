import { randomUUID } from 'node:crypto';
import {
  type _Record,
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type Shard,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { toLambdaRecord } from '../shared/aws/stream-records';
import type { FilterableStreamRecord } from '../shared/webhooks/profile-stream-record';
import type { StreamFailurePointer } from '../shared/webhooks/stream-failure';
import { LOCAL_ACCOUNT_ID } from './functions';
import { CheckpointFile } from './stream-checkpoints';

export interface StreamPollerOptions {
  readonly streams: DynamoDBStreamsClient;
  readonly streamArn: string;
  /** The consumer: a Lambda handler's invoke. A `{batchItemFailures}` result reports partial failure. */
  readonly invoke: (event: DynamoDBStreamEvent) => Promise<unknown>;
  /** Where the position in the stream is kept between runs. */
  readonly checkpointFile: string;
  /**
   * The on-failure destination: a batch that exhausted its retries is pointed to there, as Lambda
   * does, before the position moves past it. A pointer that cannot be sent stops the stream there.
   */
  readonly sendFailure: (pointer: StreamFailurePointer) => Promise<void>;
  /** The consumer's name, as the pointer's function ARN names it. */
  readonly functionName?: string;
  /** Records per invocation (the mapping's BatchSize); default 100. */
  readonly batchSize?: number;
  /** Retries after the first failed attempt before the batch goes to the failure destination; default 3. */
  readonly maxRetryAttempts?: number;
  /** Split a batch in two when the handler throws (BisectBatchOnFunctionError); default false. */
  readonly bisectBatchOnFunctionError?: boolean;
  /**
   * FilterCriteria: records it rejects are skipped without an invocation, as Lambda does. It reads the
   * record as the Streams API returned it (event name and keys), before anything else is converted.
   */
  readonly filter?: (record: FilterableStreamRecord) => boolean;
  readonly region?: string;
  /** Wait between polls of an idle stream; default 250 ms (Lambda polls a shard four times a second). */
  readonly pollIntervalMs?: number;
  /** First retry delay, doubled per attempt up to maxRetryDelayMs; defaults 200 ms and 5 s. */
  readonly retryDelayMs?: number;
  readonly maxRetryDelayMs?: number;
  /** How often to look for new shards while the known ones stay open; default 10 s. */
  readonly shardDiscoveryIntervalMs?: number;
  readonly log?: (line: string) => void;
}

export interface StreamPoller {
  start(): void;
  /** Stops polling; an invocation in flight is allowed to finish first. */
  stop(): Promise<void>;
  /** Records handed to the failure destination since start: each was logged at ERROR with its sequence numbers. */
  recordsSetAside(): number;
}

interface ShardState {
  readonly shardId: string;
  readonly parentShardId?: string;
  iterator?: string;
}

type Outcome = { kind: 'success' } | { kind: 'partial'; failedSequenceNumbers: string[] } | { kind: 'error'; reason: string };

interface PendingBatch {
  records: _Record[];
  attempts: number;
  lastReason?: string;
}

const sequenceOf = (record: _Record): string => record.dynamodb?.SequenceNumber ?? '';

/**
 * Reads the handler's answer the way the event source mapping does with ReportBatchItemFailures:
 * nothing or an empty list is success; an identifier that is empty or names no record in the batch
 * fails the whole batch.
 */
function interpret(result: unknown, invoked: readonly _Record[]): Outcome {
  if (typeof result !== 'object' || result === null) return { kind: 'success' };
  const failures = (result as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null || (Array.isArray(failures) && failures.length === 0)) return { kind: 'success' };
  if (!Array.isArray(failures)) return { kind: 'error', reason: 'batchItemFailures is not a list' };
  const known = new Set(invoked.map(sequenceOf));
  const identifiers = failures.map((failure: unknown) => (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier);
  if (identifiers.some((id) => typeof id !== 'string' || !known.has(id))) {
    return { kind: 'error', reason: 'batchItemFailures names a record that is not in the batch' };
  }
  return { kind: 'partial', failedSequenceNumbers: identifiers as string[] };
}

/**
 * Plays the DynamoDB Streams event source mapping on this machine: shards are followed in
 * parent-before-child order, records are handed over in order in batches, a partial failure is
 * retried from the first failed record, errors are retried with exponential backoff, and a batch
 * that exhausts its retries is pointed to on the failure destination and skipped, so the stream
 * moves on without losing it.
 */
export function createStreamPoller(options: StreamPollerOptions): StreamPoller {
  const batchSize = options.batchSize ?? 100;
  const maxRetryAttempts = options.maxRetryAttempts ?? 3;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const retryDelayMs = options.retryDelayMs ?? 200;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? 5000;
  const discoveryIntervalMs = options.shardDiscoveryIntervalMs ?? 10_000;
  const region = options.region ?? process.env.AWS_REGION ?? 'eu-west-2';
  const log = options.log ?? (() => {});
  const checkpoints = new CheckpointFile(options.checkpointFile, options.streamArn);
  const shards = new Map<string, ShardState>();
  let nextDiscovery = 0;
  let stopping = false;
  let setAside = 0;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  async function discoverShards(): Promise<void> {
    let exclusiveStartShardId: string | undefined;
    const listed: Shard[] = [];
    do {
      const page = await options.streams.send(
        new DescribeStreamCommand({ StreamArn: options.streamArn, ExclusiveStartShardId: exclusiveStartShardId }),
      );
      listed.push(...(page.StreamDescription?.Shards ?? []));
      exclusiveStartShardId = page.StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStartShardId);
    for (const shard of listed) {
      if (!shard.ShardId || shards.has(shard.ShardId)) continue;
      shards.set(shard.ShardId, { shardId: shard.ShardId, parentShardId: shard.ParentShardId });
    }
    nextDiscovery = Date.now() + discoveryIntervalMs;
  }

  /** A shard is read only once its parent is done (or gone from the stream), which keeps per-key order. */
  function readyShards(): ShardState[] {
    return [...shards.values()].filter(
      (shard) =>
        !checkpoints.isFinished(shard.shardId) &&
        (!shard.parentShardId || !shards.has(shard.parentShardId) || checkpoints.isFinished(shard.parentShardId)),
    );
  }

  async function iteratorFor(shard: ShardState): Promise<string | undefined> {
    const after = checkpoints.sequenceNumber(shard.shardId);
    const request = after
      ? { StreamArn: options.streamArn, ShardId: shard.shardId, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: after }
      : { StreamArn: options.streamArn, ShardId: shard.shardId, ShardIteratorType: 'TRIM_HORIZON' as const };
    try {
      return (await options.streams.send(new GetShardIteratorCommand(request))).ShardIterator;
    } catch (error) {
      if (!(error instanceof TrimmedDataAccessException)) throw error;
      log(`stream: records after ${after} in ${shard.shardId} were trimmed; continuing from the oldest record kept`);
      return (
        await options.streams.send(
          new GetShardIteratorCommand({ ...request, ShardIteratorType: 'TRIM_HORIZON', SequenceNumber: undefined }),
        )
      ).ShardIterator;
    }
  }

  /** The records of a batch the function is invoked with: those the filter lets through. */
  const handedOver = (records: _Record[]): _Record[] => {
    const filter = options.filter;
    return filter ? records.filter((record) => filter(record)) : records;
  };

  /**
   * Like Lambda's, the pointer names the records the function was handed (those the filter let
   * through), so its batch size is how many changes a replay owes; times are to the second, as
   * Lambda writes them for a DynamoDB stream.
   */
  async function sendToFailureDestination(shardId: string, batch: PendingBatch): Promise<void> {
    let invoked: _Record[];
    try {
      invoked = handedOver(batch.records);
    } catch {
      invoked = [];
    }
    // A filter that failed hands over nothing: the pointer then names the whole batch.
    if (invoked.length === 0) invoked = batch.records;
    const first = invoked[0] as _Record;
    const last = invoked[invoked.length - 1] as _Record;
    const arrival = (record: _Record) => record.dynamodb?.ApproximateCreationDateTime?.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const pointer: StreamFailurePointer = {
      version: '1.0',
      timestamp: new Date().toISOString(),
      requestContext: {
        requestId: randomUUID(),
        functionArn: `arn:aws:lambda:${region}:${LOCAL_ACCOUNT_ID}:function:${options.functionName ?? 'local'}`,
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: batch.attempts,
      },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      DDBStreamBatchInfo: {
        shardId,
        startSequenceNumber: sequenceOf(first),
        endSequenceNumber: sequenceOf(last),
        ...(arrival(first) ? { approximateArrivalOfFirstRecord: arrival(first) } : {}),
        ...(arrival(last) ? { approximateArrivalOfLastRecord: arrival(last) } : {}),
        batchSize: invoked.length,
        streamArn: options.streamArn,
      },
    };
    await options.sendFailure(pointer);
    setAside += invoked.length;
    log(
      `ERROR stream: ${invoked.length} record(s), sequence numbers ${sequenceOf(first)} to ${sequenceOf(last)} of ${shardId}, ` +
        `failed ${batch.attempts} times (${batch.lastReason ?? 'unknown'}); pointed to on the failure queue and passed over`,
    );
  }

  /**
   * One attempt at a batch: filtering, converting and invoking. Whatever fails in any of these steps
   * is the batch's failure, retried, bisected and finally set aside like the function's own errors,
   * so no record can hold the stream still.
   */
  async function attempt(records: _Record[]): Promise<Outcome> {
    try {
      const invoked = handedOver(records);
      if (invoked.length === 0) return { kind: 'success' };
      const event: DynamoDBStreamEvent = { Records: invoked.map((record) => toLambdaRecord(record, options.streamArn, region)) };
      return interpret(await options.invoke(event), invoked);
    } catch (error) {
      return { kind: 'error', reason: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
    }
  }

  /** Handles one GetRecords page to the end: processed, filtered out, or sent to the failure destination. */
  async function processRecords(shardId: string, records: _Record[]): Promise<'done' | 'stopped'> {
    const queue: PendingBatch[] = [{ records, attempts: 0 }];
    while (queue.length > 0) {
      // Everything before the queue's head is checkpointed, so stopping here replays nothing handled.
      if (stopping) return 'stopped';
      const batch = queue[0] as PendingBatch;
      const last = sequenceOf(batch.records[batch.records.length - 1] as _Record);
      const outcome = await attempt(batch.records);
      if (outcome.kind === 'success') {
        checkpoints.advance(shardId, last);
        queue.shift();
        continue;
      }
      if (outcome.kind === 'partial') {
        const failed = new Set(outcome.failedSequenceNumbers);
        const firstFailed = batch.records.findIndex((record) => failed.has(sequenceOf(record)));
        if (firstFailed > 0) checkpoints.advance(shardId, sequenceOf(batch.records[firstFailed - 1] as _Record));
        batch.records = batch.records.slice(firstFailed);
        batch.lastReason = `batchItemFailures reported ${outcome.failedSequenceNumbers.length} record(s)`;
      } else {
        batch.lastReason = outcome.reason;
      }
      if (outcome.kind === 'error' && options.bisectBatchOnFunctionError && batch.records.length > 1) {
        // Splitting is not a retry: each half gets its own attempts, so one poisoned record ends up alone
        // in the failure destination while its neighbours go through.
        const middle = Math.ceil(batch.records.length / 2);
        queue.splice(0, 1, { records: batch.records.slice(0, middle), attempts: 0 }, { records: batch.records.slice(middle), attempts: 0 });
        log(`stream: batch of ${batch.records.length} failed (${batch.lastReason}); splitting it in two`);
        continue;
      }
      batch.attempts += 1;
      if (batch.attempts > maxRetryAttempts) {
        await sendToFailureDestination(shardId, batch);
        checkpoints.advance(shardId, last);
        queue.shift();
        continue;
      }
      log(`stream: batch failed (attempt ${batch.attempts} of ${maxRetryAttempts + 1}): ${batch.lastReason}`);
      await pause(Math.min(maxRetryDelayMs, retryDelayMs * 2 ** (batch.attempts - 1)));
    }
    return 'done';
  }

  /** Reads one page from a shard; true when it found records (so the loop polls again at once). */
  async function pollShard(shard: ShardState): Promise<boolean> {
    shard.iterator ??= await iteratorFor(shard);
    if (!shard.iterator) {
      checkpoints.finish(shard.shardId);
      return true;
    }
    let page: GetRecordsCommandOutput;
    try {
      page = await options.streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: batchSize }));
    } catch (error) {
      // DynamoDB Local answers a TRIM_HORIZON iterator taken on a shard with no record yet this way; a
      // fresh iterator (from the checkpoint, or the oldest record) reads on.
      if (!(error instanceof ExpiredIteratorException) && !(error instanceof TrimmedDataAccessException)) throw error;
      shard.iterator = undefined;
      return error instanceof ExpiredIteratorException;
    }
    const records = page.Records ?? [];
    if (records.length > 0 && (await processRecords(shard.shardId, records)) === 'stopped') return false;
    shard.iterator = page.NextShardIterator;
    if (!shard.iterator) {
      checkpoints.finish(shard.shardId);
      nextDiscovery = 0;
    }
    return records.length > 0 || !shard.iterator;
  }

  async function run(): Promise<void> {
    let failures = 0;
    while (!stopping) {
      try {
        if (Date.now() >= nextDiscovery) await discoverShards();
        let busy = false;
        for (const shard of readyShards()) {
          if (stopping) break;
          busy = (await pollShard(shard)) || busy;
        }
        failures = 0;
        if (!busy && !stopping) await pause(pollIntervalMs);
      } catch (error) {
        failures += 1;
        log(`stream: polling failed (${error instanceof Error ? error.message : String(error)}); retrying`);
        for (const shard of shards.values()) shard.iterator = undefined;
        if (!stopping) await pause(Math.min(maxRetryDelayMs, retryDelayMs * 2 ** Math.min(failures, 10)));
      }
    }
  }

  return {
    start() {
      if (loop) return;
      stopping = false;
      loop = run();
    },
    async stop() {
      stopping = true;
      wake?.();
      await loop;
      loop = undefined;
    },
    recordsSetAside: () => setAside,
  };
}
