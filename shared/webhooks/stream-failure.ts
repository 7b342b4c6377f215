/**
 * What Lambda sends to a DynamoDB stream mapping's on-failure destination when a batch has spent its
 * retries: where the batch lies in the stream, not its records. The local stream poller sends the
 * same document, so one replayer serves both.
 */
export interface StreamFailurePointer {
  readonly version: string;
  readonly timestamp: string;
  readonly requestContext: {
    readonly requestId: string;
    readonly functionArn: string;
    readonly condition: string;
    readonly approximateInvokeCount: number;
  };
  readonly responseContext?: { readonly statusCode?: number; readonly executedVersion?: string; readonly functionError?: string };
  readonly DDBStreamBatchInfo: StreamBatchInfo;
}

export interface StreamBatchInfo {
  readonly shardId: string;
  readonly startSequenceNumber: string;
  readonly endSequenceNumber: string;
  readonly approximateArrivalOfFirstRecord?: string;
  readonly approximateArrivalOfLastRecord?: string;
  readonly batchSize: number;
  readonly streamArn: string;
}

const SEQUENCE = /^\d{1,40}$/;

/** The batch a message points at, or undefined when the message is no such pointer. */
export function streamBatchOf(body: string): StreamBatchInfo | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const info = (parsed as { DDBStreamBatchInfo?: Partial<StreamBatchInfo> } | null)?.DDBStreamBatchInfo;
  if (!info || typeof info !== 'object') return undefined;
  const { shardId, startSequenceNumber, endSequenceNumber, streamArn, batchSize } = info;
  if (typeof shardId !== 'string' || typeof streamArn !== 'string') return undefined;
  if (typeof startSequenceNumber !== 'string' || !SEQUENCE.test(startSequenceNumber)) return undefined;
  if (typeof endSequenceNumber !== 'string' || !SEQUENCE.test(endSequenceNumber)) return undefined;
  if (BigInt(endSequenceNumber) < BigInt(startSequenceNumber)) return undefined;
  return { ...(info as StreamBatchInfo), batchSize: typeof batchSize === 'number' ? batchSize : 0 };
}
