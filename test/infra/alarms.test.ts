import { App, type CfnElement, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ACCOUNT_CONCURRENCY_ALARM_PERCENT,
  Alarms,
  DEAD_LETTER_AGE_ALARM,
  DISTRIBUTION_5XX_ALARM_PERCENT,
  DISTRIBUTION_MIN_REQUESTS,
  FIREWALL_BLOCKED_FLOOR,
  TABLE_SYSTEM_ERRORS_ALARM,
  TABLE_THROTTLES_ALARM,
  workQueueMaxAge,
} from '../../infra/constructs/alarms';
import type { BureauStack } from '../../infra/stack';
import { allQueues, deliveriesQueue, fanoutQueue, streamFailuresQueue } from '../../shared/queues/queues';
import { allTables, companiesTable } from '../../shared/storage/tables';
import { MAX_RETRY_DELAY_SECONDS, RETRY_DELAYS_SECONDS } from '../../shared/webhooks/retry-schedule';
import { defaultServiceStack } from '../support/service-stack';

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is read loosely; the assertions check its shape
type Loose = any;

const OPERATOR_TOPICS = ['arn:aws:sns:eu-west-2:123456789012:bureau-chatbot', 'arn:aws:sns:eu-west-2:123456789012:bureau-pager'];
const DAY = 24 * 3600;

/** The synthesized alarms of an Alarms construct, by the construct id the runbook names them by. */
function alarmsOf(stack: Stack, alarms: Alarms): Record<string, Loose> {
  const resources = Template.fromStack(stack).toJSON().Resources as Record<string, Loose>;
  return Object.fromEntries(
    alarms.all.map((alarm) => [alarm.node.id, resources[stack.getLogicalId(alarm.node.defaultChild as CfnElement)].Properties]),
  );
}

/** The query of a Metrics Insights alarm, its table name put back where the template joins it in. */
function insightsQuery(alarm: Loose): string {
  const [query] = alarm.Metrics as Loose[];
  const joined = query.Expression['Fn::Join'][1] as Loose[];
  return joined.map((part) => (typeof part === 'string' ? part : `<${part.Ref}>`)).join('');
}

describe('Alarms on their own', () => {
  const app = new App();
  const stack = new Stack(app, 'Service', { env: { region: 'eu-west-2', account: '123456789012' } });
  const alarms = new Alarms(stack, 'Alarms', { emails: ['ops@bureau.example', 'oncall@bureau.example'], topicArns: OPERATOR_TOPICS });
  const table = new Table(stack, 'things', {
    partitionKey: { name: 'pk', type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
  });
  const queue = new Queue(stack, 'WorkQueue');
  const fn = new LambdaFunction(stack, 'worker', {
    runtime: Runtime.NODEJS_LATEST,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => {};'),
  });
  alarms.watchFunction(fn, Duration.seconds(10));
  alarms.watchTable(table, { throttledOnPurpose: 'a bulk load throttles it on purpose' });
  alarms.watchAccountConcurrency();
  alarms.watchMessageAge('work', queue, { maxAge: Duration.hours(1), retention: Duration.days(14), what: 'A work message' });
  alarms.watchMessageAge('parked', queue, {
    maxAge: Duration.days(3),
    retention: Duration.days(14),
    what: 'A work message',
    deadLetter: true,
  });
  const template = Template.fromStack(stack);
  const byId = alarmsOf(stack, alarms);
  const tableRef = stack.getLogicalId(table.node.defaultChild as CfnElement);
  const topic = { Ref: stack.getLogicalId(alarms.topic.node.defaultChild as CfnElement) };

  it('subscribes every address to the encrypted topic', () => {
    const subscriptions = Object.values(template.findResources('AWS::SNS::Subscription')).map((resource) => resource.Properties);
    expect(subscriptions).toEqual(
      ['ops@bureau.example', 'oncall@bureau.example'].map((address) => ({ Protocol: 'email', Endpoint: address, TopicArn: topic })),
    );
  });

  it("notifies the topic and every one of the operator's topics when an alarm fires and when it is over", () => {
    expect(Object.keys(byId).length).toBeGreaterThan(5);
    for (const [id, alarm] of Object.entries(byId)) {
      expect(alarm.AlarmActions, id).toEqual([topic, ...OPERATOR_TOPICS]);
      expect(alarm.OKActions, id).toEqual([topic, ...OPERATOR_TOPICS]);
    }
  });

  it('notifies the topic alone when the operator names none of their own', () => {
    const bare = new Stack(new App(), 'Bare');
    const only = new Alarms(bare, 'Alarms');
    only.watchAccountConcurrency();
    const [alarm] = Object.values(alarmsOf(bare, only));
    const ref = { Ref: bare.getLogicalId(only.topic.node.defaultChild as CfnElement) };
    expect(alarm.AlarmActions).toEqual([ref]);
    expect(alarm.OKActions).toEqual([ref]);
    expect(Template.fromStack(bare).findResources('AWS::SNS::Subscription')).toEqual({});
  });

  it("counts a table's throttled requests and internal errors over every operation, one query each", () => {
    const throttles = byId.thingsTableThrottles;
    expect(insightsQuery(throttles)).toBe(
      `SELECT SUM(ThrottledRequests) FROM SCHEMA("AWS/DynamoDB", Operation, TableName) WHERE TableName = '<${tableRef}>'`,
    );
    // A query is one entry: far from the 10 metrics an alarm may read.
    expect(throttles.Metrics).toHaveLength(1);
    expect(throttles).toMatchObject({
      Threshold: TABLE_THROTTLES_ALARM,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      Metrics: [{ Period: 300, ReturnData: true }],
    });
    expect(throttles.AlarmDescription).toContain('a bulk load throttles it on purpose');
    expect(throttles.AlarmDescription).toContain('docs/operations.md, "Alarms"');

    const errors = byId.thingsTableSystemErrors;
    expect(insightsQuery(errors)).toBe(
      `SELECT SUM(SystemErrors) FROM SCHEMA("AWS/DynamoDB", Operation, TableName) WHERE TableName = '<${tableRef}>'`,
    );
    expect(errors).toMatchObject({ Threshold: TABLE_SYSTEM_ERRORS_ALARM, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
  });

  it("alarms on the account's Lambda concurrency as a share of its quota, sustained", () => {
    const alarm = byId.AccountConcurrency;
    expect(alarm).toMatchObject({
      Threshold: ACCOUNT_CONCURRENCY_ALARM_PERCENT,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    const expression = alarm.Metrics.find((query: Loose) => query.Expression);
    const used = alarm.Metrics.find((query: Loose) => query.MetricStat);
    expect(expression.Expression).toBe(`100 * ${used.Id} / SERVICE_QUOTA(${used.Id})`);
    expect(used.MetricStat).toEqual({
      Metric: {
        Namespace: 'AWS/Usage',
        MetricName: 'ResourceCount',
        Dimensions: [
          { Name: 'Class', Value: 'None' },
          { Name: 'Resource', Value: 'ConcurrentExecutions' },
          { Name: 'Service', Value: 'Lambda' },
          { Name: 'Type', Value: 'Resource' },
        ],
      },
      Period: 300,
      Stat: 'Maximum',
    });
  });

  it("alarms on a queue's oldest message, and says on a dead-letter queue when SQS drops it", () => {
    for (const id of ['workOldest', 'parkedOldest']) {
      expect(byId[id]).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateAgeOfOldestMessage',
        Statistic: 'Maximum',
        ComparisonOperator: 'GreaterThanThreshold',
      });
    }
    expect(byId.workOldest.Threshold).toBe(3600);
    expect(byId.workOldest.AlarmDescription).toMatch(/^A work message has waited more than 60 minutes/);
    expect(byId.parkedOldest.Threshold).toBe(3 * DAY);
    expect(byId.parkedOldest.AlarmDescription).toMatch(
      /^A work message has been parked for more than 3 days; SQS deletes it 14 days after/,
    );
  });
});

describe('Alarms of the edge, in us-east-1', () => {
  const app = new App();
  const stack = new Stack(app, 'Edge', { env: { region: 'us-east-1', account: '123456789012' } });
  const edgeTopic = 'arn:aws:sns:us-east-1:123456789012:bureau-chatbot';
  const alarms = new Alarms(stack, 'Alarms', { emails: ['ops@bureau.example'], topicArns: [edgeTopic] });
  alarms.watchDistribution('E2EXAMPLE123');
  alarms.watchFirewall('Bureau');
  const byId = alarmsOf(stack, alarms);
  const topic = { Ref: stack.getLogicalId(alarms.topic.node.defaultChild as CfnElement) };
  const query = (alarm: Loose, id: string) => alarm.Metrics.find((entry: Loose) => entry.Id === id);

  it("alarms on CloudFront's 5xx rate only over enough requests to judge, sustained for 15 minutes", () => {
    const alarm = byId.Distribution5xxRate;
    expect(alarm).toMatchObject({
      Threshold: DISTRIBUTION_5XX_ALARM_PERCENT,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [topic, edgeTopic],
      OKActions: [topic, edgeTopic],
    });
    const returned = alarm.Metrics.find((entry: Loose) => entry.ReturnData !== false);
    expect(returned.Expression).toBe(`IF(requests >= ${DISTRIBUTION_MIN_REQUESTS}, errorRate, 0)`);
    const dimensions = [
      { Name: 'DistributionId', Value: 'E2EXAMPLE123' },
      { Name: 'Region', Value: 'Global' },
    ];
    expect(query(alarm, 'requests').MetricStat).toEqual({
      Metric: { Namespace: 'AWS/CloudFront', MetricName: 'Requests', Dimensions: dimensions },
      Period: 300,
      Stat: 'Sum',
    });
    expect(query(alarm, 'errorRate').MetricStat).toEqual({
      Metric: { Namespace: 'AWS/CloudFront', MetricName: '5xxErrorRate', Dimensions: dimensions },
      Period: 300,
      Stat: 'Average',
    });
  });

  it("alarms on the firewall's blocked requests above their anomaly band, and never under the floor", () => {
    const alarm = byId.FirewallBlockedSpike;
    expect(alarm).toMatchObject({
      ComparisonOperator: 'GreaterThanUpperThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      TreatMissingData: 'notBreaching',
      AlarmActions: [topic, edgeTopic],
      OKActions: [topic, edgeTopic],
    });
    expect(alarm.Threshold).toBeUndefined();
    const band = query(alarm, alarm.ThresholdMetricId);
    const floored = alarm.Metrics.find((entry: Loose) => entry.Expression?.startsWith('IF('));
    const blocked = alarm.Metrics.find((entry: Loose) => entry.MetricStat);
    // The band is drawn around the floored series itself, the one the alarm compares.
    expect(band.Expression).toBe(`ANOMALY_DETECTION_BAND(${floored.Id}, 4)`);
    expect(floored.Expression).toBe(`IF(${blocked.Id} >= ${FIREWALL_BLOCKED_FLOOR}, ${blocked.Id}, 0)`);
    expect(floored.ReturnData).toBe(true);
    expect(blocked.MetricStat).toEqual({
      Metric: {
        Namespace: 'AWS/WAFV2',
        MetricName: 'BlockedRequests',
        Dimensions: [
          { Name: 'Rule', Value: 'ALL' },
          { Name: 'WebACL', Value: 'Bureau' },
        ],
      },
      Period: 300,
      Stat: 'Sum',
    });
  });

  it('has no cdk-nag AwsSolutions finding', () => {
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });
});

describe('the BureauStack alarms', () => {
  let stack: BureauStack;
  let byId: Record<string, Loose>;
  let logicalId: (construct: { node: { defaultChild?: unknown } }) => string;
  beforeAll(() => {
    stack = defaultServiceStack().stack;
    byId = alarmsOf(stack, stack.alarms);
    logicalId = (construct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
  });

  it('watches every table, and says the first register load throttles the companies table on purpose', () => {
    for (const definition of allTables) {
      const table = logicalId(stack.tables.of(definition));
      expect(insightsQuery(byId[`${definition.id}TableThrottles`]), definition.id).toContain(`WHERE TableName = '<${table}>'`);
      expect(insightsQuery(byId[`${definition.id}TableSystemErrors`]), definition.id).toContain(`WHERE TableName = '<${table}>'`);
      expect(byId[`${definition.id}TableThrottles`].AlarmDescription.includes('first register load'), definition.id).toBe(
        definition.id === companiesTable.id,
      );
    }
    expect(byId.companiesTableThrottles.AlarmDescription).toContain('docs/deploy.md, "Loading the register"');
  });

  it("watches the account's Lambda concurrency once", () => {
    expect(Object.keys(byId).filter((id) => JSON.stringify(byId[id].Metrics ?? []).includes('SERVICE_QUOTA'))).toEqual([
      'AccountConcurrency',
    ]);
  });

  it('watches the oldest message of each work queue and dead-letter queue, on the queue itself', () => {
    const onQueue = (id: string) => byId[id].Dimensions[0].Value['Fn::GetAtt'][0];
    for (const definition of allQueues) {
      const built = stack.queues.of(definition);
      expect(onQueue(`${definition.id}QueueDeadLetterOldest`)).toBe(logicalId(built.deadLetterQueue));
      expect(byId[`${definition.id}QueueDeadLetterOldest`].Threshold).toBe(DEAD_LETTER_AGE_ALARM.toSeconds());
      if (definition.id === streamFailuresQueue.id) {
        // Its own alarm, StreamFailuresOldest, watches it against the stream's 24 hours.
        expect(byId.streamFailuresQueueOldest).toBeUndefined();
        expect(onQueue('StreamFailuresOldest')).toBe(logicalId(built.queue));
      } else {
        expect(onQueue(`${definition.id}QueueOldest`)).toBe(logicalId(built.queue));
        expect(byId[`${definition.id}QueueOldest`].Threshold).toBe(workQueueMaxAge(definition)?.toSeconds());
      }
    }
  });

  it("draws each table's throttles and internal errors and the account's concurrency on the dashboard", () => {
    const [dashboard] = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard?.Properties.DashboardBody);
    for (const title of ['Tables: throttled requests', 'Tables: DynamoDB internal errors', 'Lambda concurrency (% of the account quota)']) {
      expect(body, title).toContain(title);
    }
    for (const metric of ['ThrottledRequests', 'SystemErrors']) {
      expect(body.split(`SELECT SUM(${metric})`).length - 1, metric).toBe(allTables.length);
    }
    expect(body).toContain('SERVICE_QUOTA');
  });

  it('puts the work queues past what their retries keep a message, and the dead-letter alarms days before SQS drops one', () => {
    // The deliveries queue keeps every retry of the schedule, each stretched at worst to the cap by a Retry-After.
    const longestSchedule = RETRY_DELAYS_SECONDS.length * MAX_RETRY_DELAY_SECONDS;
    expect(workQueueMaxAge(deliveriesQueue)?.toSeconds()).toBeGreaterThan(longestSchedule);
    // The fan-out queue retries by visibility alone, and parks a step after its last receive.
    expect(workQueueMaxAge(fanoutQueue)?.toSeconds()).toBeGreaterThan(
      fanoutQueue.deadLetter.maxReceiveCount * fanoutQueue.visibilityTimeoutSeconds,
    );
    for (const definition of allQueues) {
      // The longest a message waits before it is parked: its age alarm's limit, or its receives, whichever is later.
      const beforeParking =
        (workQueueMaxAge(definition)?.toSeconds() ?? 6 * 3600) +
        definition.deadLetter.maxReceiveCount * definition.visibilityTimeoutSeconds;
      expect(beforeParking + DEAD_LETTER_AGE_ALARM.toSeconds(), definition.id).toBeLessThanOrEqual(
        definition.deadLetter.retentionSeconds - 4 * DAY,
      );
      expect(workQueueMaxAge(definition)?.toSeconds() ?? 0, definition.id).toBeLessThan(definition.retentionSeconds - 7 * DAY);
    }
  });
});
