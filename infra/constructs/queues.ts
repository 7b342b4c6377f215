import { Duration } from 'aws-cdk-lib';
import type { Grant, IGrantable } from 'aws-cdk-lib/aws-iam';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { QUEUE_MAPPING_ACTIONS } from '../../shared/iam/actions';
import { allQueues, type QueueDefinition } from '../../shared/queues/queues';

/**
 * A queue whose grants hold only what is called: CDK's sending grant adds GetQueueAttributes and
 * GetQueueUrl, its consuming grant ChangeMessageVisibility and GetQueueUrl, none of which our code or
 * a mapping needs (a function that changes visibility gets it from its event source, see
 * event-sources.ts). The stack, SqsEventSource and SqsDlq all grant through these two methods.
 */
export class ExactGrantQueue extends Queue {
  /** SendMessage covers SendMessageBatch; with a KMS key, producers need GenerateDataKey and Decrypt on it. */
  override grantSendMessages(grantee: IGrantable): Grant {
    return this.grants.actions(grantee, ['sqs:SendMessage'], { keyActions: ['kms:GenerateDataKey', 'kms:Decrypt'] });
  }

  /** What a Lambda event source mapping calls with the function's role; with a KMS key, consumers need Decrypt. */
  override grantConsumeMessages(grantee: IGrantable): Grant {
    return this.grants.actions(
      grantee,
      QUEUE_MAPPING_ACTIONS.map((action) => `sqs:${action}`),
      { keyActions: ['kms:Decrypt'] },
    );
  }
}

/** An SQS queue and its dead-letter queue, built from the shared definition. */
export class BureauQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(
    scope: Construct,
    readonly definition: QueueDefinition,
  ) {
    super(scope, definition.id);
    this.deadLetterQueue = new ExactGrantQueue(this, 'DeadLetter', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.seconds(definition.deadLetter.retentionSeconds),
    });
    this.queue = new ExactGrantQueue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
      retentionPeriod: Duration.seconds(definition.retentionSeconds),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: definition.deadLetter.maxReceiveCount },
    });
  }
}

/** Every queue of shared/queues/queues.ts, so a queue added there is deployed with no change here. */
export class BureauQueues extends Construct {
  private readonly byId = new Map<string, BureauQueue>();

  constructor(scope: Construct, id: string, definitions: readonly QueueDefinition[] = allQueues) {
    super(scope, id);
    for (const definition of definitions) this.byId.set(definition.id, new BureauQueue(this, definition));
  }

  get all(): BureauQueue[] {
    return [...this.byId.values()];
  }

  of(definition: QueueDefinition): BureauQueue {
    const queue = this.byId.get(definition.id);
    if (!queue) throw new Error(`Queue ${definition.id} is not part of this stack`);
    return queue;
  }
}
