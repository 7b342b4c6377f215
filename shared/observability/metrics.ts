import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** CloudWatch namespace of the service's own metrics; the dashboard and alarms read it too. */
export const METRICS_NAMESPACE = 'Bureau';

/** What the service counts, as CloudWatch metric names. */
export const BusinessMetric = {
  tokensIssued: 'TokensIssued',
  tokenFailures: 'TokenFailures',
  searches: 'Searches',
  profileFetches: 'ProfileFetches',
  changeEventsDetected: 'ChangeEventsDetected',
  deliveriesSucceeded: 'DeliveriesSucceeded',
  deliveriesFailed: 'DeliveriesFailed',
  deliveriesRetried: 'DeliveriesRetried',
  /** A request a function could not answer (500): an exception no code path expected. */
  unhandledErrors: 'UnhandledErrors',
} as const;
export type BusinessMetric = (typeof BusinessMetric)[keyof typeof BusinessMetric];

/**
 * One Metrics instance per function, written as CloudWatch embedded metric format (EMF) log lines
 * when the invocation ends (the middy middleware flushes it). The service dimension is the function's
 * POWERTOOLS_SERVICE_NAME. The local runtime and the tests turn publishing off.
 */
export const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'bureau' });

export function count(metric: BusinessMetric, value = 1): void {
  if (value > 0) metrics.addMetric(metric, MetricUnit.Count, value);
}
