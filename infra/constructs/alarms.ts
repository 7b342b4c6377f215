import { Aws, Duration } from 'aws-cdk-lib';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AnomalyDetectionAlarm,
  type CfnAlarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { BusinessMetric, METRICS_NAMESPACE, STREAM_DIMENSION } from '../../shared/observability/metrics';
import { SERVICE_DIMENSION, SERVICE_NAME } from '../../shared/observability/service';
import { deliveriesQueue, type QueueDefinition, streamFailuresQueue } from '../../shared/queues/queues';
import { MAX_RETRY_DELAY_SECONDS, RETRY_DELAYS_SECONDS } from '../../shared/webhooks/retry-schedule';

export interface AlarmsProps {
  /** Each subscribed to the alarm topic (AWS asks each address to confirm once). */
  readonly emails?: readonly string[];
  /**
   * SNS topics of the operator's own (a pager's, an AWS Chatbot channel's) that every alarm also
   * notifies, as alarm and OK action alike; each must be in this stack's region, since an alarm
   * notifies topics of its own region only.
   */
  readonly topicArns?: readonly string[];
}

const period = Duration.minutes(5);

/** A metric the functions write as EMF (shared/observability/metrics.ts), summed over the period. */
export const serviceMetric = (name: BusinessMetric, periodOverride = period) =>
  new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { [SERVICE_DIMENSION]: SERVICE_NAME },
    statistic: 'Sum',
    period: periodOverride,
  });

/** A stream metric of one Companies House stream (the consumer adds STREAM_DIMENSION to its metrics). */
export const streamMetric = (name: BusinessMetric, stream: string, statistic: 'Sum' | 'Maximum', periodOverride = period) =>
  new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { [SERVICE_DIMENSION]: SERVICE_NAME, [STREAM_DIMENSION]: stream },
    statistic,
    period: periodOverride,
  });

/** Ten minutes behind the register, twice running: more than a catch-up after a handover or a redeploy. */
export const STREAM_LAG_ALARM_SECONDS = 600;
/** No event read on any stream for this long: the consumer is not reading (no key, a revoked one, or failing). */
export const STREAMS_SILENT_HOURS = 3;

interface AlarmRule {
  readonly threshold: number;
  /** Breaching periods out of `evaluationPeriods` before it fires: one bad minute is not an incident. */
  readonly datapointsToAlarm?: number;
  readonly evaluationPeriods?: number;
  readonly comparison?: ComparisonOperator;
  /** Not breaching unless said: most metrics are counts that are simply absent while nothing happens. */
  readonly missingData?: TreatMissingData;
  readonly description: string;
}

/** Six hours: time to fix a replayer that keeps failing before the stream's 24 hours run out. */
const STREAM_REPLAY_ALARM_SECONDS = 6 * 3600;

/** Throttled requests per 5 minutes on one table, every 5 minutes for 15, before a person is needed. */
export const TABLE_THROTTLES_ALARM = 50;
/** DynamoDB internal errors per 5 minutes on one table. */
export const TABLE_SYSTEM_ERRORS_ALARM = 5;
/** Throttling starts at 100 %: 80 leaves the time to ask for a higher quota, which AWS grants in hours to days. */
export const ACCOUNT_CONCURRENCY_ALARM_PERCENT = 80;
/** The 5xx share CloudFront may show before a person looks, and the requests per 5 minutes it is judged over. */
export const DISTRIBUTION_5XX_ALARM_PERCENT = 5;
export const DISTRIBUTION_MIN_REQUESTS = 100;
/** Blocked requests per 5 minutes below which no spike is news: one request a second, what a single scanner makes. */
export const FIREWALL_BLOCKED_FLOOR = 300;
/** Wide, so that a busy evening is inside the band and only a step change breaks it. */
const FIREWALL_BAND_STD_DEVS = 4;

/**
 * How long a parked message may wait: SQS drops it 14 days after it was first sent, and a delivery
 * may have spent up to six of those on its queue before it was parked, so this still leaves days.
 */
export const DEAD_LETTER_AGE_ALARM = Duration.days(3);

/**
 * How old a work queue's oldest message may grow before nothing is taking it; none where another
 * alarm watches the age already (the stream failure pointers: StreamFailuresOldest, bound by the
 * stream's 24 hours).
 */
export function workQueueMaxAge(definition: QueueDefinition): Duration | undefined {
  if (definition.id === streamFailuresQueue.id) return undefined;
  // The sender keeps a retry on the queue, hidden until it is due, so a delivery's normal age is its
  // whole schedule: at worst every delay stretched to the 12-hour cap by a receiver's Retry-After.
  if (definition.id === deliveriesQueue.id) return Duration.seconds(RETRY_DELAYS_SECONDS.length * MAX_RETRY_DELAY_SECONDS + 12 * 3600);
  // Any other queue retries by its visibility timeout alone, and parks a message after its last receive.
  return Duration.seconds(2 * definition.deadLetter.maxReceiveCount * definition.visibilityTimeoutSeconds);
}

export interface TableAlarmOptions {
  /** When the table is throttled by design, said in the alarm's description so the reader knows. */
  readonly throttledOnPurpose?: string;
}

export interface MessageAgeRule {
  /** Older than this, the message needs a person. */
  readonly maxAge: Duration;
  /** The queue's retention: when SQS deletes the message. */
  readonly retention: Duration;
  /** Reads "A fan-out step", "A delivery". */
  readonly what: string;
  readonly deadLetter?: boolean;
}

/**
 * Operator alarms, each with an alarm and an OK action to one encrypted SNS topic and to each of the
 * operator's own topics, so a notification always says when the trouble is over. Thresholds follow
 * one rule: fire on what needs a person, at once where the event should never happen (a 5xx, a dead
 * letter), after a sustained breach where a blip is normal (latency, throttles, a backlog, failing
 * deliveries). Each description names its entry in docs/operations.md, "Alarms".
 */
export class Alarms extends Construct {
  readonly topic: Topic;
  readonly all: Alarm[] = [];
  private readonly actions: SnsAction[];

  constructor(scope: Construct, id: string, props: AlarmsProps = {}) {
    super(scope, id);
    const key = new Key(this, 'TopicKey', { description: 'Encrypts Bureau alarm notifications', enableKeyRotation: true });
    // CloudWatch publishes to an encrypted topic only if it may use the topic's key: this account's alarms only.
    key.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
    );
    this.topic = new Topic(this, 'Topic', { displayName: 'Bureau alarms', masterKey: key, enforceSSL: true });
    for (const email of props.emails ?? []) this.topic.addSubscription(new EmailSubscription(email));
    this.actions = [
      new SnsAction(this.topic),
      ...(props.topicArns ?? []).map((arn, index) => new SnsAction(Topic.fromTopicArn(this, `OperatorTopic${index}`, arn))),
    ];
  }

  watchFunction(fn: IFunction, timeout: Duration): void {
    const name = fn.node.id;
    this.add(`${name}Errors`, fn.metricErrors({ period, statistic: 'Sum' }), {
      threshold: 1,
      description: `The ${name} function failed an invocation (see its log group)`,
    });
    this.add(`${name}Throttles`, fn.metricThrottles({ period, statistic: 'Sum' }), {
      threshold: 10,
      datapointsToAlarm: 2,
      evaluationPeriods: 3,
      description: `The ${name} function was throttled 10 times or more in two of three 5-minute periods: the account's concurrency is short`,
    });
    this.add(`${name}NearTimeout`, fn.metricDuration({ period, statistic: 'p99' }), {
      threshold: timeout.toMilliseconds() * 0.8,
      datapointsToAlarm: 3,
      evaluationPeriods: 3,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      description: `The ${name} function's p99 duration has been above 80 % of its timeout for 15 minutes`,
    });
  }

  /** A message parked in a dead-letter queue is a delivery or fan-out that needs an operator. */
  watchDeadLetterQueue(id: string, queue: IQueue, what: string): void {
    this.add(`${id}DeadLetters`, queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }), {
      threshold: 1,
      description: `${what} waits in a dead-letter queue: see docs/operations.md, "Alarms"`,
    });
  }

  /** Work that is ready and not being taken: the consumers are failing or too few. */
  watchBacklog(id: string, queue: IQueue, maxVisible: number, what: string): void {
    this.add(`${id}Backlog`, queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Minimum' }), {
      threshold: maxVisible,
      datapointsToAlarm: 3,
      evaluationPeriods: 3,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      description: `More than ${maxVisible} ${what} have waited for 15 minutes`,
    });
  }

  /**
   * Stream failure pointers the replayer has not cleared for hours (the stream keeps records for 24),
   * and records that were gone from the stream when it came to them: changes no webhook will tell.
   */
  watchStreamReplay(queue: IQueue): void {
    this.add('StreamFailuresOldest', queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }), {
      threshold: STREAM_REPLAY_ALARM_SECONDS,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      description:
        'A companies stream batch has waited hours to be replayed; after 24 its records leave the stream: see docs/operations.md, "Alarms"',
    });
    this.add('StreamRecordsLost', serviceMetric(BusinessMetric.streamRecordsLost), {
      threshold: 1,
      description: 'Companies stream records were gone before they could be replayed: see docs/operations.md, "Alarms"',
    });
  }

  /** Change events run late when the detector falls this far behind the companies stream. */
  watchStreamAge(fn: IFunction, maxAgeSeconds: number): void {
    this.add(`${fn.node.id}IteratorAge`, fn.metric('IteratorAge', { period, statistic: 'Maximum' }), {
      threshold: maxAgeSeconds * 1000,
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      description: `The ${fn.node.id} function is more than ${maxAgeSeconds} s behind the companies stream`,
    });
  }

  /**
   * An execution that failed, timed out or was stopped: a register import that did not finish (its
   * summary.json names the failed batches), or chunks that failed after their retries.
   */
  watchRegisterImport(id: string, stateMachine: IStateMachine): void {
    this.add(
      `${id}ExecutionsFailed`,
      new MathExpression({
        expression: 'failed + timedOut + aborted',
        usingMetrics: {
          failed: stateMachine.metricFailed({ period, statistic: 'Sum' }),
          timedOut: stateMachine.metricTimedOut({ period, statistic: 'Sum' }),
          aborted: stateMachine.metricAborted({ period, statistic: 'Sum' }),
        },
        period,
        label: 'Register imports that did not finish',
      }),
      {
        threshold: 1,
        description: 'A register import failed, timed out or was stopped: see docs/deploy.md, "Loading the register"',
      },
    );
    this.add(`${id}FailedBatches`, serviceMetric(BusinessMetric.registerImportFailedBatches), {
      threshold: 1,
      description: "Chunks of a register import failed after their retries: the import's summary.json names them",
    });
  }

  /**
   * The Companies House streams: per stream, events applied more than ten minutes after the register
   * published them (sustained), and any 416 (the checkpoint fell out of the register's window: events
   * were lost); and all streams silent for hours, which no error may show when the key is missing.
   */
  watchRegisterStreams(streams: readonly string[]): void {
    for (const stream of streams) {
      const id = stream.replace(/(^|-)([a-z])/g, (_, _dash, letter: string) => letter.toUpperCase());
      this.add(`Stream${id}Lag`, streamMetric(BusinessMetric.streamLag, stream, 'Maximum'), {
        threshold: STREAM_LAG_ALARM_SECONDS,
        evaluationPeriods: 2,
        datapointsToAlarm: 2,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        description: `The ${stream} stream's events have been applied more than ${STREAM_LAG_ALARM_SECONDS / 60} minutes after Companies House published them for 10 minutes: see docs/operations.md, "Alarms"`,
      });
      this.add(`Stream${id}Gap`, streamMetric(BusinessMetric.streamGaps, stream, 'Sum'), {
        threshold: 1,
        description: `The ${stream} stream refused to resume from its checkpoint (HTTP 416): events in between were never read; the next bulk snapshot re-bases them (docs/operations.md, "Alarms")`,
      });
    }
    if (streams.length === 0) return;
    this.add('StreamsSilent', serviceMetric(BusinessMetric.streamEventsRead, Duration.hours(1)), {
      threshold: 1,
      evaluationPeriods: STREAMS_SILENT_HOURS,
      datapointsToAlarm: STREAMS_SILENT_HOURS,
      comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
      // No datapoint at all is exactly what a consumer that never connects leaves behind.
      missingData: TreatMissingData.BREACHING,
      description: `No Companies House stream event was read for ${STREAMS_SILENT_HOURS} hours: the stream key is missing or refused, or the consumer fails (see docs/operations.md, "Alarms")`,
    });
  }

  /**
   * A function that stops at a deadline of its own by design (the stream consumer hands over before
   * its timeout): its p99 is always near the timeout, so its near-timeout alarm fires only past the
   * deadline it keeps, when it was cut off without handing over.
   */
  runsToDeadline(fn: IFunction, overrunAfter: Duration): void {
    const alarm = this.node.tryFindChild(`${fn.node.id}NearTimeout`) as Alarm | undefined;
    if (!alarm) throw new Error(`No near-timeout alarm for ${fn.node.id}: watch the function first`);
    const cfn = alarm.node.defaultChild as CfnAlarm;
    cfn.threshold = overrunAfter.toMilliseconds();
    cfn.alarmDescription = `The ${fn.node.id} function ran past its handover (${overrunAfter.toSeconds()} s) for 15 minutes: Lambda cut it off before it released its lease, so its successor waited for the lease to expire`;
  }

  watchApi(stage: HttpStage): void {
    this.add('Api5xx', stage.metricServerError({ period, statistic: 'Sum' }), {
      threshold: 1,
      description: 'The API answered with a 5xx status: a client can never cause one, so each is a defect or an outage',
    });
    this.add('ApiLatency', stage.metricLatency({ period, statistic: 'p99' }), {
      threshold: 2_000,
      datapointsToAlarm: 3,
      evaluationPeriods: 3,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      description: 'The API p99 latency has been above 2 s for 15 minutes',
    });
    this.add(
      'Api4xxShare',
      new MathExpression({
        expression: 'IF(requests >= 100, 100 * clientErrors / requests, 0)',
        usingMetrics: {
          requests: stage.metricCount({ period: Duration.minutes(15), statistic: 'Sum' }),
          clientErrors: stage.metricClientError({ period: Duration.minutes(15), statistic: 'Sum' }),
        },
        period: Duration.minutes(15),
        label: '4xx share of requests (%)',
      }),
      {
        threshold: 50,
        evaluationPeriods: 2,
        datapointsToAlarm: 2,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        description:
          'More than half of the API requests were refused (4xx) for 30 minutes: a client is broken, or a credential leaked and is being tried',
      },
    );
    this.add('UnhandledErrors', serviceMetric(BusinessMetric.unhandledErrors), {
      threshold: 1,
      description:
        'A function answered a request with a 500 after an exception no code path expected (see the "unhandled error" log lines)',
    });
  }

  /** Attempts that reached the receiver and got a 2xx, among all attempts, over an hour with enough traffic to judge. */
  watchDeliverySuccess(): MathExpression {
    const rate = deliverySuccessRate(Duration.hours(1));
    this.add('DeliverySuccessRate', rate, {
      threshold: 90,
      evaluationPeriods: 1,
      comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
      description:
        'Fewer than 90 % of webhook delivery attempts succeeded in the last hour (with 20 or more attempts): receivers are failing, or the sender is',
    });
    return rate;
  }

  /**
   * A table's throttled requests and DynamoDB's own errors, over every operation. Each is one Metrics
   * Insights query (the operations are a dimension of both metrics, and SystemErrors has no
   * per-table total): a math expression summing the operations one by one would pass CloudWatch's
   * 10 metrics an alarm may use, and miss an operation the code starts calling later.
   * ThrottledRequests rather than Read/WriteThrottleEvents because it counts the requests that
   * failed, a write held back by an index's capacity included, where the events count per index.
   */
  watchTable(table: ITable, options: TableAlarmOptions = {}): void {
    const name = table.node.id;
    const insights = (metricName: TableMetric) => tableMetric(table, metricName);
    // The SDK retries a throttled request, so a few cost latency only; throttling for 15 minutes is
    // a hot key or the on-demand ceiling, and requests are failing after their retries.
    this.add(`${name}TableThrottles`, insights('ThrottledRequests'), {
      threshold: TABLE_THROTTLES_ALARM,
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
      description: `The ${name} table throttled ${TABLE_THROTTLES_ALARM} or more requests in each 5 minutes for 15 minutes${options.throttledOnPurpose ? ` (${options.throttledOnPurpose})` : ''}: see docs/operations.md, "Alarms"`,
    });
    // A 500 from DynamoDB is retried too, and one now and then is normal; a run of them is an AWS event.
    this.add(`${name}TableSystemErrors`, insights('SystemErrors'), {
      threshold: TABLE_SYSTEM_ERRORS_ALARM,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: `DynamoDB answered ${TABLE_SYSTEM_ERRORS_ALARM} or more requests to the ${name} table with an internal error in two of three 5-minute periods: see docs/operations.md, "Alarms"`,
    });
  }

  /**
   * The account's concurrent Lambda executions against its quota (AWS/Usage, the only namespace
   * SERVICE_QUOTA reads): every function of the account shares it, and at 100 % all are throttled,
   * the API's included. A new account's quota can be as low as 10.
   */
  watchAccountConcurrency(): void {
    this.add('AccountConcurrency', accountConcurrencyPercent(), {
      threshold: ACCOUNT_CONCURRENCY_ALARM_PERCENT,
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
      description: `The account's Lambda concurrency has peaked at ${ACCOUNT_CONCURRENCY_ALARM_PERCENT} % of its quota or more in every 5 minutes for 15 minutes; at 100 % every function is throttled: see docs/operations.md, "Alarms"`,
    });
  }

  /**
   * The age of the oldest message of a queue. On a work queue, past the longest its retries can keep
   * a message there: nothing is taking it. On a dead-letter queue, long before SQS drops what is
   * parked: a standard queue's message expires counted from when it was first sent, while the
   * dead-letter queue's age counts from when it was parked.
   */
  watchMessageAge(id: string, queue: IQueue, rule: MessageAgeRule): void {
    const days = (duration: Duration) => `${+(duration.toHours() / 24).toFixed(1)} days`;
    const age = rule.maxAge.toHours() >= 48 ? days(rule.maxAge) : `${rule.maxAge.toMinutes()} minutes`;
    this.add(`${id}Oldest`, queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }), {
      threshold: rule.maxAge.toSeconds(),
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      description: rule.deadLetter
        ? `${rule.what} has been parked for more than ${age}; SQS deletes it ${days(rule.retention)} after it was first sent, not after it was parked: see docs/operations.md, "Alarms"`
        : `${rule.what} has waited more than ${age}, longer than its retries keep one, so nothing is taking it; SQS deletes it ${days(rule.retention)} after it was sent: see docs/operations.md, "Alarms"`,
    });
  }

  /** The ages of one queue definition's messages: on its queue, and parked in its dead-letter queue. */
  watchQueueAges(definition: QueueDefinition, queue: IQueue, deadLetterQueue: IQueue): void {
    const what = `A ${definition.id} message`;
    const maxAge = workQueueMaxAge(definition);
    if (maxAge)
      this.watchMessageAge(`${definition.id}Queue`, queue, { maxAge, what, retention: Duration.seconds(definition.retentionSeconds) });
    this.watchMessageAge(`${definition.id}QueueDeadLetter`, deadLetterQueue, {
      maxAge: DEAD_LETTER_AGE_ALARM,
      what,
      retention: Duration.seconds(definition.deadLetter.retentionSeconds),
      deadLetter: true,
    });
  }

  /**
   * CloudFront's 5xx share of requests (its own errors and the API's, as viewers saw them), in
   * us-east-1 where CloudFront publishes it. Judged only over enough requests: with fewer than
   * DISTRIBUTION_MIN_REQUESTS in 5 minutes, a handful of failures would already be a few percent.
   */
  watchDistribution(distributionId: string): void {
    const dimensionsMap = { DistributionId: distributionId, Region: 'Global' };
    this.add(
      'Distribution5xxRate',
      new MathExpression({
        expression: `IF(requests >= ${DISTRIBUTION_MIN_REQUESTS}, errorRate, 0)`,
        usingMetrics: {
          requests: new Metric({ namespace: 'AWS/CloudFront', metricName: 'Requests', dimensionsMap, statistic: 'Sum', period }),
          errorRate: new Metric({ namespace: 'AWS/CloudFront', metricName: '5xxErrorRate', dimensionsMap, statistic: 'Average', period }),
        },
        period,
        label: 'CloudFront 5xx (% of requests)',
      }),
      {
        threshold: DISTRIBUTION_5XX_ALARM_PERCENT,
        evaluationPeriods: 3,
        datapointsToAlarm: 3,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        description: `More than ${DISTRIBUTION_5XX_ALARM_PERCENT} % of CloudFront's answers were 5xx for 15 minutes (with ${DISTRIBUTION_MIN_REQUESTS} or more requests in each 5): see docs/operations.md, "Alarms"`,
      },
    );
  }

  /**
   * Requests the web ACL blocked, all rules together, well above what it usually blocks: an attack
   * being held off, or, as likely, a client of ours blocked by a rule. An anomaly band, because what
   * is usual differs between stages and hours; over a floor, because on a quiet stage the band
   * hugs zero and a single scanner would break it.
   */
  watchFirewall(webAclName: string): void {
    const blocked = new Metric({
      namespace: 'AWS/WAFV2',
      metricName: 'BlockedRequests',
      dimensionsMap: { WebACL: webAclName, Rule: 'ALL' },
      statistic: 'Sum',
      period,
    });
    this.notify(
      new AnomalyDetectionAlarm(this, 'FirewallBlockedSpike', {
        metric: new MathExpression({
          expression: `IF(blocked >= ${FIREWALL_BLOCKED_FLOOR}, blocked, 0)`,
          usingMetrics: { blocked },
          period,
          label: 'Blocked requests over the floor',
        }),
        stdDevs: FIREWALL_BAND_STD_DEVS,
        comparisonOperator: ComparisonOperator.GREATER_THAN_UPPER_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: `AWS WAF blocked ${FIREWALL_BLOCKED_FLOOR} or more requests in 5 minutes, above its usual band, in two of three 5-minute periods: see docs/operations.md, "Alarms"`,
      }),
    );
  }

  private add(id: string, metric: IMetric, rule: AlarmRule): void {
    this.notify(
      new Alarm(this, id, {
        metric,
        threshold: rule.threshold,
        evaluationPeriods: rule.evaluationPeriods ?? 1,
        datapointsToAlarm: rule.datapointsToAlarm ?? rule.evaluationPeriods ?? 1,
        comparisonOperator: rule.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: rule.missingData ?? TreatMissingData.NOT_BREACHING,
        alarmDescription: rule.description,
      }),
    );
  }

  private notify(alarm: Alarm): void {
    alarm.addAlarmAction(...this.actions);
    alarm.addOkAction(...this.actions);
    this.all.push(alarm);
  }
}

type TableMetric = 'ThrottledRequests' | 'SystemErrors';

/** One table's metric summed over every operation: a Metrics Insights query, one series however many operations report. */
export function tableMetric(table: ITable, metricName: TableMetric): MathExpression {
  return new MathExpression({
    expression: `SELECT SUM(${metricName}) FROM SCHEMA("AWS/DynamoDB", Operation, TableName) WHERE TableName = '${table.tableName}'`,
    period,
    label: `${table.node.id} ${metricName}`,
  });
}

/** The account's peak concurrent Lambda executions in percent of its quota. */
export function accountConcurrencyPercent(): MathExpression {
  const used = new Metric({
    namespace: 'AWS/Usage',
    metricName: 'ResourceCount',
    dimensionsMap: { Service: 'Lambda', Resource: 'ConcurrentExecutions', Type: 'Resource', Class: 'None' },
    statistic: 'Maximum',
    period,
  });
  return new MathExpression({
    expression: '100 * used / SERVICE_QUOTA(used)',
    usingMetrics: { used },
    period,
    label: 'Lambda concurrency (% of the account quota)',
  });
}

/** Delivery success in percent; 100 while there are fewer than 20 attempts to judge by. */
export function deliverySuccessRate(over: Duration): MathExpression {
  return new MathExpression({
    expression: 'IF(succeeded + failed >= 20, 100 * succeeded / (succeeded + failed), 100)',
    usingMetrics: {
      succeeded: serviceMetric(BusinessMetric.deliveriesSucceeded, over),
      failed: serviceMetric(BusinessMetric.deliveriesFailed, over),
    },
    period: over,
    label: 'Delivery success (%)',
  });
}
