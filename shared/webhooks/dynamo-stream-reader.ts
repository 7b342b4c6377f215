import {
  type _Record,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type GetShardIteratorCommandInput,
  ResourceNotFoundException,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { toLambdaRecord } from '../aws/stream-records';
import type { FilterableStreamRecord } from './profile-stream-record';
import type { StreamBatchInfo } from './stream-failure';
import type { ReadBack, StreamReader } from './stream-replay';

/** GetRecords pages read for one batch before giving up (the pointer is tried again later). */
const MAX_PAGES = 1000;

const sequenceOf = (record: _Record): bigint => BigInt(record.dynamodb?.SequenceNumber ?? '0');

/**
 * Reads a batch back from a DynamoDB stream: from its first sequence number to its last, across
 * empty pages (an open shard answers some while its later records are still ahead), to the shard's
 * end when it closes first. When the first records have aged out, it reads what is left of the
 * batch from the oldest record the shard still holds.
 */
export class DynamoStreamReader implements StreamReader {
  /**
   * @param filter the mapping's filter, applied as the mapping applies it: to the record as the
   * stream holds it, before its images are converted, so a record the detector was never handed
   * is neither converted nor returned.
   */
  constructor(
    private readonly streams: DynamoDBStreamsClient,
    private readonly region: string,
    private readonly filter: (record: FilterableStreamRecord) => boolean = () => true,
  ) {}

  async read(batch: StreamBatchInfo): Promise<ReadBack> {
    const shard = { StreamArn: batch.streamArn, ShardId: batch.shardId };
    const at = await this.iterator({ ...shard, ShardIteratorType: 'AT_SEQUENCE_NUMBER', SequenceNumber: batch.startSequenceNumber });
    if (at !== 'trimmed') return { records: await this.records(batch, at), whole: true };
    const oldest = await this.iterator({ ...shard, ShardIteratorType: 'TRIM_HORIZON' });
    return { records: oldest === 'trimmed' ? [] : await this.records(batch, oldest), whole: false };
  }

  /** An iterator, or 'trimmed' when the records it would start at, or the whole shard or stream, are gone. */
  private async iterator(input: GetShardIteratorCommandInput): Promise<string | undefined | 'trimmed'> {
    try {
      return (await this.streams.send(new GetShardIteratorCommand(input))).ShardIterator;
    } catch (error) {
      // A shard is dropped 24 hours after it closed, and a stream with its table.
      if (error instanceof TrimmedDataAccessException || error instanceof ResourceNotFoundException) return 'trimmed';
      throw error;
    }
  }

  private async records(batch: StreamBatchInfo, from: string | undefined): Promise<DynamoDBRecord[]> {
    const first = BigInt(batch.startSequenceNumber);
    const last = BigInt(batch.endSequenceNumber);
    const records: DynamoDBRecord[] = [];
    let iterator = from;
    for (let page = 0; iterator && page < MAX_PAGES; page++) {
      const answer = await this.streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      for (const record of answer.Records ?? []) {
        const sequence = sequenceOf(record);
        if (sequence > last) return records;
        if (sequence >= first && this.filter(record)) records.push(toLambdaRecord(record, batch.streamArn, this.region));
        if (sequence === last) return records;
      }
      iterator = answer.NextShardIterator;
    }
    if (!iterator) return records;
    throw new Error(`Read ${MAX_PAGES} pages of ${batch.shardId} without reaching sequence number ${batch.endSequenceNumber}`);
  }
}
