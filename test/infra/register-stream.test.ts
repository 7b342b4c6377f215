import { App, type CfnElement, Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerImportFunctions } from '../../infra/catalogue';
import { STREAM_HANDOVER, STREAM_SCHEDULE } from '../../infra/constructs/register-stream';
import { BureauStack, type BureauStackProps } from '../../infra/stack';
import { DEFAULT_REGISTER_FEEDS } from '../../infra/stage-settings';
import { HANDOVER_SECONDS_VARIABLE, STREAM_KEY_SECRET_VARIABLE, STREAMS_VARIABLE } from '../../shared/register/stream/consumer-config';
import { companiesTable, registerStreamsTable } from '../../shared/storage/tables';
import { defaultServiceStack } from '../support/service-stack';
import { TEST_WEB_ACL } from '../support/web-acl';

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is read loosely; the assertions check its shape
type Loose = any;

const asList = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);
const spec = registerImportFunctions.find((candidate) => candidate.id === 'registerStream');

function buildStack(settings: BureauStackProps['settings']) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new BureauStack(app, 'Test', { edge: { webAclArn: TEST_WEB_ACL }, settings });
  return { stack, template: Template.fromStack(stack) };
}

/** The service stack with these settings; without any, the one the infrastructure tests share. */
function synthesize(settings?: BureauStackProps['settings']) {
  const { stack, template } = settings ? buildStack(settings) : defaultServiceStack();
  const resources = template.toJSON().Resources as Record<string, Loose>;
  const logicalId = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const fn = stack.registerImport.functions.get('registerStream') as IConstruct & { executionRole: IConstruct };
  const fnId = logicalId(fn);
  const ofType = (type: string) => Object.values(resources).filter((resource) => resource.Type === type);
  const statementsOfRole = (role: IConstruct): Loose[] =>
    ofType('AWS::IAM::Policy')
      .filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: logicalId(role) }]))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
  const rulesOf = () => ofType('AWS::Events::Rule').filter((rule) => JSON.stringify(rule.Properties.Targets).includes(`"${fnId}"`));
  const alarmsNamed = (metric: string) => ofType('AWS::CloudWatch::Alarm').filter((alarm) => alarm.Properties.MetricName === metric);
  return { stack, template, resources, logicalId, fn, fnId, ofType, statementsOfRole, rulesOf, alarmsNamed };
}

describe('the Companies House stream consumer', () => {
  let synth: ReturnType<typeof synthesize>;
  beforeAll(() => {
    synth = synthesize();
  });

  it('starts each default stream every 14 minutes from a schedule of its own, with the stream named in the event', () => {
    const rules = synth.rulesOf();

    expect(DEFAULT_REGISTER_FEEDS.companiesHouseStreams).toEqual([
      'companies',
      'filings',
      'charges',
      'insolvency-cases',
      'officers',
      'persons-with-significant-control',
    ]);
    expect(rules).toHaveLength(DEFAULT_REGISTER_FEEDS.companiesHouseStreams.length);
    expect(rules.map((rule) => JSON.parse(rule.Properties.Targets[0].Input).stream).sort()).toEqual(
      [...DEFAULT_REGISTER_FEEDS.companiesHouseStreams].sort(),
    );
    for (const rule of rules) {
      expect(rule.Properties).toMatchObject({ ScheduleExpression: 'rate(14 minutes)', State: 'ENABLED' });
      expect(rule.Properties.Targets).toEqual([
        expect.objectContaining({
          Arn: { 'Fn::GetAtt': [synth.fnId, 'Arn'] },
          RetryPolicy: { MaximumEventAgeInSeconds: 300, MaximumRetryAttempts: 2 },
        }),
      ]);
    }
    synth.template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [synth.fnId, 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
  });

  it('runs 15 minutes, stops 30 s before, so a successor is always waiting and never two are: one connection per stream', () => {
    const props = synth.resources[synth.fnId].Properties;
    const timeout = Duration.seconds(props.Timeout);

    expect(props).toMatchObject({ Timeout: 900, MemorySize: 256 });
    expect(props.VpcConfig).toBeUndefined();
    // The successor starts before this run lets go of the lease...
    expect(STREAM_SCHEDULE.toSeconds()).toBeLessThan(timeout.toSeconds() - STREAM_HANDOVER.toSeconds());
    // ...and a run has ended before the one after its successor starts: at most two invocations per stream.
    expect(2 * STREAM_SCHEDULE.toSeconds()).toBeGreaterThan(timeout.toSeconds());
    expect(props.Environment.Variables).toMatchObject({
      [HANDOVER_SECONDS_VARIABLE]: '30',
      [STREAMS_VARIABLE]: DEFAULT_REGISTER_FEEDS.companiesHouseStreams.join(','),
      [STREAM_KEY_SECRET_VARIABLE]: { Ref: synth.logicalId(synth.stack.registerStream.secret) },
    });
    // A failed run is not retried on top of the next tick; a tick that could not start in 5 minutes is dropped.
    synth.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: synth.fnId },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 300,
    });
  });

  it('creates the stream key secret empty, readable by the consumer alone, and names it in the outputs', () => {
    const secretId = synth.logicalId(synth.stack.registerStream.secret);
    const secret = synth.resources[secretId].Properties;
    const roleArn = { 'Fn::GetAtt': [synth.logicalId(synth.fn.executionRole), 'Arn'] };

    expect(secret.GenerateSecretString).toBeUndefined();
    expect(secret.SecretString).toBeUndefined();
    const policy = synth
      .ofType('AWS::SecretsManager::ResourcePolicy')
      .find((p) => JSON.stringify(p.Properties.SecretId).includes(secretId));
    expect(policy?.Properties.ResourcePolicy.Statement).toEqual([
      expect.objectContaining({
        Effect: 'Deny',
        Principal: '*',
        Action: 'secretsmanager:GetSecretValue',
        Condition: { StringNotEquals: { 'aws:PrincipalArn': roleArn } },
      }),
    ]);
    const reads = synth
      .ofType('AWS::IAM::Policy')
      .filter((p) => JSON.stringify(p.Properties.PolicyDocument).includes(`"Ref":"${secretId}"`))
      .map((p) => p.Properties.Roles);
    expect(reads).toEqual([[{ Ref: synth.logicalId(synth.fn.executionRole) }]]);
    const onSecret = synth
      .statementsOfRole(synth.fn.executionRole)
      .filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify({ Ref: secretId }));
    expect(onSecret.flatMap((statement) => asList(statement.Action))).toEqual(['secretsmanager:GetSecretValue']);
    expect(synth.template.toJSON().Outputs.StreamKeySecretArn.Value).toEqual({ Ref: secretId });
  });

  it('may use the stream table and the companies table as its catalogue entry says, and nothing else of DynamoDB', () => {
    const tableArn = (definition: typeof companiesTable) => ({
      'Fn::GetAtt': [synth.logicalId(synth.stack.tables.of(definition)), 'Arn'],
    });
    const dynamo = synth
      .statementsOfRole(synth.fn.executionRole)
      .filter((statement) => JSON.stringify(statement.Action).includes('dynamodb:'))
      .map((statement) => ({ actions: asList(statement.Action).sort(), resource: statement.Resource }));
    const declared = (spec?.tables ?? []).map((grant) => ({
      actions: grant.access.actions.map((action) => `dynamodb:${action}`).sort(),
      resource: tableArn(grant.table),
    }));

    expect(spec?.tables.map((grant) => grant.table.id)).toEqual([registerStreamsTable.id, companiesTable.id]);
    expect(dynamo).toEqual(declared);
    expect(JSON.stringify(synth.statementsOfRole(synth.fn.executionRole))).not.toMatch(/"(s3|states|sqs):/);
  });

  it('alarms per stream on lag over 10 minutes and on any 416 gap, on no event read on any stream for 3 hours, and on errors', () => {
    const tickets = { Ref: synth.logicalId(synth.stack.alarms.tickets) };
    const feedPage = JSON.stringify(
      synth.ofType('AWS::CloudWatch::CompositeAlarm').find((page) => page.Properties.AlarmName.endsWith('-page-RegisterFeedBehind'))
        ?.Properties.AlarmRule,
    );
    const lag = synth.alarmsNamed('StreamLag');
    const gaps = synth.alarmsNamed('StreamGaps');
    const streamOf = (alarm: Loose) => alarm.Properties.Dimensions.find((d: Loose) => d.Name === 'Stream')?.Value;

    expect(lag.map(streamOf).sort()).toEqual([...DEFAULT_REGISTER_FEEDS.companiesHouseStreams].sort());
    for (const alarm of lag) {
      expect(alarm.Properties).toMatchObject({
        Namespace: 'Bureau',
        Statistic: 'Maximum',
        Threshold: 600,
        EvaluationPeriods: 2,
        DatapointsToAlarm: 2,
        ComparisonOperator: 'GreaterThanThreshold',
      });
      // A stream behind pages, through the register feed's page.
      expect(alarm.Properties.AlarmActions ?? []).toEqual([]);
    }
    for (const id of DEFAULT_REGISTER_FEEDS.companiesHouseStreams.map((stream) =>
      stream.replace(/(^|-)([a-z])/g, (_, _dash, letter: string) => letter.toUpperCase()),
    ))
      expect(feedPage).toContain(`AlarmsStream${id}Lag`);
    expect(gaps.map(streamOf).sort()).toEqual([...DEFAULT_REGISTER_FEEDS.companiesHouseStreams].sort());
    for (const alarm of gaps) {
      expect(alarm.Properties).toMatchObject({
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [tickets],
      });
    }
    const silent = synth.alarmsNamed('StreamEventsRead');
    expect(silent).toHaveLength(1);
    expect(silent[0]?.Properties).toMatchObject({
      Namespace: 'Bureau',
      Statistic: 'Sum',
      Period: 3600,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      EvaluationPeriods: 3,
      TreatMissingData: 'breaching',
    });
    expect(feedPage).toContain('AlarmsStreamsSilent');
    // Its failures as a share of its runs, a ticket: the feed's page says when they leave the profiles behind.
    const errors = synth
      .ofType('AWS::CloudWatch::Alarm')
      .filter(
        (alarm) =>
          JSON.stringify(alarm.Properties.Metrics ?? []).includes(synth.fnId) &&
          JSON.stringify(alarm.Properties.Metrics).includes('"Errors"'),
      );
    expect(errors).toHaveLength(1);
    expect(errors[0]?.Properties.AlarmActions).toEqual([tickets]);
    // Running to its handover is its normal: the duration alarm fires only past it, when Lambda cut the run off.
    const duration = synth.alarmsNamed('Duration').find((alarm) => JSON.stringify(alarm.Properties.Dimensions).includes(synth.fnId));
    expect(duration?.Properties.Threshold).toBe(885_000);
  });

  it('draws the streams on the dashboard: events applied, lag, reconnects, skipped events and gaps', () => {
    const body = JSON.stringify(synth.ofType('AWS::CloudWatch::Dashboard')[0]?.Properties.DashboardBody);

    for (const title of [
      'Companies House streams: events applied',
      'Companies House streams: lag behind the register (s)',
      'Companies House streams: reconnects, skipped events, gaps (416)',
    ]) {
      expect(body).toContain(title);
    }
  });

  it('schedules and watches only the streams the stage names', () => {
    const none = synthesize({ registerFeeds: { companiesHouseStreams: [], croCompaniesUrl: null } });
    const one = synthesize({ registerFeeds: { companiesHouseStreams: ['filings'], croCompaniesUrl: null } });

    expect(none.rulesOf()).toEqual([]);
    expect(none.alarmsNamed('StreamLag')).toEqual([]);
    expect(one.rulesOf().map((rule) => JSON.parse(rule.Properties.Targets[0].Input))).toEqual([{ stream: 'filings' }]);
    expect(one.alarmsNamed('StreamGaps')).toHaveLength(1);
  });

  it('has no unacknowledged cdk-nag AwsSolutions finding', () => {
    const report = new AwsSolutionsChecks().validateScope(synth.stack);

    expect(report.violations.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath)}`)).toEqual([]);
  });
});
