import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { SERVICE_NAME } from './service';

/** CloudWatch namespace of the service's own metrics; the dashboard and alarms read it too. */
export const METRICS_NAMESPACE = 'Bureau';

/** What the service counts, as CloudWatch metric names. */
export const BusinessMetric = {
  tokensIssued: 'TokensIssued',
  tokenFailures: 'TokenFailures',
  searches: 'Searches',
  profileFetches: 'ProfileFetches',
  changeEventsDetected: 'ChangeEventsDetected',
  /** Companies stream records read back and detected again after the detector gave up on them. */
  streamRecordsReplayed: 'StreamRecordsReplayed',
  /** Records a failure pointer named that the stream no longer held: changes no webhook will tell. */
  streamRecordsLost: 'StreamRecordsLost',
  deliveriesSucceeded: 'DeliveriesSucceeded',
  deliveriesFailed: 'DeliveriesFailed',
  deliveriesRetried: 'DeliveriesRetried',
  /** A request a function could not answer (500): an exception no code path expected. */
  unhandledErrors: 'UnhandledErrors',
  /** Chunks of a register import that failed after their retries (the summary function counts them). */
  registerImportFailedBatches: 'RegisterImportFailedBatches',
  /** A whole snapshot whose sweep was refused: it listed too few of the register's profiles to mark the rest removed. */
  sweepRefused: 'SweepRefused',
  /** Companies House stream events applied to the companies table, per stream (STREAM_DIMENSION). */
  streamEventsApplied: 'StreamEventsApplied',
  /**
   * Stream events read on any stream, applied or not (a company Bureau does not hold is skipped), with
   * no stream dimension: one series that is zero only when no consumer is reading at all.
   */
  streamEventsRead: 'StreamEventsRead',
  /** Seconds from an event's publication to its application, per stream: how far behind the register the profiles are. */
  streamLag: 'StreamLag',
  /** Connections to a stream opened again within one invocation, after a drop or an error. */
  streamReconnects: 'StreamReconnects',
  /** Stream lines refused (unreadable, or a kind the stream does not carry) and events the applier passed over. */
  streamEventsSkipped: 'StreamEventsSkipped',
  /** A stream answered 416: its checkpoint was older than the register keeps, so events in between are lost. */
  streamGaps: 'StreamGaps',
  /** Stream events that failed alone for a lasting reason, kept aside (`bureau streams set-aside`) so the stream moves on. */
  streamEventsSetAside: 'StreamEventsSetAside',
} as const;
export type BusinessMetric = (typeof BusinessMetric)[keyof typeof BusinessMetric];

/**
 * What the operator CLI counts against a deployed stack. A CLI run is no Lambda invocation with a log
 * group to carry EMF, so these go out with PutMetricData, in the same namespace and service dimension.
 */
export const OperatorMetric = {
  /** Messages moved from a dead-letter queue back to its queue by one redrive, per queue. */
  deadLetterRedrives: 'DeadLetterRedrives',
} as const;
export type OperatorMetric = (typeof OperatorMetric)[keyof typeof OperatorMetric];

/** The dimension of the stream metrics naming the Companies House stream (`companies`, `filings`, …). */
export const STREAM_DIMENSION = 'Stream';

/** The dimension of DeadLetterRedrives naming the queue: its logical id (`deliveries`, `fanout`), the same on every stage. */
export const QUEUE_DIMENSION = 'Queue';

/**
 * One Metrics instance per function, written as CloudWatch embedded metric format (EMF) log lines
 * when the invocation ends (the middy middleware flushes it). The service dimension is the function's
 * POWERTOOLS_SERVICE_NAME. The local runtime and the tests turn publishing off.
 */
export const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME });

export function count(metric: BusinessMetric, value = 1): void {
  if (value > 0) metrics.addMetric(metric, MetricUnit.Count, value);
}

/** What one Companies House stream's consumer counts, each under that stream's dimension. */
export interface StreamMetrics {
  applied(events: number): void;
  skipped(events: number): void;
  reconnect(): void;
  gap(): void;
  lagSeconds(seconds: number): void;
  /** Writes what was counted since the last flush as one EMF line: an invocation lasts minutes, alarms look at 5. */
  flush(): void;
}

/**
 * Metrics of one stream, on an instance of their own: the stream is a default dimension there, so
 * nothing else the invocation counts is split by stream, and flushing mid-invocation leaves the
 * shared instance's buffer alone.
 */
export function streamMetrics(stream: string): StreamMetrics {
  const own = new Metrics({
    namespace: METRICS_NAMESPACE,
    serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME,
    defaultDimensions: { [STREAM_DIMENSION]: stream },
  });
  const add = (metric: BusinessMetric, unit: (typeof MetricUnit)[keyof typeof MetricUnit], value: number) => {
    if (value > 0 || metric === BusinessMetric.streamLag) own.addMetric(metric, unit, value);
  };
  return {
    applied: (events) => add(BusinessMetric.streamEventsApplied, MetricUnit.Count, events),
    skipped: (events) => add(BusinessMetric.streamEventsSkipped, MetricUnit.Count, events),
    reconnect: () => add(BusinessMetric.streamReconnects, MetricUnit.Count, 1),
    gap: () => add(BusinessMetric.streamGaps, MetricUnit.Count, 1),
    lagSeconds: (seconds) => add(BusinessMetric.streamLag, MetricUnit.Seconds, seconds),
    flush: () => {
      if (own.hasStoredMetrics()) own.publishStoredMetrics();
    },
  };
}
