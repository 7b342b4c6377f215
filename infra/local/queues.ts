import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';

export interface QueueDefinition {
  readonly name: string;
  readonly visibilityTimeoutSeconds: number;
  /** Messages received this many times without being deleted move to the dead-letter queue. */
  readonly dlq?: { readonly name: string; readonly maxReceiveCount: number };
}

/** A queue of the local topology and the variable that carries its URL to the functions. */
export interface LocalQueueDefinition extends QueueDefinition {
  readonly id: string;
  readonly envVar: string;
  readonly dlqEnvVar?: string;
}

/**
 * Webhook deliveries: the change detector sends, the sender receives and retries through visibility.
 * Twelve receives span about three days on the retry schedule (immediately, 5 s, 5 min, 30 min, 2 h,
 * 5 h, then every 10 h) before a message is parked in the dead-letter queue.
 */
export const deliveriesQueue: LocalQueueDefinition = {
  id: 'deliveries',
  envVar: 'DELIVERIES_QUEUE_URL',
  dlqEnvVar: 'DELIVERIES_DLQ_URL',
  name: 'bureau-deliveries',
  visibilityTimeoutSeconds: 60,
  dlq: { name: 'bureau-deliveries-dlq', maxReceiveCount: 12 },
};

export const localQueues: readonly LocalQueueDefinition[] = [deliveriesQueue];

export interface EnsuredQueue {
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly dlq?: { readonly queueUrl: string; readonly queueArn: string };
}

async function createQueue(
  client: SQSClient,
  name: string,
  attributes: Record<string, string>,
): Promise<{ queueUrl: string; queueArn: string }> {
  const created = await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  const queueUrl = created.QueueUrl;
  if (!queueUrl) throw new Error(`CreateQueue returned no URL for ${name}`);
  const described = await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
  const queueArn = described.Attributes?.QueueArn;
  if (!queueArn) throw new Error(`GetQueueAttributes returned no ARN for ${name}`);
  return { queueUrl, queueArn };
}

/** Creates the queue (and its dead-letter queue first) when missing; CreateQueue is idempotent for equal attributes. */
export async function ensureQueue(client: SQSClient, def: QueueDefinition): Promise<EnsuredQueue> {
  const dlq = def.dlq ? await createQueue(client, def.dlq.name, {}) : undefined;
  const attributes: Record<string, string> = { VisibilityTimeout: String(def.visibilityTimeoutSeconds) };
  if (def.dlq && dlq) {
    attributes.RedrivePolicy = JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: def.dlq.maxReceiveCount });
  }
  const queue = await createQueue(client, def.name, attributes);
  return dlq ? { ...queue, dlq } : queue;
}
