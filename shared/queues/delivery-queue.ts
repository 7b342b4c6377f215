import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../observability/logger';
import { BusinessMetric, count } from '../observability/metrics';
import type { ReceivedDelivery, SendOutcome } from '../webhooks/sender';
import type { DeliveryMessage } from './queues';

/** What the adapter asks of the deliveries queue: to hand a received message out again after a while. */
export interface RedeliveryQueue {
  redeliverIn(receiptHandle: string, seconds: number): Promise<void>;
}

export interface DeliveryQueueDeps {
  readonly sender: { sendBatch(batch: readonly ReceivedDelivery[]): Promise<SendOutcome[]> };
  readonly queue: RedeliveryQueue;
}

/** Reported as a failure so the queue keeps the message; its visibility already says when it returns. */
class DeliveryPending extends Error {}

/** A body that is not a delivery is left to fail its way to the dead-letter queue, where an operator sees it. */
function deliveryOf(record: SQSRecord): DeliveryMessage | undefined {
  try {
    const message = JSON.parse(record.body) as DeliveryMessage;
    return message?.deliveryId && message.subscriptionId && message.clientId && message.envelope ? message : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The deliveries queue's Lambda event source, in front of the sender: the batch is sent as a whole
 * (one read, parallel POSTs, each logged as it ends), then each message is settled as the sender
 * decided. A delivered, dropped or duplicate message is deleted; one to retry is hidden until its
 * next attempt and kept; one whose schedule is spent is made visible at once, so the queue's next
 * receive finds it over its maximum and parks it in the dead-letter queue; one that could not be
 * signed is kept as it is.
 */
export function deliveryQueueHandler(deps: DeliveryQueueDeps): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const processor = new BatchProcessor(EventType.SQS);
  return async (event, context) => {
    const valid = event.Records.flatMap((record) => {
      const message = deliveryOf(record);
      return message ? [{ record, message }] : [];
    });
    const sent = await deps.sender.sendBatch(
      valid.map(({ record, message }) => ({ message, receiveCount: Number(record.attributes.ApproximateReceiveCount ?? '1') })),
    );
    const outcomes = new Map(
      valid.map(({ record, message }, index) => [record.messageId, { message, outcome: sent[index] as SendOutcome }]),
    );

    const settle = async (record: SQSRecord): Promise<void> => {
      const settled = outcomes.get(record.messageId);
      if (!settled) throw new Error(`Message ${record.messageId} is not a delivery`);
      const { message, outcome } = settled;
      logOutcome(message, outcome);
      if (outcome.kind === 'retry') {
        await deps.queue.redeliverIn(record.receiptHandle, outcome.delaySeconds);
        throw new DeliveryPending(`retry in ${outcome.delaySeconds} s`);
      }
      if (outcome.kind === 'exhausted') {
        await deps.queue.redeliverIn(record.receiptHandle, 0);
        throw new DeliveryPending('retries exhausted');
      }
      // Nothing was sent: the queue's own visibility timeout decides when it is tried again.
      if (outcome.kind === 'unsigned') throw new DeliveryPending('signing secrets could not be opened');
    };
    countOutcomes(sent);
    return processPartialResponse(event, settle, processor, { context, throwOnFullBatchFailure: false });
  };
}

function logOutcome(message: DeliveryMessage, outcome: SendOutcome): void {
  const fields = { deliveryId: message.deliveryId, subscriptionId: message.subscriptionId, event: message.envelope.idempotencyKey };
  if ('attempt' in outcome) logger.info('delivery attempt', { ...fields, ...outcome.attempt, next: outcome.kind });
  else if (outcome.kind === 'unsigned') logger.error('delivery not signed', { ...fields, reason: outcome.reason });
  else
    logger.info('delivery not attempted', { ...fields, result: outcome.kind, ...('reason' in outcome ? { reason: outcome.reason } : {}) });
}

/** Attempts that delivered and attempts that did not (of which some will be tried again): the delivery success rate's parts. */
function countOutcomes(outcomes: readonly SendOutcome[]): void {
  const of = (...kinds: SendOutcome['kind'][]) => outcomes.filter((outcome) => kinds.includes(outcome.kind)).length;
  count(BusinessMetric.deliveriesSucceeded, of('delivered'));
  count(BusinessMetric.deliveriesFailed, of('retry', 'exhausted', 'gone'));
  count(BusinessMetric.deliveriesRetried, of('retry'));
}
