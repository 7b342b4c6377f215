import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { webhookSecretSealer } from '../../shared/crypto/kms-data-keys';
import { logger } from '../../shared/observability/logger';
import { BusinessMetric, count } from '../../shared/observability/metrics';
import { observed } from '../../shared/observability/middleware';
import { deliveriesQueue, queueUrl } from '../../shared/queues/queues';
import { createSqsClient, delayRedelivery } from '../../shared/queues/sqs';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { deliveriesTable, tableName, webhooksTable } from '../../shared/storage/tables';
import { DeliveryClient } from '../../shared/webhooks/delivery-client';
import type { DeliveryMessage } from '../../shared/webhooks/delivery-log';
import { DynamoDeliveryLog } from '../../shared/webhooks/dynamo-delivery-log';
import { DynamoSubscriptionStore } from '../../shared/webhooks/dynamo-subscription-store';
import { deliveryPortsFrom } from '../../shared/webhooks/endpoint-url';
import { loopbackReceiversAllowed } from '../../shared/webhooks/loopback';
import { retryDelaysFrom } from '../../shared/webhooks/retry-schedule';
import { DEFAULT_DISABLE_AFTER_FAILING_DAYS, type SendOutcome, WebhookSender } from '../../shared/webhooks/sender';

/** Deliveries queue → signed POSTs; a failed delivery stays on the queue, hidden until its next attempt. */
const doc = sharedDocumentClient();
const sqs = createSqsClient();
const deliveriesUrl = queueUrl(deliveriesQueue);
const sender = new WebhookSender({
  subscriptions: new DynamoSubscriptionStore(doc, tableName(webhooksTable)),
  log: new DynamoDeliveryLog(doc, tableName(deliveriesTable)),
  client: new DeliveryClient({ allowLoopback: loopbackReceiversAllowed(), ports: deliveryPortsFrom() }),
  retry: { delaysSeconds: retryDelaysFrom(process.env) },
  clock: () => new Date(),
  sealer: webhookSecretSealer(),
  disableAfterFailingDays: Number(process.env.DISABLE_FAILING_WEBHOOKS_AFTER_DAYS ?? DEFAULT_DISABLE_AFTER_FAILING_DAYS),
});
const processor = new BatchProcessor(EventType.SQS);

/** Reported as a failure so the queue keeps the message; its visibility already says when it returns. */
class DeliveryPending extends Error {}

/** A body that is not a delivery is left to fail its way to the dead-letter queue, where an operator sees it. */
function parse(record: SQSRecord): DeliveryMessage | undefined {
  try {
    const message = JSON.parse(record.body) as DeliveryMessage;
    return message?.deliveryId && message.subscriptionId && message.clientId && message.envelope ? message : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The batch is sent as a whole (one read, parallel POSTs, each logged as it ends), then Powertools
 * turns each record's outcome into the partial batch response.
 */
export const handler = observed<SQSEvent, SQSBatchResponse>(async (event, context) => {
  const valid = event.Records.flatMap((record) => {
    const message = parse(record);
    return message ? [{ record, message }] : [];
  });
  const outcomes = new Map<string, { message: DeliveryMessage; outcome: SendOutcome }>();
  const sent = await sender.sendBatch(
    valid.map(({ record, message }) => ({ message, receiveCount: Number(record.attributes.ApproximateReceiveCount ?? '1') })),
  );
  for (const [index, { record, message }] of valid.entries())
    outcomes.set(record.messageId, { message, outcome: sent[index] as SendOutcome });

  const settle = async (record: SQSRecord): Promise<void> => {
    const settled = outcomes.get(record.messageId);
    if (!settled) throw new Error(`Message ${record.messageId} is not a delivery`);
    const { message, outcome } = settled;
    const fields = { deliveryId: message.deliveryId, subscriptionId: message.subscriptionId, event: message.envelope.idempotencyKey };
    if ('attempt' in outcome) logger.info('delivery attempt', { ...fields, ...outcome.attempt, next: outcome.kind });
    else
      logger.info('delivery not attempted', {
        ...fields,
        result: outcome.kind,
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
  };
  countOutcomes([...outcomes.values()].map(({ outcome }) => outcome));
  return processPartialResponse(event, settle, processor, { context, throwOnFullBatchFailure: false });
});

/** Attempts that delivered and attempts that did not (of which some will be tried again): the delivery success rate's parts. */
function countOutcomes(outcomes: readonly SendOutcome[]): void {
  const of = (...kinds: SendOutcome['kind'][]) => outcomes.filter((outcome) => kinds.includes(outcome.kind)).length;
  count(BusinessMetric.deliveriesSucceeded, of('delivered'));
  count(BusinessMetric.deliveriesFailed, of('retry', 'exhausted', 'gone'));
  count(BusinessMetric.deliveriesRetried, of('retry'));
}
