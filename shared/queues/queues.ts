import type { WebhookEnvelope } from '../events/envelope';

/**
 * The one definition of every SQS queue, as shared/storage/tables.ts is for tables: the CDK stack and
 * the local runtime build their queues from these records.
 */
export interface QueueDefinition {
  /** Logical name: the CDK construct id and the local queue name. */
  readonly id: string;
  /** Environment variable that carries the queue URL to the functions that send to it. */
  readonly envVar: string;
  readonly visibilityTimeoutSeconds: number;
  readonly retentionSeconds: number;
  /** Messages received this many times without being deleted move to the dead-letter queue. */
  readonly deadLetter: { readonly maxReceiveCount: number; readonly retentionSeconds: number; readonly envVar: string };
}

const DAY = 24 * 3600;
/** SQS's maximum: time to notice a parked message and redrive it. */
const FOURTEEN_DAYS = 14 * DAY;

/**
 * One message per change event and page of watchers: the fan-out function reads a page, queues its
 * deliveries and queues the next page, so a company watched by any number of clients is fanned out
 * in bounded steps. Visibility is six times the fan-out function's timeout.
 */
/** Where messages of one kind are sent: a queue, or a fake of one in tests. */
export interface TaskQueue<T> {
  send(messages: readonly T[]): Promise<void>;
}

/** A fan-out queue message: one event to fan out, from the watcher after `after` (none: from the first). */
export interface FanoutTask {
  readonly event: WebhookEnvelope;
  readonly after?: string;
}

export const fanoutQueue: QueueDefinition = {
  id: 'fanout',
  envVar: 'FANOUT_QUEUE_URL',
  visibilityTimeoutSeconds: 360,
  retentionSeconds: FOURTEEN_DAYS,
  deadLetter: { maxReceiveCount: 5, retentionSeconds: FOURTEEN_DAYS, envVar: 'FANOUT_DLQ_URL' },
};

/** A deliveries queue message: one event for one subscription, as the fan-out queues it and the sender receives it. */
export interface DeliveryMessage {
  readonly deliveryId: string;
  readonly clientId: string;
  readonly subscriptionId: string;
  readonly envelope: WebhookEnvelope;
  /** Sent again on request: delivered even if an earlier attempt succeeded. */
  readonly manual?: boolean;
  /** Re-sent by a recovery: sent unless it has been delivered since. */
  readonly recovered?: boolean;
  /** Not to be sent before this instant (a recovered delivery's slot in its subscription's pace). */
  readonly dueAt?: string;
  /**
   * The delivery's attempts before this message was queued (a manual retry or a recovery): its own
   * attempts, counted from there, are its place in the retry schedule.
   */
  readonly scheduleFrom?: number;
}

/**
 * A message handed out this often without being settled is one the sender cannot handle at all (it
 * fails on it every time, or hours of throttling): it is parked for an operator. Far above the retry
 * schedule's twelve receives, which the delivery log counts, not the queue.
 */
export const DELIVERY_RECEIVES_BEFORE_PARKING = 100;

/**
 * One message per delivery (event × subscription). The sender retries through visibility on the
 * retry schedule; retention outlasts the whole schedule (about three days) with room to spare.
 * Visibility is six times the sender's timeout: it only matters when a sender dies mid-batch. A
 * delivery whose schedule is spent is kept in the delivery log for recovery, not in the dead-letter
 * queue, which holds only what the sender could not handle.
 */
export const deliveriesQueue: QueueDefinition = {
  id: 'deliveries',
  envVar: 'DELIVERIES_QUEUE_URL',
  visibilityTimeoutSeconds: 180,
  retentionSeconds: FOURTEEN_DAYS,
  deadLetter: { maxReceiveCount: DELIVERY_RECEIVES_BEFORE_PARKING, retentionSeconds: FOURTEEN_DAYS, envVar: 'DELIVERIES_DLQ_URL' },
};

/**
 * The companies stream mapping's on-failure destination: a pointer (shard, first and last sequence
 * numbers) to each batch the detector gave up on, never the records themselves. The stream-replay
 * function reads the records back and detects again; the stream keeps them 24 hours, so a pointer
 * still here after hours is alarmed long before that. Visibility is six times the replayer's timeout.
 */
export const streamFailuresQueue: QueueDefinition = {
  id: 'streamFailures',
  envVar: 'STREAM_FAILURES_QUEUE_URL',
  visibilityTimeoutSeconds: 360,
  retentionSeconds: FOURTEEN_DAYS,
  deadLetter: { maxReceiveCount: 10, retentionSeconds: FOURTEEN_DAYS, envVar: 'STREAM_FAILURES_DLQ_URL' },
};

export const allQueues: readonly QueueDefinition[] = [fanoutQueue, deliveriesQueue, streamFailuresQueue];

/** The queue URL from the function's environment; fails fast at cold start when unset. */
export function queueUrl(def: QueueDefinition, env: NodeJS.ProcessEnv = process.env): string {
  const url = env[def.envVar];
  if (!url) throw new Error(`${def.envVar} is not set`);
  return url;
}
