import { App, type CfnElement, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { functions as catalogue } from '../../infra/catalogue';
import {
  ACCOUNT_CONCURRENCY_ALARM_PERCENT,
  Alarms,
  API_ERROR_PAGE_PERCENT,
  API_MIN_REQUESTS,
  DEAD_LETTER_AGE_ALARM,
  DISTRIBUTION_5XX_ALARM_PERCENT,
  DISTRIBUTION_MIN_REQUESTS,
  FIREWALL_BLOCKED_FLOOR,
  FUNCTION_ERROR_TICKET_PERCENT,
  FUNCTION_MIN_INVOCATIONS,
  PAGES,
  type PageName,
  PLANNED_WORK_TAIL,
  TABLE_SYSTEM_ERRORS_ALARM,
  TABLE_THROTTLES_ALARM,
  workQueueMaxAge,
} from '../../infra/constructs/alarms';
import { BureauEdgeMonitoringStack } from '../../infra/edge-monitoring-stack';
import type { BureauStack } from '../../infra/stack';
import { BusinessMetric } from '../../shared/observability/metrics';
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

const ALARM_TYPES = ['AWS::CloudWatch::Alarm', 'AWS::CloudWatch::CompositeAlarm'];

/** The `{ Ref }` of every topic of the template that an alarm's actions name, and the ARNs of the others. */
function topicsNamedByAlarms(template: Template): { own: string[]; foreign: string[] } {
  const resources = template.toJSON().Resources as Record<string, Loose>;
  const actions = Object.values(resources)
    .filter((resource) => ALARM_TYPES.includes(resource.Type))
    .flatMap((alarm) => [...(alarm.Properties.AlarmActions ?? []), ...(alarm.Properties.OKActions ?? [])]);
  const own = [...new Set(actions.filter((action) => typeof action === 'object').map((action) => action.Ref as string))];
  const foreign = [...new Set(actions.filter((action) => typeof action === 'string') as string[])];
  for (const ref of own) expect(resources[ref]?.Type, ref).toBe('AWS::SNS::Topic');
  return { own, foreign };
}

/** The statements of the policies attached to one topic. */
function topicPolicyStatements(template: Template, topicRef: string): Loose[] {
  return Object.values(template.findResources('AWS::SNS::TopicPolicy'))
    .filter((policy) => (policy.Properties.Topics as Loose[]).some((topic) => topic.Ref === topicRef))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Loose[]);
}

/** What CloudWatch needs of a topic's policy to deliver an alarm: this account's alarms may publish, and nothing else is let in. */
function expectAlarmsMayPublish(template: Template, topicRef: string): void {
  const statements = topicPolicyStatements(template, topicRef);
  expect(statements.length, `${topicRef} has a topic policy`).toBeGreaterThan(0);
  const allows = statements.filter((statement) => statement.Effect === 'Allow');
  expect(allows, topicRef).toEqual([
    {
      Sid: 'CloudWatchAlarmsOfThisAccountPublish',
      Effect: 'Allow',
      Principal: { Service: 'cloudwatch.amazonaws.com' },
      Action: 'sns:Publish',
      Resource: { Ref: topicRef },
      Condition: {
        StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
        ArnLike: {
          'aws:SourceArn': {
            'Fn::Join': [
              '',
              ['arn:', { Ref: 'AWS::Partition' }, ':cloudwatch:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':alarm:*'],
            ],
          },
        },
      },
    },
  ]);
  // The TLS rule stays: it denies plain-HTTP publishing to everyone, CloudWatch included, and CloudWatch uses TLS.
  expect(statements.filter((statement) => statement.Effect === 'Deny').map((statement) => statement.Condition)).toEqual([
    { Bool: { 'aws:SecureTransport': 'false' } },
  ]);
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
  alarms.watchMessageAge(
    'work',
    queue,
    { maxAge: Duration.hours(1), retention: Duration.days(14), what: 'A work message' },
    { page: 'DeliveriesStuck' },
  );
  alarms.watchMessageAge(
    'parked',
    queue,
    { maxAge: Duration.days(3), retention: Duration.days(14), what: 'A work message', deadLetter: true },
    'ticket',
  );
  alarms.raisePages();
  const template = Template.fromStack(stack);
  const byId = alarmsOf(stack, alarms);
  const tableRef = stack.getLogicalId(table.node.defaultChild as CfnElement);
  const ref = (construct: { node: { defaultChild?: unknown } }) => ({ Ref: stack.getLogicalId(construct.node.defaultChild as CfnElement) });
  const paging = ref(alarms.paging);
  const tickets = ref(alarms.tickets);

  it('subscribes every address to both encrypted topics', () => {
    const subscriptions = Object.values(template.findResources('AWS::SNS::Subscription')).map((resource) => resource.Properties);
    expect(subscriptions).toHaveLength(4);
    expect(subscriptions).toEqual(
      expect.arrayContaining(
        ['ops@bureau.example', 'oncall@bureau.example'].flatMap((address) => [
          { Protocol: 'email', Endpoint: address, TopicArn: paging },
          { Protocol: 'email', Endpoint: address, TopicArn: tickets },
        ]),
      ),
    );
    for (const topic of Object.values(template.findResources('AWS::SNS::Topic'))) expect(topic.Properties.KmsMasterKeyId).toBeDefined();
  });

  it("pages the paging topic and the operator's topics when a page starts and when it ends, through a composite alarm", () => {
    const pages = Object.entries(byId).filter(([id]) => id in PAGES);
    expect(pages.map(([id]) => id).sort()).toEqual(['ConcurrencyRunningOut', 'DeliveriesStuck']);
    for (const [id, page] of pages) {
      expect(page.AlarmName, id).toBe(`Service-page-${id}`);
      expect(page.AlarmActions, id).toEqual([paging, ...OPERATOR_TOPICS]);
      expect(page.OKActions, id).toEqual([paging, ...OPERATOR_TOPICS]);
    }
    // The metric alarms under a page notify no one themselves: the page does, once.
    for (const id of ['AccountConcurrency', 'workOldest']) {
      expect(byId[id].AlarmActions ?? [], id).toEqual([]);
      expect(byId[id].OKActions ?? [], id).toEqual([]);
    }
    expect(JSON.stringify(byId.DeliveriesStuck.AlarmRule)).toContain(
      stack.getLogicalId(alarms.node.findChild('workOldest').node.defaultChild as CfnElement),
    );
  });

  it('opens a ticket on the ticket topic alone, when the alarm fires and not when it ends', () => {
    for (const id of ['workerErrorRate', 'thingsTableThrottles', 'thingsTableSystemErrors', 'parkedOldest']) {
      expect(byId[id].AlarmActions, id).toEqual([tickets]);
      expect(byId[id].OKActions ?? [], id).toEqual([]);
    }
  });

  it('lets the alarms of this account publish to every topic an alarm names, beside the TLS rule', () => {
    const { own, foreign } = topicsNamedByAlarms(template);
    expect(own.sort()).toEqual([paging.Ref, tickets.Ref].sort());
    for (const topic of own) expectAlarmsMayPublish(template, topic);
    expect(foreign.sort()).toEqual([...OPERATOR_TOPICS].sort());
  });

  it("judges a function's failures as a share of its invocations, counting at least the minimum", () => {
    const alarm = byId.workerErrorRate;
    const expression = alarm.Metrics.find((query: Loose) => query.Expression);
    expect(expression.Expression).toBe(
      `100 * errors / IF(invocations >= ${FUNCTION_MIN_INVOCATIONS}, invocations, ${FUNCTION_MIN_INVOCATIONS})`,
    );
    expect(alarm).toMatchObject({ Threshold: FUNCTION_ERROR_TICKET_PERCENT, EvaluationPeriods: 24, DatapointsToAlarm: 1 });
    const names = alarm.Metrics.filter((query: Loose) => query.MetricStat).map((query: Loose) => [
      query.Id,
      query.MetricStat.Metric.MetricName,
      query.MetricStat.Period,
    ]);
    expect(names).toEqual([
      ['errors', 'Errors', 3600],
      ['invocations', 'Invocations', 3600],
    ]);
    // One failed run of a function that runs once a week is 5 %; one failure among a thousand runs is 0.1 %.
    const share = (errors: number, invocations: number) => (100 * errors) / Math.max(invocations, FUNCTION_MIN_INVOCATIONS);
    expect(share(1, 1)).toBeGreaterThanOrEqual(FUNCTION_ERROR_TICKET_PERCENT);
    expect(share(1, 1000)).toBeLessThan(FUNCTION_ERROR_TICKET_PERCENT);
    expect(byId.workerThrottles).toBeUndefined();
    expect(byId.workerNearTimeout).toBeUndefined();
  });

  it('refuses to synthesize pages that were never raised', () => {
    const forgotten = new Stack(new App(), 'Forgotten');
    new Alarms(forgotten, 'Alarms').watchAccountConcurrency();
    expect(() => Template.fromStack(forgotten)).toThrow(/never raised/);
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
  alarms.raisePages();
  const byId = alarmsOf(stack, alarms);
  const topic = { Ref: stack.getLogicalId(alarms.paging.node.defaultChild as CfnElement) };
  const tickets = { Ref: stack.getLogicalId(alarms.tickets.node.defaultChild as CfnElement) };
  const query = (alarm: Loose, id: string) => alarm.Metrics.find((entry: Loose) => entry.Id === id);

  it("alarms on CloudFront's 5xx rate only over enough requests to judge, sustained for 15 minutes", () => {
    const alarm = byId.Distribution5xxRate;
    expect(alarm).toMatchObject({
      Threshold: DISTRIBUTION_5XX_ALARM_PERCENT,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(byId.EdgeFailing).toMatchObject({ AlarmActions: [topic, edgeTopic], OKActions: [topic, edgeTopic] });
    expect(byId.EdgeFailing.ActionsSuppressor).toBeUndefined();
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
      AlarmActions: [tickets],
    });
    expect(alarm.OKActions).toBeUndefined();
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

  it('lets CloudWatch publish to every topic any alarm of the service names', () => {
    const template = Template.fromStack(stack);
    const { own, foreign } = topicsNamedByAlarms(template);
    expect(own.sort()).toEqual([logicalId(stack.alarms.paging), logicalId(stack.alarms.tickets)].sort());
    expect(foreign).toEqual([]);
    for (const topic of own) expectAlarmsMayPublish(template, topic);
  });

  it('sends every alarm one way: a page, a ticket, or under a page; the planned-work alarm alone notifies no one', () => {
    const paging = { Ref: logicalId(stack.alarms.paging) };
    const tickets = { Ref: logicalId(stack.alarms.tickets) };
    const rules = stack.alarms.pages.map((page) => JSON.stringify(byId[page.node.id].AlarmRule));
    const under = (id: string) => rules.filter((rule) => rule.includes(`"${logicalId(stack.alarms.node.findChild(id))}"`)).length;
    const routes: Record<string, string[]> = { page: [], ticket: [], underPage: [], none: [] };
    for (const [id, alarm] of Object.entries(byId)) {
      const actions = JSON.stringify(alarm.AlarmActions ?? []);
      if (actions === JSON.stringify([paging])) {
        expect(alarm.OKActions, id).toEqual([paging]);
        routes.page?.push(id);
      } else if (actions === JSON.stringify([tickets])) {
        expect(alarm.OKActions, id).toBeUndefined();
        routes.ticket?.push(id);
      } else {
        expect(actions, id).toBe('[]');
        if (under(id) === 1) routes.underPage?.push(id);
        else routes.none?.push(id);
      }
    }
    expect(routes.page?.sort()).toEqual(
      Object.keys(PAGES)
        .filter((page) => page !== 'EdgeFailing')
        .sort(),
    );
    expect(routes.none).toEqual(['PlannedWork']);
    // The per-function boilerplate is gone: the API's functions are judged by the API, throttles by the account.
    expect(routes.ticket?.filter((id) => /Throttles$|Errors$/.test(id) && !id.includes('Table'))).toEqual(['UnhandledErrors']);
    expect(routes.ticket?.filter((id) => id.endsWith('ErrorRate')).sort()).toEqual(
      [...stack.functions.keys(), ...stack.registerImport.functions.keys(), ...stack.accountsImport.functions.keys()]
        .filter((id) => (catalogue.find((spec) => spec.id === id)?.routes.length ?? 0) === 0)
        .map((id) => `${id}ErrorRate`)
        .sort(),
    );
    expect(routes.underPage?.length).toBeGreaterThan(10);
  });

  it('holds back the pages planned work causes while an import runs, and only those', () => {
    const plannedWork = logicalId(stack.alarms.node.findChild('PlannedWork'));
    for (const page of stack.alarms.pages) {
      const name = page.node.id as PageName;
      const alarm = byId[name];
      if (PAGES[name].plannedWork) {
        expect(alarm, name).toMatchObject({
          ActionsSuppressor: { 'Fn::GetAtt': [plannedWork, 'Arn'] },
          ActionsSuppressorWaitPeriod: 300,
          ActionsSuppressorExtensionPeriod: PLANNED_WORK_TAIL.toSeconds(),
        });
      } else {
        expect(alarm.ActionsSuppressor, name).toBeUndefined();
      }
    }
    expect(['ChangeEventsLate', 'RegisterFeedBehind', 'ConcurrencyRunningOut'].every((name) => PAGES[name as PageName].plannedWork)).toBe(
      true,
    );
    // An import's own failure is never held back by the import.
    expect(PAGES.RegisterImportFailed.plannedWork).toBe(false);
    const work = byId.PlannedWork;
    const used = work.Metrics.filter((query: Loose) => query.MetricStat).map((query: Loose) => query.MetricStat.Metric.MetricName);
    expect(used).toEqual(['ExecutionsStarted', 'Invocations', 'Invocations']);
    expect(JSON.stringify(work.Metrics)).toContain(logicalId(stack.registerImport.stateMachine));
    expect(JSON.stringify(work.Metrics)).toContain(logicalId(stack.registerImport.functions.get('registerBatch') as never));
  });

  it("pages on the API's 5xx share over enough requests, not on a count of 5xx", () => {
    const alarm = byId.ApiErrorRate;
    expect(alarm.Metrics.find((query: Loose) => query.Expression).Expression).toBe(
      `100 * serverErrors / IF(requests >= ${API_MIN_REQUESTS}, requests, ${API_MIN_REQUESTS})`,
    );
    expect(alarm).toMatchObject({ Threshold: API_ERROR_PAGE_PERCENT, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
    expect(byId.Api5xx).toBeUndefined();
    expect(JSON.stringify(byId.ApiFailing.AlarmRule)).toContain(logicalId(stack.alarms.node.findChild('ApiErrorRate')));
  });

  it('opens a ticket when a stream event is set aside and when a sweep is refused, once a day at most while it recurs', () => {
    for (const [id, metric] of [
      ['StreamEventsSetAside', BusinessMetric.streamEventsSetAside],
      ['SweepRefused', BusinessMetric.sweepRefused],
    ] as const) {
      expect(byId[id], id).toMatchObject({
        Namespace: 'Bureau',
        MetricName: metric,
        Statistic: 'Sum',
        Period: 3600,
        Threshold: 1,
        EvaluationPeriods: 24,
        DatapointsToAlarm: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [{ Ref: logicalId(stack.alarms.tickets) }],
      });
    }
    expect(byId.StreamEventsSetAside.AlarmDescription).toContain('bureau streams set-aside');
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

describe('the edge monitoring stack, in us-east-1', () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new BureauEdgeMonitoringStack(app, 'Bureau-edge-monitoring', {
    env: { account: '123456789012' },
    serviceStackName: 'Bureau',
    webAclName: 'Bureau-edge',
    alarms: { emails: ['ops@bureau.example'], topicArns: ['arn:aws:sns:us-east-1:123456789012:bureau-pager'] },
    accessLogRetention: 90,
  });
  const template = Template.fromStack(stack);

  it('lets CloudWatch publish to every topic any of its alarms names, and names the pager for the page alone', () => {
    const { own, foreign } = topicsNamedByAlarms(template);
    expect(own).toHaveLength(2);
    for (const topic of own) expectAlarmsMayPublish(template, topic);
    expect(foreign).toEqual(['arn:aws:sns:us-east-1:123456789012:bureau-pager']);
    const byId = alarmsOf(stack, stack.alarms);
    expect(byId.EdgeFailing.AlarmName).toBe('Bureau-edge-monitoring-page-EdgeFailing');
    expect(byId.FirewallBlockedSpike.AlarmActions).toEqual([
      { Ref: stack.getLogicalId(stack.alarms.tickets.node.defaultChild as CfnElement) },
    ]);
  });
});
