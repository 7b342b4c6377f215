import { randomUUID } from 'node:crypto';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import type { StreamFailurePointer } from '../../shared/webhooks/stream-failure';

/**
 * The pointer Lambda would send to the on-failure destination had the detector given up on the
 * latest stream record of one item: what a test hands the stream replayer.
 */
export async function pointerToLatestRecord(
  dynamo: DynamoDBClient,
  endpoint: string,
  tableName: string,
  pk: string,
): Promise<StreamFailurePointer> {
  const streamArn = (await dynamo.send(new DescribeTableCommand({ TableName: tableName }))).Table?.LatestStreamArn as string;
  const streams = new DynamoDBStreamsClient({
    endpoint,
    region: 'eu-west-2',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    let latest: { shardId: string; record: _Record } | undefined;
    const shards = (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription?.Shards ?? [];
    for (const shard of shards) {
      let iterator = (
        await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }))
      ).ShardIterator;
      // An open shard keeps answering with a next iterator: stop at its first empty page.
      while (iterator) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        for (const record of page.Records ?? []) {
          if (record.dynamodb?.Keys?.pk?.S === pk) latest = { shardId: shard.ShardId as string, record };
        }
        iterator = (page.Records ?? []).length > 0 ? page.NextShardIterator : undefined;
      }
    }
    if (!latest) throw new Error(`No stream record of ${pk} in ${tableName}`);
    const sequence = latest.record.dynamodb?.SequenceNumber as string;
    return {
      version: '1.0',
      timestamp: new Date().toISOString(),
      requestContext: {
        requestId: randomUUID(),
        functionArn: 'arn:aws:lambda:eu-west-2:000000000000:function:changeDetector',
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: 11,
      },
      DDBStreamBatchInfo: { shardId: latest.shardId, startSequenceNumber: sequence, endSequenceNumber: sequence, batchSize: 1, streamArn },
    };
  } finally {
    streams.destroy();
  }
}
