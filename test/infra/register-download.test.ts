import { App, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerImportFunctions } from '../../infra/catalogue';
import { CRO_IMPORT_SCHEDULE } from '../../infra/constructs/register-download';
import { BureauStack, type BureauStackProps } from '../../infra/stack';
import { DEFAULT_REGISTER_FEEDS } from '../../infra/stage-settings';
import { DOWNLOAD_URL_VARIABLE, STATE_MACHINE_VARIABLE } from '../../shared/register/import/register-download';
import { defaultServiceStack } from '../support/service-stack';
import { TEST_WEB_ACL } from '../support/web-acl';

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is read loosely; the assertions check its shape
type Loose = any;

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
  const fn = stack.registerImport.functions.get('registerDownload') as IConstruct & { executionRole: IConstruct };
  const statements = (): Loose[] =>
    Object.values(resources)
      .filter(
        (resource) =>
          resource.Type === 'AWS::IAM::Policy' &&
          JSON.stringify(resource.Properties.Roles) === JSON.stringify([{ Ref: logicalId(fn.executionRole) }]),
      )
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
  return { stack, template, resources, logicalId, fn, statements };
}

describe('the scheduled CRO re-import', () => {
  let synth: ReturnType<typeof synthesize>;
  beforeAll(() => {
    synth = synthesize();
  });

  it('runs the download function weekly, early on Monday, from one EventBridge rule', () => {
    const rules = Object.values(synth.template.findResources('AWS::Events::Rule')).filter((rule: Loose) =>
      JSON.stringify(rule.Properties.Targets).includes(synth.logicalId(synth.fn)),
    ) as Loose[];

    expect(rules).toHaveLength(1);
    expect(rules[0].Properties).toMatchObject({ ScheduleExpression: 'cron(30 5 ? * MON *)', State: 'ENABLED' });
    expect(CRO_IMPORT_SCHEDULE).toBe('cron(30 5 ? * MON *)');
    expect(rules[0].Properties.Targets).toEqual([
      expect.objectContaining({
        Arn: { 'Fn::GetAtt': [synth.logicalId(synth.fn), 'Arn'] },
        RetryPolicy: { MaximumEventAgeInSeconds: 7200, MaximumRetryAttempts: 4 },
      }),
    ]);
    synth.template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [synth.logicalId(synth.fn), 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
  });

  it('gives the function the stage URL, 15 minutes, no VPC, and the state machine it starts', () => {
    const props = synth.resources[synth.logicalId(synth.fn)].Properties;

    expect(props.Timeout).toBe(900);
    expect(props.VpcConfig).toBeUndefined();
    expect(props.Environment.Variables).toMatchObject({
      [DOWNLOAD_URL_VARIABLE]: DEFAULT_REGISTER_FEEDS.croCompaniesUrl,
      [STATE_MACHINE_VARIABLE]: { Ref: synth.logicalId(synth.stack.registerImport.stateMachine) },
    });
    expect(DEFAULT_REGISTER_FEEDS.croCompaniesUrl).toMatch(/^https:\/\//);
  });

  it('may put uploads and start the import state machine, and nothing else of S3 or Step Functions', () => {
    const bucketArn = { 'Fn::GetAtt': [synth.logicalId(synth.stack.registerImport.bucket), 'Arn'] };
    const granted = synth
      .statements()
      .filter((statement) => /"(s3|states):/.test(JSON.stringify(statement.Action)))
      .map(({ Action, Resource }) => ({ Action, Resource }));

    expect(granted).toEqual([
      { Action: 's3:PutObject', Resource: { 'Fn::Join': ['', [bucketArn, '/uploads/*']] } },
      { Action: 'states:StartExecution', Resource: { Ref: synth.logicalId(synth.stack.registerImport.stateMachine) } },
    ]);
    expect(registerImportFunctions.find((spec) => spec.id === 'registerDownload')?.tables).toEqual([]);
  });

  it('schedules nothing when the stage names no CRO file', () => {
    const unscheduled = synthesize({
      registerFeeds: { companiesHouseStreams: DEFAULT_REGISTER_FEEDS.companiesHouseStreams, croCompaniesUrl: null },
    });
    const props = unscheduled.resources[unscheduled.logicalId(unscheduled.fn)].Properties;

    expect(JSON.stringify(unscheduled.template.findResources('AWS::Events::Rule'))).not.toContain(unscheduled.logicalId(unscheduled.fn));
    expect(props.Environment.Variables[DOWNLOAD_URL_VARIABLE]).toBeUndefined();
  });

  it('has no unacknowledged cdk-nag AwsSolutions finding', () => {
    const report = new AwsSolutionsChecks().validateScope(synth.stack);

    expect(report.violations.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath)}`)).toEqual([]);
  });
});
