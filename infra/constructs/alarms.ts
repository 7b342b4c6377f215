import { Aws, Duration, Stack } from 'aws-cdk-lib';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  type AlarmBase,
  AlarmRule,
  AlarmState,
  AnomalyDetectionAlarm,
  ComparisonOperator,
  CompositeAlarm,
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
  /** Each subscribed to the paging and the ticket topic (AWS asks each address to confirm once per topic). */
  readonly emails?: readonly string[];
  /**
   * SNS topics of the operator's own (a pager's, an AWS Chatbot channel's) that every page also
   * notifies, as alarm and OK action alike; each must be in this stack's region, since an alarm
   * notifies topics of its own region only. Tickets go to the ticket topic alone.
   */
  readonly topicArns?: readonly string[];
}

/**
 * What wakes a person: each a user-visible failure, a composite alarm over the metric alarms that
 * show it (docs/operations.md, "Alarms"). `plannedWork`: an import or a first load causes it by
 * design, so the planned-work alarm suppresses it while one runs and for an hour after.
 */
export const PAGES = {
  ApiFailing: { plannedWork: false, says: 'The API is answering its callers with errors (5xx)' },
  ApiSlow: { plannedWork: false, says: "The API's p99 latency has been above 2 s for 15 minutes" },
  ChangeEventsLate: { plannedWork: true, says: 'The change detector is behind the companies stream: webhooks and events run late' },
  DeliveriesStuck: { plannedWork: false, says: 'Fan-out steps or webhook deliveries wait on their queues with nothing taking them' },
  DeliveriesDeadLettered: { plannedWork: false, says: 'Fan-out steps or webhook deliveries were parked in a dead-letter queue' },
  StreamReplayAtRisk: {
    plannedWork: false,
    says: 'Companies stream changes wait to be replayed, and the stream drops them 24 hours after they happened',
  },
  RegisterFeedBehind: { plannedWork: true, says: 'The Companies House streams are behind the register, or silent' },
  RegisterImportFailed: { plannedWork: false, says: 'A register import failed, timed out, was stopped, or lost chunks' },
  ConcurrencyRunningOut: { plannedWork: true, says: "The account's Lambda concurrency nears its quota, where every function is throttled" },
  EdgeFailing: { plannedWork: false, says: "CloudFront's answers are failing (5xx) for the API's callers" },
} as const satisfies Record<string, { readonly plannedWork: boolean; readonly says: string }>;
export type PageName = keyof typeof PAGES;

/** Where an alarm goes: into a page (a child of its composite, with no action of its own), or to the ticket topic. */
export type Route = { readonly page: PageName } | 'ticket';

/** How long pages caused by planned work stay suppressed after it ends: the table, the streams and the queues catch up. */
export const PLANNED_WORK_TAIL = Duration.hours(1);

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

interface MetricRule {
  readonly threshold: number;
  /** Breaching periods out of `evaluationPeriods` before it fires: one bad minute is not an incident. */
  readonly datapointsToAlarm?: number;
  readonly evaluationPeriods?: number;
  readonly comparison?: ComparisonOperator;
  /** Not breaching unless said: most metrics are counts that are simply absent while nothing happens. */
  readonly missingData?: TreatMissingData;
  readonly description: string;
}

/**
 * A ticket's count alarm looks back a day (1-hour periods, one breaching is enough), so a fault that
 * recurs all day raises one ticket, not one an hour.
 */
const TICKET_LOOKBACK_HOURS = 24;

/** Requests per 5 minutes the API's error share is counted over, at least: fewer count as this many. */
export const API_MIN_REQUESTS = 50;
/** The share of API requests answered 5xx, in two of three 5-minute periods, that pages. */
export const API_ERROR_PAGE_PERCENT = 5;
/** Requests per hour the unhandled-error share is counted over, at least: one in a quiet hour is 0.1 %. */
export const API_UNHANDLED_MIN_REQUESTS = 1_000;
export const API_UNHANDLED_TICKET_PERCENT = 0.1;
/** Invocations per hour a function's error share is counted over, at least: one failed weekly run is 5 %. */
export const FUNCTION_MIN_INVOCATIONS = 20;
export const FUNCTION_ERROR_TICKET_PERCENT = 5;

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
 * Operator alarms, in two routes. A page wakes a person: about ten composite alarms, each a failure
 * the service's users see, to the paging topic and the operator's own topics, on ALARM and on OK (so
 * a pager resolves the incident by itself). A ticket is for working hours: to the ticket topic, on
 * ALARM only. The metric alarms under a page have no action of their own. Errors are judged as rates
 * over enough traffic, so a busier day is not a noisier one. Each topic lets this account's alarms
 * publish to it (its policy replaces SNS's default, which CloudWatch relies on), and each
 * description names its entry in docs/operations.md, "Alarms".
 */
export class Alarms extends Construct {
  /** Pages: the person on call. */
  readonly paging: Topic;
  /** Tickets: the next working day. */
  readonly tickets: Topic;
  /** Every alarm: pages, their metric alarms, tickets and the planned-work alarm. */
  readonly all: AlarmBase[] = [];
  /** The composite alarms that page, in the order they were raised. */
  readonly pages: CompositeAlarm[] = [];
  /** The alarms that raise tickets. */
  readonly ticketAlarms: AlarmBase[] = [];
  /** While in ALARM, an import or a first load runs: the suppressor of the pages planned work causes. */
  plannedWork?: Alarm;
  private readonly pageActions: SnsAction[];
  private readonly ticketAction: SnsAction;
  private readonly children = new Map<PageName, Alarm[]>();
  private raised = false;

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
    this.paging = alarmTopic(this, 'Topic', 'Bureau pages', key);
    this.tickets = alarmTopic(this, 'TicketTopic', 'Bureau tickets', key);
    for (const email of props.emails ?? []) {
      this.paging.addSubscription(new EmailSubscription(email));
      this.tickets.addSubscription(new EmailSubscription(email));
    }
    this.pageActions = [
      new SnsAction(this.paging),
      ...(props.topicArns ?? []).map((arn, index) => new SnsAction(Topic.fromTopicArn(this, `OperatorTopic${index}`, arn))),
    ];
    this.ticketAction = new SnsAction(this.tickets);
    this.node.addValidation({
      validate: () =>
        !this.raised && [...this.children.values()].some((alarms) => alarms.length > 0)
          ? ['Alarms: pages have alarms under them but were never raised: call raisePages() once every alarm is added']
          : [],
    });
  }

  /**
   * A function with no route of its own (the API's functions are judged by the API's error rate):
   * its failed invocations as a share of its invocations over an hour. Below FUNCTION_MIN_INVOCATIONS
   * the share is of that many, so one failed weekly run still counts and one failure among
   * thousands does not.
   */
  watchFunction(fn: IFunction, timeout: Duration): void {
    const name = fn.node.id;
    const hour = Duration.hours(1);
    this.add(
      `${name}ErrorRate`,
      new MathExpression({
        expression: `100 * errors / IF(invocations >= ${FUNCTION_MIN_INVOCATIONS}, invocations, ${FUNCTION_MIN_INVOCATIONS})`,
        usingMetrics: {
          errors: fn.metricErrors({ period: hour, statistic: 'Sum' }),
          invocations: fn.metricInvocations({ period: hour, statistic: 'Sum' }),
        },
        period: hour,
        label: `${name} failed invocations (%)`,
      }),
      {
        threshold: FUNCTION_ERROR_TICKET_PERCENT,
        evaluationPeriods: TICKET_LOOKBACK_HOURS,
        datapointsToAlarm: 1,
        description: `The ${name} function failed ${FUNCTION_ERROR_TICKET_PERCENT} % or more of its invocations in an hour (of at least ${FUNCTION_MIN_INVOCATIONS}; a run cut off at its ${timeout.toSeconds()} s timeout counts): see docs/operations.md, "Alarms"`,
      },
      'ticket',
    );
  }

  /** A message parked in a dead-letter queue is a fan-out, a delivery or a replay that needs an operator. */
  watchDeadLetterQueue(id: string, queue: IQueue, what: string, page: PageName): void {
    this.add(
      `${id}DeadLetters`,
      queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
      { threshold: 1, description: `${what} waits in a dead-letter queue: see docs/operations.md, "Alarms"` },
      { page },
    );
  }

  /** Work that is ready and not being taken: the consumers are failing or too few. */
  watchBacklog(id: string, queue: IQueue, maxVisible: number, what: string): void {
    this.add(
      `${id}Backlog`,
      queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Minimum' }),
      {
        threshold: maxVisible,
        datapointsToAlarm: 3,
        evaluationPeriods: 3,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        description: `More than ${maxVisible} ${what} have waited for 15 minutes`,
      },
      'ticket',
    );
  }

  /**
   * Stream failure pointers the replayer has not cleared for hours (the stream keeps records for 24),
   * and records that were gone from the stream when it came to them: changes no webhook will tell.
   */
  watchStreamReplay(queue: IQueue): void {
    this.add(
      'StreamFailuresOldest',
      queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }),
      {
        threshold: STREAM_REPLAY_ALARM_SECONDS,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        description:
          'A companies stream batch has waited hours to be replayed; after 24 its records leave the stream: see docs/operations.md, "Alarms"',
      },
      { page: 'StreamReplayAtRisk' },
    );
    this.addCountTicket(
      'StreamRecordsLost',
      BusinessMetric.streamRecordsLost,
      'Companies stream records were gone before they could be replayed: see docs/operations.md, "Alarms"',
    );
  }

  /** Change events run late when the detector falls this far behind the companies stream. */
  watchStreamAge(fn: IFunction, maxAgeSeconds: number): void {
    this.add(
      `${fn.node.id}IteratorAge`,
      fn.metric('IteratorAge', { period, statistic: 'Maximum' }),
      {
        threshold: maxAgeSeconds * 1000,
        evaluationPeriods: 3,
        datapointsToAlarm: 3,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        description: `The ${fn.node.id} function is more than ${maxAgeSeconds} s behind the companies stream`,
      },
      { page: 'ChangeEventsLate' },
    );
  }

  /**
   * An execution that failed, timed out or was stopped: a register import that did not finish (its
   * summary.json names the failed batches), or chunks that failed after their retries. And a sweep
   * the snapshot's coverage refused, which needs a person's judgement, not an incident.
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
      { page: 'RegisterImportFailed' },
    );
    this.add(
      `${id}FailedBatches`,
      serviceMetric(BusinessMetric.registerImportFailedBatches),
      { threshold: 1, description: "Chunks of a register import failed after their retries: the import's summary.json names them" },
      { page: 'RegisterImportFailed' },
    );
    this.addCountTicket(
      'SweepRefused',
      BusinessMetric.sweepRefused,
      'A register snapshot listed under 90 % of the jurisdiction\'s profiles, so its sweep marked none gone: see docs/operations.md, "Alarms"',
    );
  }

  /**
   * An accounts import that did not finish (a window failed after its retries, or the run stopped):
   * a ticket, since figures a day late harm no one while the register's facts stay current.
   */
  watchAccountsImport(id: string, stateMachine: IStateMachine): void {
    this.add(
      `${id}ExecutionsFailed`,
      new MathExpression({
        expression: 'failed + timedOut + aborted',
        usingMetrics: {
          failed: stateMachine.metricFailed({ period: Duration.hours(1), statistic: 'Sum' }),
          timedOut: stateMachine.metricTimedOut({ period: Duration.hours(1), statistic: 'Sum' }),
          aborted: stateMachine.metricAborted({ period: Duration.hours(1), statistic: 'Sum' }),
        },
        period: Duration.hours(1),
        label: 'Accounts imports that did not finish',
      }),
      {
        threshold: 1,
        evaluationPeriods: TICKET_LOOKBACK_HOURS,
        datapointsToAlarm: 1,
        description:
          'An accounts import failed, timed out or was stopped: its summary.json names the failed windows (docs/deploy.md, "Loading filed accounts")',
      },
      'ticket',
    );
  }

  /**
   * While a register import runs (an execution starts, or its chunks and sweep are being imported),
   * and for PLANNED_WORK_TAIL after: the actions suppressor of the pages an import causes by design.
   * It notifies no one.
   */
  watchPlannedWork(stateMachine: IStateMachine, workers: readonly IFunction[]): void {
    const usingMetrics: Record<string, IMetric> = { started: stateMachine.metricStarted({ period, statistic: 'Sum' }) };
    workers.forEach((fn, index) => {
      usingMetrics[`worker${index}`] = fn.metricInvocations({ period, statistic: 'Sum' });
    });
    const alarm = new Alarm(this, 'PlannedWork', {
      metric: new MathExpression({
        expression: Object.keys(usingMetrics)
          .map((name) => `FILL(${name}, 0)`)
          .join(' + '),
        usingMetrics,
        period,
        label: 'Register import work (executions started, chunk and sweep runs)',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription:
        'A register import is running (a first load or a re-import): pages it causes by design are held back until an hour after it ends. Notifies no one: see docs/operations.md, "Alarms"',
    });
    this.plannedWork = alarm;
    this.all.push(alarm);
  }

  /**
   * The Companies House streams: per stream, events applied more than ten minutes after the register
   * published them (sustained), and any 416 (the checkpoint fell out of the register's window: events
   * were lost); all streams silent for hours, which no error may show when the key is missing; and
   * events set aside because they could not be applied.
   */
  watchRegisterStreams(streams: readonly string[]): void {
    for (const stream of streams) {
      const id = stream.replace(/(^|-)([a-z])/g, (_, _dash, letter: string) => letter.toUpperCase());
      this.add(
        `Stream${id}Lag`,
        streamMetric(BusinessMetric.streamLag, stream, 'Maximum'),
        {
          threshold: STREAM_LAG_ALARM_SECONDS,
          evaluationPeriods: 2,
          datapointsToAlarm: 2,
          comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
          description: `The ${stream} stream's events have been applied more than ${STREAM_LAG_ALARM_SECONDS / 60} minutes after Companies House published them for 10 minutes: see docs/operations.md, "Alarms"`,
        },
        { page: 'RegisterFeedBehind' },
      );
      this.add(
        `Stream${id}Gap`,
        streamMetric(BusinessMetric.streamGaps, stream, 'Sum', Duration.hours(1)),
        {
          threshold: 1,
          evaluationPeriods: TICKET_LOOKBACK_HOURS,
          datapointsToAlarm: 1,
          description: `The ${stream} stream refused to resume from its checkpoint (HTTP 416): events in between were never read; the next bulk snapshot re-bases them (docs/operations.md, "Alarms")`,
        },
        'ticket',
      );
    }
    if (streams.length === 0) return;
    this.add(
      'StreamsSilent',
      serviceMetric(BusinessMetric.streamEventsRead, Duration.hours(1)),
      {
        threshold: 1,
        evaluationPeriods: STREAMS_SILENT_HOURS,
        datapointsToAlarm: STREAMS_SILENT_HOURS,
        comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
        // No datapoint at all is exactly what a consumer that never connects leaves behind.
        missingData: TreatMissingData.BREACHING,
        description: `No Companies House stream event was read for ${STREAMS_SILENT_HOURS} hours: the stream key is missing or refused, or the consumer fails (see docs/operations.md, "Alarms")`,
      },
      { page: 'RegisterFeedBehind' },
    );
    this.addCountTicket(
      'StreamEventsSetAside',
      BusinessMetric.streamEventsSetAside,
      'A Companies House stream event could not be applied and was set aside: list and replay with `bureau streams set-aside` (docs/operations.md, "Alarms")',
    );
  }

  /**
   * A function that stops at a deadline of its own by design (the stream consumer hands over before
   * its timeout): its p99 duration past the deadline it keeps means Lambda cut it off without
   * handing over, and its successor waited for the lease.
   */
  runsToDeadline(fn: IFunction, overrunAfter: Duration): void {
    this.add(
      `${fn.node.id}NearTimeout`,
      fn.metricDuration({ period, statistic: 'p99' }),
      {
        threshold: overrunAfter.toMilliseconds(),
        datapointsToAlarm: 3,
        evaluationPeriods: 3,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        description: `The ${fn.node.id} function ran past its handover (${overrunAfter.toSeconds()} s) for 15 minutes: Lambda cut it off before it released its lease, so its successor waited for the lease to expire`,
      },
      'ticket',
    );
  }

  watchApi(stage: HttpStage): void {
    const requests = stage.metricCount({ period, statistic: 'Sum' });
    this.add(
      'ApiErrorRate',
      new MathExpression({
        expression: `100 * serverErrors / IF(requests >= ${API_MIN_REQUESTS}, requests, ${API_MIN_REQUESTS})`,
        usingMetrics: { requests, serverErrors: stage.metricServerError({ period, statistic: 'Sum' }) },
        period,
        label: '5xx share of requests (%)',
      }),
      {
        threshold: API_ERROR_PAGE_PERCENT,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        description: `${API_ERROR_PAGE_PERCENT} % or more of the API's requests were answered 5xx (of at least ${API_MIN_REQUESTS} in 5 minutes) in two of three 5-minute periods: a client can never cause one, so this is an outage`,
      },
      { page: 'ApiFailing' },
    );
    this.add(
      'ApiLatency',
      new MathExpression({
        // A quiet stage's p99 is one slow cold start: judged only with traffic to speak of.
        expression: `IF(requests >= ${API_MIN_REQUESTS}, latency, 0)`,
        usingMetrics: { requests, latency: stage.metricLatency({ period, statistic: 'p99' }) },
        period,
        label: 'API p99 latency (ms), with traffic',
      }),
      {
        threshold: 2_000,
        datapointsToAlarm: 3,
        evaluationPeriods: 3,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        description: `The API p99 latency has been above 2 s for 15 minutes (with ${API_MIN_REQUESTS} or more requests in each 5)`,
      },
      { page: 'ApiSlow' },
    );
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
      'ticket',
    );
    const hour = Duration.hours(1);
    this.add(
      'UnhandledErrors',
      new MathExpression({
        expression: `100 * FILL(unhandled, 0) / IF(requests >= ${API_UNHANDLED_MIN_REQUESTS}, requests, ${API_UNHANDLED_MIN_REQUESTS})`,
        usingMetrics: {
          unhandled: serviceMetric(BusinessMetric.unhandledErrors, hour),
          requests: stage.metricCount({ period: hour, statistic: 'Sum' }),
        },
        period: hour,
        label: 'Unhandled errors (% of requests)',
      }),
      {
        threshold: API_UNHANDLED_TICKET_PERCENT,
        evaluationPeriods: TICKET_LOOKBACK_HOURS,
        datapointsToAlarm: 1,
        description: `Functions answered ${API_UNHANDLED_TICKET_PERCENT} % or more of an hour's requests (of at least ${API_UNHANDLED_MIN_REQUESTS}) with a 500 after an exception no code path expected (see the "unhandled error" log lines)`,
      },
      'ticket',
    );
  }

  /** Attempts that reached the receiver and got a 2xx, among all attempts, over an hour with enough traffic to judge. */
  watchDeliverySuccess(): MathExpression {
    const rate = deliverySuccessRate(Duration.hours(1));
    this.add(
      'DeliverySuccessRate',
      rate,
      {
        threshold: 90,
        evaluationPeriods: 1,
        comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
        description:
          'Fewer than 90 % of webhook delivery attempts succeeded in the last hour (with 20 or more attempts): receivers are failing, or the sender is',
      },
      'ticket',
    );
    return rate;
  }

  /**
   * A table's throttled requests and DynamoDB's own errors, over every operation. Each is one Metrics
   * Insights query (the operations are a dimension of both metrics, and SystemErrors has no
   * per-table total): a math expression summing the operations one by one would pass CloudWatch's
   * 10 metrics an alarm may use, and miss an operation the code starts calling later.
   * ThrottledRequests rather than Read/WriteThrottleEvents because it counts the requests that
   * failed, a write held back by an index's capacity included, where the events count per index.
   * Tickets: what a user sees of them, the API's errors and latency, pages on its own.
   */
  watchTable(table: ITable, options: TableAlarmOptions = {}): void {
    const name = table.node.id;
    const insights = (metricName: TableMetric) => tableMetric(table, metricName);
    // The SDK retries a throttled request, so a few cost latency only; throttling for 15 minutes is
    // a hot key or the on-demand ceiling, and requests are failing after their retries.
    this.add(
      `${name}TableThrottles`,
      insights('ThrottledRequests'),
      {
        threshold: TABLE_THROTTLES_ALARM,
        evaluationPeriods: 3,
        datapointsToAlarm: 3,
        description: `The ${name} table throttled ${TABLE_THROTTLES_ALARM} or more requests in each 5 minutes for 15 minutes${options.throttledOnPurpose ? ` (${options.throttledOnPurpose})` : ''}: see docs/operations.md, "Alarms"`,
      },
      'ticket',
    );
    // A 500 from DynamoDB is retried too, and one now and then is normal; a run of them is an AWS event.
    this.add(
      `${name}TableSystemErrors`,
      insights('SystemErrors'),
      {
        threshold: TABLE_SYSTEM_ERRORS_ALARM,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        description: `DynamoDB answered ${TABLE_SYSTEM_ERRORS_ALARM} or more requests to the ${name} table with an internal error in two of three 5-minute periods: see docs/operations.md, "Alarms"`,
      },
      'ticket',
    );
  }

  /**
   * The account's concurrent Lambda executions against its quota (AWS/Usage, the only namespace
   * SERVICE_QUOTA reads): every function of the account shares it, and at 100 % all are throttled,
   * the API's included. A new account's quota can be as low as 10.
   */
  watchAccountConcurrency(): void {
    this.add(
      'AccountConcurrency',
      accountConcurrencyPercent(),
      {
        threshold: ACCOUNT_CONCURRENCY_ALARM_PERCENT,
        evaluationPeriods: 3,
        datapointsToAlarm: 3,
        description: `The account's Lambda concurrency has peaked at ${ACCOUNT_CONCURRENCY_ALARM_PERCENT} % of its quota or more in every 5 minutes for 15 minutes; at 100 % every function is throttled: see docs/operations.md, "Alarms"`,
      },
      { page: 'ConcurrencyRunningOut' },
    );
  }

  /**
   * The age of the oldest message of a queue. On a work queue, past the longest its retries can keep
   * a message there: nothing is taking it (a page). On a dead-letter queue, long before SQS drops
   * what is parked (a ticket: days are left): a standard queue's message expires counted from when
   * it was first sent, while the dead-letter queue's age counts from when it was parked.
   */
  watchMessageAge(id: string, queue: IQueue, rule: MessageAgeRule, route: Route): void {
    const days = (duration: Duration) => `${+(duration.toHours() / 24).toFixed(1)} days`;
    const age = rule.maxAge.toHours() >= 48 ? days(rule.maxAge) : `${rule.maxAge.toMinutes()} minutes`;
    this.add(
      `${id}Oldest`,
      queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }),
      {
        threshold: rule.maxAge.toSeconds(),
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        description: rule.deadLetter
          ? `${rule.what} has been parked for more than ${age}; SQS deletes it ${days(rule.retention)} after it was first sent, not after it was parked: see docs/operations.md, "Alarms"`
          : `${rule.what} has waited more than ${age}, longer than its retries keep one, so nothing is taking it; SQS deletes it ${days(rule.retention)} after it was sent: see docs/operations.md, "Alarms"`,
      },
      route,
    );
  }

  /** The ages of one queue definition's messages: on its queue (a stuck webhook pages), and parked in its dead-letter queue. */
  watchQueueAges(definition: QueueDefinition, queue: IQueue, deadLetterQueue: IQueue): void {
    const what = `A ${definition.id} message`;
    const maxAge = workQueueMaxAge(definition);
    if (maxAge)
      this.watchMessageAge(
        `${definition.id}Queue`,
        queue,
        { maxAge, what, retention: Duration.seconds(definition.retentionSeconds) },
        { page: 'DeliveriesStuck' },
      );
    this.watchMessageAge(
      `${definition.id}QueueDeadLetter`,
      deadLetterQueue,
      { maxAge: DEAD_LETTER_AGE_ALARM, what, retention: Duration.seconds(definition.deadLetter.retentionSeconds), deadLetter: true },
      'ticket',
    );
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
      { page: 'EdgeFailing' },
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
    this.route(
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
      'ticket',
    );
  }

  /**
   * One composite alarm per page that has alarms under it, named `<stack>-page-<page>` so that
   * `bureau drill --alarms` finds it: in ALARM when any of them is. The pages planned work causes
   * are suppressed while the planned-work alarm is in ALARM and for PLANNED_WORK_TAIL after. Call
   * once, after every alarm is added.
   */
  raisePages(): void {
    if (this.raised) throw new Error('Alarms: the pages are raised already');
    this.raised = true;
    for (const [name, alarms] of this.children) {
      const page = PAGES[name];
      const suppressor = page.plannedWork ? this.plannedWork : undefined;
      const composite = new CompositeAlarm(this, name, {
        compositeAlarmName: `${Stack.of(this).stackName}-page-${name}`,
        alarmRule: AlarmRule.anyOf(...alarms.map((alarm) => AlarmRule.fromAlarm(alarm, AlarmState.ALARM))),
        alarmDescription: `${page.says}${suppressor ? ' (held back while a register import runs)' : ''}: see docs/operations.md, "Alarms"`,
        ...(suppressor
          ? { actionsSuppressor: suppressor, actionsSuppressorWaitPeriod: period, actionsSuppressorExtensionPeriod: PLANNED_WORK_TAIL }
          : {}),
      });
      composite.addAlarmAction(...this.pageActions);
      composite.addOkAction(...this.pageActions);
      this.pages.push(composite);
      this.all.push(composite);
    }
  }

  /** The page an alarm is under, if it is under one. */
  pageOf(alarm: AlarmBase): PageName | undefined {
    for (const [name, alarms] of this.children) if (alarms.includes(alarm as Alarm)) return name;
    return undefined;
  }

  /** A count of a rare event, each occurrence a ticket: looked at over a day, so a recurring one raises one ticket a day. */
  private addCountTicket(id: string, metricName: BusinessMetric, description: string): void {
    this.add(
      id,
      serviceMetric(metricName, Duration.hours(1)),
      { threshold: 1, evaluationPeriods: TICKET_LOOKBACK_HOURS, datapointsToAlarm: 1, description },
      'ticket',
    );
  }

  private add(id: string, metric: IMetric, rule: MetricRule, route: Route): void {
    this.route(
      new Alarm(this, id, {
        metric,
        threshold: rule.threshold,
        evaluationPeriods: rule.evaluationPeriods ?? 1,
        datapointsToAlarm: rule.datapointsToAlarm ?? rule.evaluationPeriods ?? 1,
        comparisonOperator: rule.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: rule.missingData ?? TreatMissingData.NOT_BREACHING,
        alarmDescription: rule.description,
      }),
      route,
    );
  }

  private route(alarm: Alarm, route: Route): void {
    if (route === 'ticket') {
      // A ticket is opened by the ALARM; its end needs no message, the ticket is closed by whoever fixed it.
      alarm.addAlarmAction(this.ticketAction);
      this.ticketAlarms.push(alarm);
    } else {
      if (this.raised) throw new Error(`Alarms: ${alarm.node.id} joins the ${route.page} page after the pages were raised`);
      this.children.set(route.page, [...(this.children.get(route.page) ?? []), alarm]);
    }
    this.all.push(alarm);
  }
}

/**
 * An encrypted topic that only accepts TLS, and that this account's alarms may publish to. The TLS
 * rule makes CDK write a topic policy, which replaces SNS's default one, and that default is what
 * lets CloudWatch publish: without the statement below no alarm notification is ever delivered.
 */
function alarmTopic(scope: Construct, id: string, displayName: string, key: Key): Topic {
  const topic = new Topic(scope, id, { displayName, masterKey: key, enforceSSL: true });
  topic.addToResourcePolicy(
    new PolicyStatement({
      sid: 'CloudWatchAlarmsOfThisAccountPublish',
      principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
        ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*` },
      },
    }),
  );
  return topic;
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
