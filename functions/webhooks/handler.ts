import { protectedRoute } from '../../shared/auth/protect';
import { lambdaHttpHandler } from '../../shared/http/lambda';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { createWebhooksEndpoint } from '../../shared/webhooks/webhooks-endpoint';
import { protection } from '../protection';
import { webhookUseCases } from '../webhook-use-cases';

/** /v1/webhooks…: the caller's subscriptions, their tests, deliveries and retries. */
const doc = sharedDocumentClient();
const { subscriptions, deliveries } = webhookUseCases(doc);

export const handler = lambdaHttpHandler(protectedRoute(protection(doc), createWebhooksEndpoint(subscriptions, deliveries)));
