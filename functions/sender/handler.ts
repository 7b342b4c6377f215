import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSHandler, SQSRecord } from 'aws-lambda';
import { logger } from '../../shared/observability/logger';
import { deliveriesQueue, queueUrl } from '../../shared/queues/queues';
import { createSqsClient, delayRedelivery } from '../../shared/queues/sqs';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { deliveriesTable, tableName, webhooksTable } from '../../shared/storage/tables';
import { DeliveryClient } from '../../shared/webhooks/delivery-client';
import type { DeliveryMessage } from '../../shared/webhooks/delivery-log';
import { DynamoDeliveryLog } from '../../shared/webhooks/dynamo-delivery-log';
import { DynamoSubscriptionStore } from '../../shared/webhooks/dynamo-subscription-store';
import { loopbackReceiversAllowed } from '../../shared/webhooks/loopback';
import { retryDelaysFrom } from '../../shared/webhooks/retry-schedule';
import { DEFAULT_DISABLE_AFTER_FAILING_DAYS, WebhookSender } from '../../shared/webhooks/sender';

/** Deliveries queue → signed POSTs; a failed delivery stays on the queue, hidden until its next attempt. */
const doc = sharedDocumentClient();
const sqs = createSqsClient();
const deliveriesUrl = queueUrl(deliveriesQueue);
const sender = new WebhookSender({
  subscriptions: new DynamoSubscriptionStore(doc, tableName(webhooksTable)),
  log: new DynamoDeliveryLog(doc, tableName(deliveriesTable)),
  client: new DeliveryClient({ allowLoopback: loopbackReceiversAllowed() }),
  retry: { delaysSeconds: retryDelaysFrom(process.env) },
  clock: () => new Date(),
  disableAfterFailingDays: Number(process.env.DISABLE_FAILING_WEBHOOKS_AFTER_DAYS ?? DEFAULT_DISABLE_AFTER_FAILING_DAYS),
});
const processor = new BatchProcessor(EventType.SQS);

/** Reported as a failure so the queue keeps the message; its visibility already says when it returns. */
class DeliveryPending extends Error {}

async function send(record: SQSRecord): Promise<void> {
  const message = JSON.parse(record.body) as DeliveryMessage;
  const outcome = await sender.send(message, Number(record.attributes.ApproximateReceiveCount ?? '1'));
  const context = { deliveryId: message.deliveryId, subscriptionId: message.subscriptionId, event: message.envelope.idempotencyKey };
  if ('attempt' in outcome) logger.info('delivery attempt', { ...context, ...outcome.attempt, next: outcome.kind });
  else
    logger.info('delivery not attempted', {
      ...context,
      outcome: outcome.kind,
      ...('reason' in outcome ? { reason: outcome.reason } : {}),
    });
  if (outcome.kind === 'retry') {
    await delayRedelivery(sqs, deliveriesUrl, record.receiptHandle, outcome.delaySeconds);
    throw new DeliveryPending(`retry in ${outcome.delaySeconds} s`);
  }
  if (outcome.kind === 'exhausted') {
    // Visible again at once: the queue's next receive finds it over maxReceiveCount and parks it in the DLQ.
    await delayRedelivery(sqs, deliveriesUrl, record.receiptHandle, 0);
    throw new DeliveryPending('retries exhausted');
  }
}

export const handler: SQSHandler = (event, context) =>
  processPartialResponse(event, send, processor, { context, throwOnFullBatchFailure: false });
