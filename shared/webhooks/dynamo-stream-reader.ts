import {
  type _Record,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ResourceNotFoundException,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { toLambdaRecord } from '../aws/stream-records';
import type { StreamBatchInfo } from './stream-failure';
import type { ReadBack, StreamReader } from './stream-replay';

/** GetRecords pages read for one batch before giving up (the pointer is tried again later). */
const MAX_PAGES = 1000;

const sequenceOf = (record: _Record): bigint => BigInt(record.dynamodb?.SequenceNumber ?? '0');

/**
 * Reads a batch back from a DynamoDB stream: from its first sequence number to its last, across
 * empty pages (an open shard answers some while its later records are still ahead), to the shard's
 * end when it closes first.
 */
export class DynamoStreamReader implements StreamReader {
  constructor(
    private readonly streams: DynamoDBStreamsClient,
    private readonly region: string,
  ) {}

  async read(batch: StreamBatchInfo): Promise<ReadBack> {
    const first = BigInt(batch.startSequenceNumber);
    const last = BigInt(batch.endSequenceNumber);
    let iterator: string | undefined;
    try {
      iterator = (
        await this.streams.send(
          new GetShardIteratorCommand({
            StreamArn: batch.streamArn,
            ShardId: batch.shardId,
            ShardIteratorType: 'AT_SEQUENCE_NUMBER',
            SequenceNumber: batch.startSequenceNumber,
          }),
        )
      ).ShardIterator;
    } catch (error) {
      // The records aged out of the stream, or the stream itself is gone with its table.
      if (error instanceof TrimmedDataAccessException || error instanceof ResourceNotFoundException) return { kind: 'trimmed' };
      throw error;
    }
    const records: DynamoDBRecord[] = [];
    for (let page = 0; iterator && page < MAX_PAGES; page++) {
      const answer = await this.streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      for (const record of answer.Records ?? []) {
        const sequence = sequenceOf(record);
        if (sequence > last) return { kind: 'read', records };
        if (sequence >= first) records.push(toLambdaRecord(record, batch.streamArn, this.region));
        if (sequence === last) return { kind: 'read', records };
      }
      iterator = answer.NextShardIterator;
    }
    if (!iterator) return { kind: 'read', records };
    throw new Error(`Read ${MAX_PAGES} pages of ${batch.shardId} without reaching sequence number ${batch.endSequenceNumber}`);
  }
}
