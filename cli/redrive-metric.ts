import { type CloudWatchClient, type MetricDatum, PutMetricDataCommand, StandardUnit } from '@aws-sdk/client-cloudwatch';
import { METRICS_NAMESPACE, OperatorMetric, QUEUE_DIMENSION } from '../shared/observability/metrics';
import { SERVICE_DIMENSION, SERVICE_NAME } from '../shared/observability/service';
import type { CliIo } from './io';

/** What one redrive moved out of one dead-letter queue, named by the queue's logical id. */
export interface QueueRedrive {
  readonly queue: string;
  readonly moved: number;
}

/** The part of a CloudWatch client the CLI uses: tests hand in a fake. */
export type MetricSender = Pick<CloudWatchClient, 'send'>;

export function deadLetterRedriveData(redrives: readonly QueueRedrive[], at: Date): MetricDatum[] {
  return redrives.map(({ queue, moved }) => ({
    MetricName: OperatorMetric.deadLetterRedrives,
    Dimensions: [
      { Name: SERVICE_DIMENSION, Value: SERVICE_NAME },
      { Name: QUEUE_DIMENSION, Value: queue },
    ],
    Timestamp: at,
    Value: moved,
    Unit: StandardUnit.Count,
  }));
}

function describe({ queue, moved }: QueueRedrive): string {
  return `${METRICS_NAMESPACE}/${OperatorMetric.deadLetterRedrives} ${SERVICE_DIMENSION}=${SERVICE_NAME} ${QUEUE_DIMENSION}=${queue}: ${moved}`;
}

/**
 * Publishes what a redrive moved, one datum per queue it reached, zeros included (a chart then shows
 * that a redrive ran and found nothing). Without a CloudWatch client (the local runtime) the data are
 * printed only. A failure to publish is a warning: the messages have moved whatever CloudWatch says,
 * and failing the command would invite a second redrive.
 */
export async function reportDeadLetterRedrives(
  redrives: readonly QueueRedrive[],
  io: CliIo,
  cloudWatch: MetricSender | undefined,
  at: Date = new Date(),
): Promise<void> {
  if (redrives.length === 0) return;
  if (!cloudWatch) {
    for (const redrive of redrives) io.err(`metric (local runtime, not published): ${describe(redrive)}`);
    return;
  }
  try {
    await cloudWatch.send(new PutMetricDataCommand({ Namespace: METRICS_NAMESPACE, MetricData: deadLetterRedriveData(redrives, at) }));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    io.err(`warning: the redrive metric could not be published to CloudWatch (${reason}); it counted ${redrives.map(describe).join('; ')}`);
  }
}
