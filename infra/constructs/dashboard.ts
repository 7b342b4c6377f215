import { Duration } from 'aws-cdk-lib';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { AlarmStatusWidget, Dashboard, GraphWidget, type IWidget, Metric, SingleValueWidget, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { BusinessMetric, METRICS_NAMESPACE, OperatorMetric, QUEUE_DIMENSION } from '../../shared/observability/metrics';
import { SERVICE_DIMENSION, SERVICE_NAME } from '../../shared/observability/service';
import {
  ACCOUNT_CONCURRENCY_ALARM_PERCENT,
  type Alarms,
  accountConcurrencyPercent,
  deliverySuccessRate,
  STREAM_LAG_ALARM_SECONDS,
  serviceMetric,
  streamMetric,
  tableMetric,
} from './alarms';
import { blockedRequestMetrics } from './edge-firewall';

export interface ServiceDashboardProps {
  readonly stage: HttpStage;
  readonly functions: readonly IFunction[];
  /** The function on the companies stream. */
  readonly streamConsumer?: IFunction;
  readonly queues: ReadonlyArray<{ readonly name: string; readonly queue: IQueue; readonly deadLetters: IQueue }>;
  readonly alarms: Alarms;
  /** The AWS WAF web ACL in front of the service, by name. */
  readonly webAclName?: string;
  /** The Companies House streams the stage consumes. */
  readonly registerStreams?: readonly string[];
  /** The stack's tables, whose throttles are the first suspect when the functions slow down. */
  readonly tables?: readonly ITable[];
}

const period = Duration.minutes(5);
const WIDTH = 8;

/** One CloudWatch dashboard for the whole service, top to bottom in the order an incident is read. */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const { stage, functions, queues } = props;
    const perFunction = (label: string, metric: (fn: IFunction) => ReturnType<IFunction['metricErrors']>): GraphWidget =>
      new GraphWidget({ title: label, width: WIDTH, left: functions.map(metric) });
    const widgets: IWidget[][] = [
      [
        new TextWidget({
          markdown:
            '# Bureau\nPages go to the `AlarmTopicArn` topic, tickets to `TicketTopicArn` (stack outputs). What each alarm means and what to do: docs/operations.md, "Alarms".',
          width: 24,
          height: 2,
        }),
      ],
      [
        new AlarmStatusWidget({ title: 'Pages', alarms: props.alarms.pages, width: 8, height: 4 }),
        new AlarmStatusWidget({ title: 'Tickets', alarms: props.alarms.ticketAlarms, width: 16, height: 4 }),
      ],
      [
        new GraphWidget({ title: 'API requests', width: WIDTH, left: [stage.metricCount({ period, statistic: 'Sum' })] }),
        new GraphWidget({
          title: 'API latency (ms)',
          width: WIDTH,
          left: [stage.metricLatency({ period, statistic: 'p50' }), stage.metricLatency({ period, statistic: 'p99' })],
        }),
        new GraphWidget({
          title: 'API 4xx and 5xx',
          width: WIDTH,
          left: [stage.metricClientError({ period, statistic: 'Sum' }), stage.metricServerError({ period, statistic: 'Sum' })],
        }),
      ],
      [
        perFunction('Function errors', (fn) => fn.metricErrors({ period, statistic: 'Sum', label: fn.node.id })),
        perFunction('Function throttles', (fn) => fn.metricThrottles({ period, statistic: 'Sum', label: fn.node.id })),
        perFunction('Function duration p99 (ms)', (fn) => fn.metricDuration({ period, statistic: 'p99', label: fn.node.id })),
      ],
      [
        new GraphWidget({
          title: 'Companies stream: iterator age (ms)',
          width: WIDTH,
          left: props.streamConsumer ? [props.streamConsumer.metric('IteratorAge', { period, statistic: 'Maximum' })] : [],
        }),
        new GraphWidget({
          title: 'Queues: ready messages and oldest age (s)',
          width: WIDTH,
          left: queues.map(({ name, queue }) =>
            queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum', label: `${name} ready` }),
          ),
          right: queues.map(({ name, queue }) =>
            queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum', label: `${name} oldest` }),
          ),
        }),
        new GraphWidget({
          title: 'Dead-letter queues',
          width: WIDTH,
          left: queues.map(({ name, deadLetters }) =>
            deadLetters.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum', label: `${name} DLQ` }),
          ),
          // Published by `bureau deliveries redrive`: a drop on the left with a bar on the right was an operator, not a consumer.
          right: queues.map(
            ({ name }) =>
              new Metric({
                namespace: METRICS_NAMESPACE,
                metricName: OperatorMetric.deadLetterRedrives,
                dimensionsMap: { [SERVICE_DIMENSION]: SERVICE_NAME, [QUEUE_DIMENSION]: name },
                statistic: 'Sum',
                period,
                label: `${name} redriven`,
              }),
          ),
        }),
      ],
      [
        new SingleValueWidget({ title: 'Delivery success, last hour', width: WIDTH, metrics: [deliverySuccessRate(Duration.hours(1))] }),
        new GraphWidget({
          title: 'Deliveries',
          width: WIDTH,
          left: [BusinessMetric.deliveriesSucceeded, BusinessMetric.deliveriesFailed, BusinessMetric.deliveriesRetried].map((name) =>
            serviceMetric(name),
          ),
        }),
        ...(props.webAclName
          ? [
              new GraphWidget({
                title: 'Firewall: blocked requests by rule',
                width: WIDTH,
                left: blockedRequestMetrics(props.webAclName, period),
              }),
            ]
          : []),
        new GraphWidget({
          title: 'Use of the service',
          width: WIDTH,
          left: [
            BusinessMetric.tokensIssued,
            BusinessMetric.tokenFailures,
            BusinessMetric.searches,
            BusinessMetric.profileFetches,
            BusinessMetric.changeEventsDetected,
            BusinessMetric.unhandledErrors,
          ].map((name) => serviceMetric(name)),
        }),
      ],
    ];
    const tables = props.tables ?? [];
    if (tables.length > 0) {
      widgets.push([
        new GraphWidget({
          title: 'Tables: throttled requests',
          width: WIDTH,
          left: tables.map((table) => tableMetric(table, 'ThrottledRequests').with({ label: table.node.id })),
        }),
        new GraphWidget({
          title: 'Tables: DynamoDB internal errors',
          width: WIDTH,
          left: tables.map((table) => tableMetric(table, 'SystemErrors').with({ label: table.node.id })),
        }),
        new GraphWidget({
          title: 'Lambda concurrency (% of the account quota)',
          width: WIDTH,
          left: [accountConcurrencyPercent()],
          leftAnnotations: [{ value: ACCOUNT_CONCURRENCY_ALARM_PERCENT, label: 'alarm' }],
          leftYAxis: { min: 0, max: 100 },
        }),
      ]);
    }
    const streams = props.registerStreams ?? [];
    if (streams.length > 0) {
      widgets.push([
        new GraphWidget({
          title: 'Companies House streams: events applied',
          width: WIDTH,
          left: streams.map((stream) => streamMetric(BusinessMetric.streamEventsApplied, stream, 'Sum').with({ label: stream })),
        }),
        new GraphWidget({
          title: 'Companies House streams: lag behind the register (s)',
          width: WIDTH,
          left: streams.map((stream) => streamMetric(BusinessMetric.streamLag, stream, 'Maximum').with({ label: stream })),
          leftAnnotations: [{ value: STREAM_LAG_ALARM_SECONDS, label: 'alarm' }],
        }),
        new GraphWidget({
          title: 'Companies House streams: reconnects, skipped events, gaps (416)',
          width: WIDTH,
          left: streams.flatMap((stream) =>
            [BusinessMetric.streamReconnects, BusinessMetric.streamEventsSkipped, BusinessMetric.streamGaps].map((name) =>
              streamMetric(name, stream, 'Sum').with({ label: `${stream} ${name}` }),
            ),
          ),
        }),
      ]);
    }
    this.dashboard = new Dashboard(this, 'Dashboard', { widgets, defaultInterval: Duration.hours(3) });
  }
}
