import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { QueueDefinition } from '../shared/queues/queues';

/** A queue as the emulator creates it, with its physical names. */
export interface LocalQueueSpec {
  readonly name: string;
  readonly visibilityTimeoutSeconds: number;
  readonly retentionSeconds?: number;
  /** Messages received this many times without being deleted move to the dead-letter queue. */
  readonly dlq?: { readonly name: string; readonly maxReceiveCount: number; readonly retentionSeconds?: number };
}

/** The queue as the local runtime names it: `bureau-<id>` and `bureau-<id>-dlq`. */
export function localQueueSpec(def: QueueDefinition): LocalQueueSpec {
  return {
    name: `bureau-${def.id}`,
    visibilityTimeoutSeconds: def.visibilityTimeoutSeconds,
    retentionSeconds: def.retentionSeconds,
    dlq: {
      name: `bureau-${def.id}-dlq`,
      maxReceiveCount: def.deadLetter.maxReceiveCount,
      retentionSeconds: def.deadLetter.retentionSeconds,
    },
  };
}

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
export async function ensureQueue(client: SQSClient, spec: LocalQueueSpec): Promise<EnsuredQueue> {
  const dlq = spec.dlq
    ? await createQueue(
        client,
        spec.dlq.name,
        spec.dlq.retentionSeconds ? { MessageRetentionPeriod: String(spec.dlq.retentionSeconds) } : {},
      )
    : undefined;
  const attributes: Record<string, string> = { VisibilityTimeout: String(spec.visibilityTimeoutSeconds) };
  if (spec.retentionSeconds) attributes.MessageRetentionPeriod = String(spec.retentionSeconds);
  if (spec.dlq && dlq) {
    attributes.RedrivePolicy = JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: spec.dlq.maxReceiveCount });
  }
  const queue = await createQueue(client, spec.name, attributes);
  return dlq ? { ...queue, dlq } : queue;
}
