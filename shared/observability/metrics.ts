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
