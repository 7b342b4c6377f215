import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { loadAuthConfig } from '../shared/auth/config';
import { RateLimiter } from '../shared/auth/rate-limit';
import { webhookSecretSealer } from '../shared/crypto/kms-data-keys';
import { type DeliveryMessage, deliveriesQueue, queueUrl } from '../shared/queues/queues';
import { createSqsClient, JsonQueue } from '../shared/queues/sqs';
import { deliveriesTable, tableName, webhooksTable } from '../shared/storage/tables';
import { Deliveries } from '../shared/webhooks/deliveries';
import { DynamoDeliveryLog } from '../shared/webhooks/dynamo-delivery-log';
import { DynamoSubscriptionStore } from '../shared/webhooks/dynamo-subscription-store';
import { deliveryPortsFrom } from '../shared/webhooks/endpoint-url';
import { loopbackReceiversAllowed } from '../shared/webhooks/loopback';
import { Subscriptions } from '../shared/webhooks/subscriptions';
import { systemResolver } from '../shared/webhooks/system-resolver';

/**
 * A client's subscriptions and deliveries, as the API's /v1/webhooks and the workspace both serve
 * them: endpoint URLs checked against DNS, tests and retries through the deliveries queue.
 */
export function webhookUseCases(doc: DynamoDBDocumentClient): { subscriptions: Subscriptions; deliveries: Deliveries } {
  const clock = () => new Date();
  const subscriptions = new Subscriptions({
    store: new DynamoSubscriptionStore(doc, tableName(webhooksTable)),
    resolve: systemResolver,
    clock,
    allowLoopback: loopbackReceiversAllowed(),
    ports: deliveryPortsFrom(),
    sealer: webhookSecretSealer(),
  });
  const deliveries = new Deliveries({
    subscriptions,
    log: new DynamoDeliveryLog(doc, tableName(deliveriesTable)),
    queue: new JsonQueue<DeliveryMessage>(createSqsClient(), queueUrl(deliveriesQueue)),
    clock,
    // Counted beside the client's API calls, in the clients table's rate counters.
    manualSends: new RateLimiter(doc, loadAuthConfig().clientsTable),
  });
  return { subscriptions, deliveries };
}
