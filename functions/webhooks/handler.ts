import { protectedRoute } from '../../shared/auth/protect';
import { lambdaHttpHandler } from '../../shared/http/lambda';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { tableName, webhooksTable } from '../../shared/storage/tables';
import { DynamoSubscriptionStore } from '../../shared/webhooks/dynamo-subscription-store';
import { Subscriptions } from '../../shared/webhooks/subscriptions';
import { systemResolver } from '../../shared/webhooks/system-resolver';
import { createWebhooksEndpoint } from '../../shared/webhooks/webhooks-endpoint';
import { protection } from '../protection';

/** /v1/webhooks…: the caller's subscriptions in the webhooks table; endpoint URLs checked against DNS. */
const doc = sharedDocumentClient();
const store = new DynamoSubscriptionStore(doc, tableName(webhooksTable));

export const handler = lambdaHttpHandler(
  protectedRoute(protection(doc), createWebhooksEndpoint(new Subscriptions({ store, resolve: systemResolver, clock: () => new Date() }))),
);
