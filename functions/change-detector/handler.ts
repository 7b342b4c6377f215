import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { observed } from '../../shared/observability/middleware';
import { type FanoutTask, fanoutQueue, queueUrl } from '../../shared/queues/queues';
import { createSqsClient, JsonQueue } from '../../shared/queues/sqs';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { tableName, watchesTable } from '../../shared/storage/tables';
import { DynamoWatchStore } from '../../shared/watches/dynamo-watch-store';
import { ChangeDetector } from '../../shared/webhooks/change-detector';
import { detectRecord } from '../../shared/webhooks/record-detection';

/** Companies stream → change events → one fan-out task per event on the fan-out queue. */
const detector = new ChangeDetector({
  watchers: new DynamoWatchStore(sharedDocumentClient(), tableName(watchesTable)),
  tasks: new JsonQueue<FanoutTask>(createSqsClient(), queueUrl(fanoutQueue)),
});
const processor = new BatchProcessor(EventType.DynamoDBStreams);

async function detect(record: DynamoDBRecord): Promise<void> {
  await detectRecord(detector, record);
}

export const handler = observed<DynamoDBStreamEvent, DynamoDBBatchResponse>((event, context) =>
  processPartialResponse(event, detect, processor, { context }),
);
