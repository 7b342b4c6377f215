import { protectedRoute } from '../../shared/auth/protect';
import { lambdaHttpHandler } from '../../shared/http/lambda';
import { deliveriesQueue, queueUrl } from '../../shared/queues/queues';
import { createSqsClient, JsonQueue } from '../../shared/queues/sqs';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { deliveriesTable, tableName, webhooksTable } from '../../shared/storage/tables';
import { Deliveries } from '../../shared/webhooks/deliveries';
import type { DeliveryMessage } from '../../shared/webhooks/delivery-log';
import { DynamoDeliveryLog } from '../../shared/webhooks/dynamo-delivery-log';
import { DynamoSubscriptionStore } from '../../shared/webhooks/dynamo-subscription-store';
import { loopbackReceiversAllowed } from '../../shared/webhooks/loopback';
import { Subscriptions } from '../../shared/webhooks/subscriptions';
import { systemResolver } from '../../shared/webhooks/system-resolver';
import { createWebhooksEndpoint } from '../../shared/webhooks/webhooks-endpoint';
import { protection } from '../protection';

/** /v1/webhooks…: the caller's subscriptions, endpoint URLs checked against DNS, tests and retries through the deliveries queue. */
const doc = sharedDocumentClient();
const clock = () => new Date();
const subscriptions = new Subscriptions({
  store: new DynamoSubscriptionStore(doc, tableName(webhooksTable)),
  resolve: systemResolver,
  clock,
  allowLoopback: loopbackReceiversAllowed(),
});
const deliveries = new Deliveries({
  subscriptions,
  log: new DynamoDeliveryLog(doc, tableName(deliveriesTable)),
  queue: new JsonQueue<DeliveryMessage>(createSqsClient(), queueUrl(deliveriesQueue)),
  clock,
});

export const handler = lambdaHttpHandler(protectedRoute(protection(doc), createWebhooksEndpoint(subscriptions, deliveries)));
