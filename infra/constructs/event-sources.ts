import { Duration, Validations } from 'aws-cdk-lib';
import { FilterCriteria, FilterRule, type Function as LambdaFunction, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { type Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { EventSourceSpec } from '../catalogue';
import type { Alarms } from './alarms';
import { type BureauQueues, ExactGrantQueue } from './queues';
import type { BureauTables } from './tables';

/** The detector is paged when it runs this far behind the stream: a change event a minute late. */
const MAX_STREAM_AGE_SECONDS = 60;

/**
 * Lambda event source mappings built from the catalogue's eventSources, the same settings the local
 * runtime's pollers use. Stream batches that exhaust their retries go to a failure queue (the local
 * runtime writes them to files), never dropped.
 */
export class EventSources extends Construct {
  private failures?: Queue;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: { readonly tables: BureauTables; readonly queues: BureauQueues; readonly alarms: Alarms },
  ) {
    super(scope, id);
  }

  connect(fn: LambdaFunction, source: EventSourceSpec): void {
    if (source.kind === 'queue') {
      const { queue } = this.props.queues.of(source.queue);
      fn.addEventSource(
        new SqsEventSource(queue, {
          batchSize: source.batchSize,
          maxConcurrency: source.maxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
      if (source.changesVisibility) queue.grants.actions(fn, ['sqs:ChangeMessageVisibility']);
      return;
    }
    fn.addEventSource(
      new DynamoEventSource(this.props.tables.of(source.table), {
        // With the oldest record kept: changes made before the mapping existed are not skipped, and
        // their stable idempotency keys let receivers drop what they have seen.
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: source.batchSize,
        bisectBatchOnError: source.bisectBatchOnError,
        retryAttempts: source.maxRetryAttempts,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.failureQueue()),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.or(...source.filter.eventNames),
            dynamodb: { Keys: { [source.filter.key.attribute]: { S: FilterRule.isEqual(source.filter.key.equals) } } },
          }),
        ],
      }),
    );
    this.props.alarms.watchStreamAge(fn, MAX_STREAM_AGE_SECONDS);
  }

  private failureQueue(): Queue {
    if (!this.failures) {
      // Lambda only sends to it (SqsDlq grants through grantSendMessages).
      this.failures = new ExactGrantQueue(this, 'StreamFailures', {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
      });
      Validations.of(this.failures).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason: "It is a dead-letter destination itself: the stream mapping's on-failure queue, alarmed when anything arrives.",
      });
      this.props.alarms.watchDeadLetterQueue('StreamFailures', this.failures, 'A companies stream batch the detector could not handle');
    }
    return this.failures;
  }
}
