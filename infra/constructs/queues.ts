import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { allQueues, type QueueDefinition } from '../../shared/queues/queues';

/** An SQS queue and its dead-letter queue, built from the shared definition. */
export class BureauQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(
    scope: Construct,
    readonly definition: QueueDefinition,
  ) {
    super(scope, definition.id);
    this.deadLetterQueue = new Queue(this, 'DeadLetter', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.seconds(definition.deadLetter.retentionSeconds),
    });
    this.queue = new Queue(this, 'Queue', {
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
