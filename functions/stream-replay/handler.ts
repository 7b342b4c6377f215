import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { awsClient } from '../../shared/aws/clients';
import { observed } from '../../shared/observability/middleware';
import { type FanoutTask, fanoutQueue, queueUrl } from '../../shared/queues/queues';
import { createSqsClient, JsonQueue } from '../../shared/queues/sqs';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { tableName, watchesTable } from '../../shared/storage/tables';
import { DynamoWatchStore } from '../../shared/watches/dynamo-watch-store';
import { ChangeDetector } from '../../shared/webhooks/change-detector';
import { DynamoStreamReader } from '../../shared/webhooks/dynamo-stream-reader';
import { matchesStreamFilter, PROFILE_CHANGE_FILTER } from '../../shared/webhooks/profile-stream-record';
import { detectRecord } from '../../shared/webhooks/record-detection';
import { streamBatchOf } from '../../shared/webhooks/stream-failure';
import { StreamReplay } from '../../shared/webhooks/stream-replay';

/** Stream failure pointers → the records read back from the companies stream → detected again. */
const detector = new ChangeDetector({
  watchers: new DynamoWatchStore(sharedDocumentClient(), tableName(watchesTable)),
  tasks: new JsonQueue<FanoutTask>(createSqsClient(), queueUrl(fanoutQueue)),
});
// A stream is read with the DynamoDB endpoint, wherever that is.
const streams = awsClient((config) => new DynamoDBStreamsClient(config), 'dynamodb');
const replay = new StreamReplay({
  reader: new DynamoStreamReader(streams, process.env.AWS_REGION ?? 'eu-west-2', (record) =>
    matchesStreamFilter(PROFILE_CHANGE_FILTER, record),
  ),
  detect: (record) => detectRecord(detector, record),
});
const processor = new BatchProcessor(EventType.SQS);

async function replayPointer(message: SQSRecord): Promise<void> {
  const batch = streamBatchOf(message.body);
  // Left to fail its way to the dead-letter queue, where an operator sees it.
  if (!batch) throw new Error(`Message ${message.messageId} is not a stream failure pointer`);
  await replay.replay(batch);
}

export const handler = observed<SQSEvent, SQSBatchResponse>((event, context) =>
  processPartialResponse(event, replayPointer, processor, { context }),
);
