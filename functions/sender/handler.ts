import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { webhookSecretSealer } from '../../shared/crypto/kms-data-keys';
import { observed } from '../../shared/observability/middleware';
import { deliveriesQueue, queueUrl } from '../../shared/queues/queues';
import { createSqsClient, SqsRedeliveryQueue } from '../../shared/queues/sqs';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { deliveriesTable, tableName, webhooksTable } from '../../shared/storage/tables';
import { DeliveryClient } from '../../shared/webhooks/delivery-client';
import { deliveryQueueHandler } from '../../shared/webhooks/delivery-queue';
import { DynamoDeliveryLog } from '../../shared/webhooks/dynamo-delivery-log';
import { DynamoSubscriptionStore } from '../../shared/webhooks/dynamo-subscription-store';
import { deliveryPortsFrom } from '../../shared/webhooks/endpoint-url';
import { loopbackReceiversAllowed } from '../../shared/webhooks/loopback';
import { retryDelaysFrom } from '../../shared/webhooks/retry-schedule';
import { disableAfterFailingDaysFrom, WebhookSender } from '../../shared/webhooks/sender';

/** Deliveries queue → signed POSTs; a failed delivery stays on the queue, hidden until its next attempt. */
const doc = sharedDocumentClient();
const sender = new WebhookSender({
  subscriptions: new DynamoSubscriptionStore(doc, tableName(webhooksTable)),
  log: new DynamoDeliveryLog(doc, tableName(deliveriesTable)),
  client: new DeliveryClient({ allowLoopback: loopbackReceiversAllowed(), ports: deliveryPortsFrom() }),
  retry: { delaysSeconds: retryDelaysFrom(process.env) },
  clock: () => new Date(),
  sealer: webhookSecretSealer(),
  disableAfterFailingDays: disableAfterFailingDaysFrom(),
});

export const handler = observed<SQSEvent, SQSBatchResponse>(
  deliveryQueueHandler({ sender, queue: new SqsRedeliveryQueue(createSqsClient(), queueUrl(deliveriesQueue)) }),
);
