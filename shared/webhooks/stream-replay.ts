import type { DynamoDBRecord } from 'aws-lambda';
import type { StreamBatchInfo } from './stream-failure';

/** The records of a batch as the stream still holds them. */
export type ReadBack =
  | { readonly kind: 'read'; readonly records: readonly DynamoDBRecord[] }
  /** The stream no longer holds them (older than its 24 hours): nothing can replay these changes. */
  | { readonly kind: 'trimmed' };

export interface StreamReader {
  read(batch: StreamBatchInfo): Promise<ReadBack>;
}

export interface ReplayResult {
  readonly records: number;
  readonly events: number;
  readonly lost: boolean;
}

/**
 * A batch the detector gave up on, detected again from the stream itself. The events it makes have
 * the keys the detector would have given them, so a replay of records handled in part (a batch
 * bisected, or a failure after some fan-out tasks were queued) repeats nothing under a new id. A
 * failure here throws: the pointer stays on its queue for another try.
 */
export class StreamReplay {
  constructor(
    private readonly deps: {
      readonly reader: StreamReader;
      /** The detector's own step for one record: the events it queued for fan-out. */
      readonly detect: (record: DynamoDBRecord) => Promise<number>;
      /** The mapping's filter: records it would not have handed the detector are not replayed either. */
      readonly filter: (record: DynamoDBRecord) => boolean;
    },
  ) {}

  async replay(batch: StreamBatchInfo): Promise<ReplayResult> {
    const read = await this.deps.reader.read(batch);
    if (read.kind === 'trimmed') return { records: 0, events: 0, lost: true };
    let events = 0;
    const records = read.records.filter(this.deps.filter);
    // In stream order, one at a time: the order the detector keeps for a company's versions.
    for (const record of records) events += await this.deps.detect(record);
    return { records: records.length, events, lost: false };
  }
}
