import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { DynamoClientEventStore } from '../../shared/events/dynamo-client-events';
import { logger } from '../../shared/observability/logger';
import { observed } from '../../shared/observability/middleware';
import { type DeliveryMessage, deliveriesQueue, type FanoutTask, fanoutQueue, queueUrl } from '../../shared/queues/queues';
import { createSqsClient, JsonQueue } from '../../shared/queues/sqs';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { eventsTable, tableName, watchesTable, webhooksTable } from '../../shared/storage/tables';
import { DynamoWatchStore } from '../../shared/watches/dynamo-watch-store';
import { DynamoSubscriptionStore } from '../../shared/webhooks/dynamo-subscription-store';
import { FanOut } from '../../shared/webhooks/fan-out';

/** Fan-out queue → a page of watchers' deliveries on the deliveries queue, and the next page as a task. */
const doc = sharedDocumentClient();
const sqs = createSqsClient();
const fanOut = new FanOut({
  watchers: new DynamoWatchStore(doc, tableName(watchesTable)),
  subscriptions: new DynamoSubscriptionStore(doc, tableName(webhooksTable)),
  deliveries: new JsonQueue<DeliveryMessage>(sqs, queueUrl(deliveriesQueue)),
  tasks: new JsonQueue<FanoutTask>(sqs, queueUrl(fanoutQueue)),
  events: new DynamoClientEventStore(doc, tableName(eventsTable)),
});
const processor = new BatchProcessor(EventType.SQS);

async function fan(record: SQSRecord): Promise<void> {
  const task = JSON.parse(record.body) as FanoutTask;
  const result = await fanOut.run(task);
  logger.info('fan-out step done', { event: task.event.idempotencyKey, after: task.after, ...result });
}

export const handler = observed<SQSEvent, SQSBatchResponse>((event, context) => processPartialResponse(event, fan, processor, { context }));
