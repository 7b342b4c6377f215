import { FilterCriteria, FilterRule, type Function as LambdaFunction, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { streamFailuresQueue } from '../../shared/queues/queues';
import type { EventSourceSpec } from '../catalogue';
import type { Alarms } from './alarms';
import type { BureauQueues } from './queues';
import type { BureauTables } from './tables';

/** The detector is paged when it runs this far behind the stream: a change event a minute late. */
const MAX_STREAM_AGE_SECONDS = 60;

/**
 * Lambda event source mappings built from the catalogue's eventSources, the same settings the local
 * runtime's pollers use. A stream batch that exhausts its retries is pointed to on the stream
 * failures queue, whose consumer reads it back from the stream and detects it again.
 */
export class EventSources extends Construct {
  private failuresWatched = false;

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

  /** The stream failures queue, alarmed once however many stream mappings send to it. */
  private failureQueue(): IQueue {
    const { queue } = this.props.queues.of(streamFailuresQueue);
    if (!this.failuresWatched) {
      this.props.alarms.watchStreamReplay(queue);
      this.failuresWatched = true;
    }
    return queue;
  }
}
