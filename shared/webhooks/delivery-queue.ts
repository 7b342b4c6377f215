import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../observability/logger';
import { BusinessMetric, count } from '../observability/metrics';
import type { DeliveryMessage } from '../queues/queues';
import { MAX_VISIBILITY_SECONDS } from './retry-schedule';
import type { OnSettled, ReceivedDelivery, SendOutcome } from './sender';

/** What the adapter asks of the deliveries queue: to hand a received message out again after a while. */
export interface RedeliveryQueue {
  redeliverIn(receiptHandle: string, seconds: number): Promise<void>;
}

export interface DeliveryQueueDeps {
  readonly sender: { sendBatch(batch: readonly ReceivedDelivery[], onSettled?: OnSettled): Promise<SendOutcome[]> };
  readonly queue: RedeliveryQueue;
  /** Milliseconds now; default Date.now. */
  readonly now?: () => number;
}

/** Reported as a failure so the queue keeps the message; its visibility already says when it returns. */
class DeliveryPending extends Error {}

/**
 * SQS counts a message's visibility from the moment it was received, and refuses any that would end
 * more than 12 hours after that. The receive happened before the invocation began, by at most this.
 */
const RECEIVE_TO_INVOKE_MARGIN_SECONDS = 60;

/**
 * The longest visibility SQS will grant a message received before `invokedAt`: a retry due later
 * comes back early, finds its time not yet come, and is hidden again for what is left.
 */
export function grantableVisibility(delaySeconds: number, invokedAt: number, now: number): number {
  const held = Math.ceil((now - invokedAt) / 1000) + RECEIVE_TO_INVOKE_MARGIN_SECONDS;
  return Math.max(0, Math.min(delaySeconds, MAX_VISIBILITY_SECONDS - held));
}

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
 * The deliveries queue's Lambda event source, in front of the sender. The batch is sent as a whole
 * (one read, parallel POSTs), and each message is settled the moment its own POST has ended and been
 * logged: one to retry is hidden until its next attempt, so a slow neighbour never delays it. At the
 * end, delivered, dropped, duplicate and dead messages are deleted (a dead one is in the log for
 * recovery), and the others kept: hidden for a retry, or, unsigned or unlogged, left to the queue's
 * own visibility timeout.
 */
export function deliveryQueueHandler(deps: DeliveryQueueDeps): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const processor = new BatchProcessor(EventType.SQS);
  const now = deps.now ?? Date.now;
  return async (event, context) => {
    const invokedAt = now();
    const valid = event.Records.flatMap((record) => {
      const message = deliveryOf(record);
      return message ? [{ record, message }] : [];
    });
    const hide = async (index: number, outcome: SendOutcome): Promise<void> => {
      const record = valid[index]?.record;
      if (!record || (outcome.kind !== 'retry' && outcome.kind !== 'early')) return;
      try {
        await deps.queue.redeliverIn(record.receiptHandle, grantableVisibility(outcome.delaySeconds, invokedAt, now()));
      } catch (error) {
        // The message comes back when its current visibility ends, finds its attempt not yet due, and is hidden again.
        logger.warn('a retry could not be scheduled on the queue', { messageId: record.messageId, error: (error as Error).message });
      }
    };
    const sent = await deps.sender.sendBatch(
      valid.map(({ message }) => ({ message })),
      hide,
    );
    const outcomes = new Map(
      valid.map(({ record, message }, index) => [record.messageId, { message, outcome: sent[index] as SendOutcome }]),
    );

    const settle = async (record: SQSRecord): Promise<void> => {
      const settled = outcomes.get(record.messageId);
      if (!settled) throw new Error(`Message ${record.messageId} is not a delivery`);
      const { message, outcome } = settled;
      logOutcome(message, outcome);
      if (outcome.kind === 'retry' || outcome.kind === 'early') throw new DeliveryPending(`again in ${outcome.delaySeconds} s`);
      // Nothing was recorded: the queue's own visibility timeout decides when it is tried again.
      if (outcome.kind === 'unsigned') throw new DeliveryPending('signing secrets could not be opened');
      if (outcome.kind === 'unrecorded') throw new DeliveryPending('the attempt could not be logged');
    };
    countOutcomes(sent);
    return processPartialResponse(event, settle, processor, { context, throwOnFullBatchFailure: false });
  };
}

function logOutcome(message: DeliveryMessage, outcome: SendOutcome): void {
  const fields = { deliveryId: message.deliveryId, subscriptionId: message.subscriptionId, event: message.envelope.idempotencyKey };
  if ('attempt' in outcome) {
    // The receiver's answer is the subscriber's to read in its delivery log, not ours to keep in the function's logs.
    const { responseBody: _answer, ...attempt } = outcome.attempt;
    logger.info('delivery attempt', { ...fields, ...attempt, next: outcome.kind });
  } else if (outcome.kind === 'unsigned') logger.error('delivery not signed', { ...fields, reason: outcome.reason });
  else if (outcome.kind === 'unrecorded') logger.error('delivery attempt not logged', { ...fields, reason: outcome.reason });
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
