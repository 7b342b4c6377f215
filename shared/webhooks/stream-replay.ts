import type { DynamoDBRecord } from 'aws-lambda';
import { logger } from '../observability/logger';
import { BusinessMetric, count } from '../observability/metrics';
import type { StreamBatchInfo } from './stream-failure';

/** The records of a batch as the stream still holds them. */
export interface ReadBack {
  /** Those of the batch's sequence numbers the stream still holds, in stream order. */
  readonly records: readonly DynamoDBRecord[];
  /**
   * False when the stream had dropped the batch's first records (older than its 24 hours) or the
   * whole shard: the records here are only what was left of it, and the rest nothing can replay.
   */
  readonly whole: boolean;
}

export interface StreamReader {
  /** The records of the batch the mapping's filter handed over, and only those. */
  read(batch: StreamBatchInfo): Promise<ReadBack>;
}

export interface ReplayResult {
  /** Records of the batch detected again. */
  readonly records: number;
  /** Change events queued for fan-out. */
  readonly events: number;
  /** Records of the batch the stream no longer held: changes no webhook will tell. */
  readonly lost: number;
}

/**
 * A batch the detector gave up on, detected again from the stream itself. The events it makes have
 * the keys the detector would have given them, so a replay of records handled in part (a batch
 * bisected, or a failure after some fan-out tasks were queued) repeats nothing under a new id. A
 * failure here throws: the pointer stays on its queue for another try. Records gone from the stream
 * are counted and logged with their pointer, never passed over in silence.
 */
export class StreamReplay {
  constructor(
    private readonly deps: {
      readonly reader: StreamReader;
      /** The detector's own step for one record: the events it queued for fan-out. */
      readonly detect: (record: DynamoDBRecord) => Promise<number>;
    },
  ) {}

  async replay(batch: StreamBatchInfo): Promise<ReplayResult> {
    const read = await this.deps.reader.read(batch);
    const { records } = read;
    let events = 0;
    // In stream order, one at a time: the order the detector keeps for a company's versions.
    for (const record of records) events += await this.deps.detect(record);
    // The pointer counts the records the mapping handed over, so what is missing of them was trimmed;
    // a pointer without a count still names at least one.
    const lost = read.whole ? 0 : Math.max(1, batch.batchSize - records.length);
    count(BusinessMetric.streamRecordsReplayed, records.length);
    if (lost > 0) {
      count(BusinessMetric.streamRecordsLost, lost);
      logger.error('stream records gone before they could be replayed', { ...batch, lost, replayed: records.length });
    } else {
      logger.info('stream batch replayed', { ...batch, records: records.length, events });
    }
    return { records: records.length, events, lost };
  }
}
