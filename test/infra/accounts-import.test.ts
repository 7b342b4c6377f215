import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { accountsImportFunctions } from '../../infra/catalogue';
import {
  ACCOUNTS_DOWNLOAD_SCHEDULE,
  ACCOUNTS_ITEM_ATTEMPTS,
  ACCOUNTS_ITEM_CONCURRENCY,
  ACCOUNTS_RETENTION_DAYS,
  ACCOUNTS_WORK_RETENTION_DAYS,
} from '../../infra/constructs/accounts-import';
import { synthesizedAccountsImportDefinition } from '../../infra/local-state-machines';
import { accountsImportDefinition } from '../../local/state-machine/accounts-import';
import { ACCOUNTS_STATE_MACHINE_VARIABLE } from '../../shared/accounts/import/accounts-download';
import { companiesTable } from '../../shared/storage/tables';
import { defaultServiceStack } from '../support/service-stack';

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is read loosely; the assertions check its shape
type Loose = any;

function synthesize() {
  const { stack, template, logicalId } = defaultServiceStack();
  const resources = template.toJSON().Resources as Record<string, Loose>;
  const stateMachine = resources[logicalId(stack.accountsImport.stateMachine)];
  // The definition with every token written as its JSON, so it parses as the JSON Step Functions reads.
  const definition = JSON.parse(
    (stateMachine.Properties.DefinitionString['Fn::Join'][1] as Loose[])
      .map((part) => (typeof part === 'string' ? part : JSON.stringify(JSON.stringify(part)).slice(1, -1)))
      .join(''),
  );
  const statementsOfRole = (roleId: string): Loose[] =>
    Object.values(resources)
      .filter(
        (resource) =>
          resource.Type === 'AWS::IAM::Policy' && JSON.stringify(resource.Properties.Roles) === JSON.stringify([{ Ref: roleId }]),
      )
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
  const fn = (specId: string) => {
    const found = stack.accountsImport.functions.get(specId);
    if (!found) throw new Error(`no ${specId}`);
    return found;
  };
  const statementsOf = (specId: string) => statementsOfRole(logicalId(fn(specId).executionRole as IConstruct));
  return { stack, template, resources, logicalId, definition, statementsOf, statementsOfRole, fn };
}

describe('the accounts import', () => {
  let synth: ReturnType<typeof synthesize>;
  beforeAll(() => {
    synth = synthesize();
  });
  const bucketArn = () => ({ 'Fn::GetAtt': [synth.logicalId(synth.stack.registerImport.bucket), 'Arn'] });
  const objects = (pattern: string) => ({ 'Fn::Join': ['', [bucketArn(), `/${pattern}`]] });

  it('runs the download each working day, after Companies House publishes, with the state machine to start', () => {
    expect(ACCOUNTS_DOWNLOAD_SCHEDULE).toBe('cron(30 7 ? * MON-FRI *)');
    synth.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: ACCOUNTS_DOWNLOAD_SCHEDULE,
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [synth.logicalId(synth.fn('accountsDownload')), 'Arn'] } })],
    });
    const download = synth.resources[synth.logicalId(synth.fn('accountsDownload'))].Properties;
    expect(download.Environment.Variables[ACCOUNTS_STATE_MACHINE_VARIABLE]).toEqual({
      Ref: synth.logicalId(synth.stack.accountsImport.stateMachine),
    });
    expect(download.Timeout).toBe(900);
  });

  it('keeps archives under accounts/ and its work under accounts-work/, each expiring', () => {
    const bucket = synth.resources[synth.logicalId(synth.stack.registerImport.bucket)];
    expect(bucket.Properties.LifecycleConfiguration.Rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Prefix: 'accounts/', ExpirationInDays: ACCOUNTS_RETENTION_DAYS, Status: 'Enabled' }),
        expect.objectContaining({ Prefix: 'accounts-work/', ExpirationInDays: ACCOUNTS_WORK_RETENTION_DAYS, Status: 'Enabled' }),
        // The register's rules stay as they were.
        expect.objectContaining({ Prefix: 'uploads/' }),
        expect.objectContaining({ Prefix: 'work/' }),
      ]),
    );
  });

  it('lets the window function read archives and write the companies table, and nothing more', () => {
    const statements = synth.statementsOf('accountsItem');
    const s3 = statements.filter((statement) => JSON.stringify(statement.Action).includes('s3:'));
    expect(s3.map(({ Action, Resource }) => ({ Action, Resource: [Resource].flat() }))).toEqual([
      { Action: 's3:GetObject', Resource: [objects('accounts/*.zip')] },
    ]);
    const dynamodb = statements.filter((statement) => JSON.stringify(statement.Action).includes('dynamodb:'));
    const companies = { 'Fn::GetAtt': [synth.logicalId(synth.stack.tables.of(companiesTable)), 'Arn'] };
    expect(dynamodb.map((statement) => [statement.Resource].flat())).toEqual(dynamodb.map(() => [companies]));
    expect(dynamodb.flatMap((statement) => [statement.Action].flat()).sort()).toEqual(
      [
        'dynamodb:BatchGetItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ].sort(),
    );
    const others = statements.filter((statement) => !/s3:|dynamodb:|xray:|logs:/.test(JSON.stringify(statement.Action)));
    expect(others).toEqual([]);
  });

  it('gives each function only its kinds of objects, and the download a list of accounts/ alone', () => {
    for (const spec of accountsImportFunctions) {
      const s3 = synth
        .statementsOf(spec.id)
        .filter((statement) => JSON.stringify(statement.Action).includes('s3:'))
        .filter((statement) => statement.Action !== 's3:ListBucket');
      expect(
        s3.map(({ Action, Resource }) => ({ Action, Resource: [Resource].flat() })),
        spec.id,
      ).toEqual([
        ...(spec.uploads?.read.length ? [{ Action: 's3:GetObject', Resource: spec.uploads.read.map(objects) }] : []),
        ...(spec.uploads?.write.length ? [{ Action: 's3:PutObject', Resource: spec.uploads.write.map(objects) }] : []),
      ]);
      expect(JSON.stringify(synth.statementsOf(spec.id)), spec.id).not.toContain('"s3:*"');
    }
    expect(synth.statementsOf('accountsDownload').filter((statement) => statement.Action === 's3:ListBucket')).toEqual([
      expect.objectContaining({ Resource: bucketArn(), Condition: { StringLike: { 's3:prefix': ['accounts/*'] } } }),
    ]);
    expect(synth.statementsOf('accountsDownload')).toContainEqual(
      expect.objectContaining({
        Action: 'states:StartExecution',
        Resource: { Ref: synth.logicalId(synth.stack.accountsImport.stateMachine) },
      }),
    );
  });

  it('imports the windows with a Distributed Map that reads the manifest, bounds its concurrency, retries and writes its results', () => {
    const windows = synth.definition.States.Windows;
    expect(windows).toMatchObject({
      Type: 'Map',
      ItemProcessor: { ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' } },
      ItemReader: { ReaderConfig: { InputType: 'JSON' }, Parameters: { 'Key.$': '$.split.manifestKey' } },
      ItemSelector: {
        'key.$': '$.key',
        'archive.$': '$.split.archive',
        'size.$': '$.split.size',
        'etag.$': '$.split.etag',
        'item.$': '$$.Map.Item.Value',
      },
      MaxConcurrency: ACCOUNTS_ITEM_CONCURRENCY,
      ToleratedFailurePercentage: 100,
      ResultWriter: { Parameters: { Prefix: 'accounts-work/results' } },
      ResultPath: '$.items',
    });
    expect(ACCOUNTS_ITEM_CONCURRENCY).toBe(5);
    expect(windows.ItemProcessor.States.ImportWindow.Retry).toContainEqual(
      expect.objectContaining({ ErrorEquals: ['States.TaskFailed', 'States.Timeout'], MaxAttempts: ACCOUNTS_ITEM_ATTEMPTS }),
    );
  });

  it('hands Summarize the whole state and fails the execution when a window failed', () => {
    const { Summarize, AllWindowsImported, WindowsFailed, Split } = synth.definition.States;
    // No Parameters: the function receives the state's whole input (aws-cdk #34260 renders a bare '$').
    expect(Summarize).toMatchObject({ Type: 'Task', ResultPath: '$.summary', Next: 'AllWindowsImported' });
    expect(Summarize.Parameters).toBeUndefined();
    expect(Split).toMatchObject({ Parameters: { 'key.$': '$.key' }, ResultPath: '$.split', Next: 'Windows' });
    expect(AllWindowsImported).toMatchObject({
      Type: 'Choice',
      Choices: [{ Variable: '$.summary.failedItems', NumericGreaterThan: 0, Next: 'WindowsFailed' }],
      Default: 'Done',
    });
    expect(WindowsFailed).toMatchObject({ Type: 'Fail', Error: 'WindowsFailed' });
  });

  it("lets the state machine read only the accounts manifests and write only its Map's results", () => {
    const role = synth.logicalId(synth.stack.accountsImport.stateMachine.role);
    const s3 = synth.statementsOfRole(role).filter((statement) => JSON.stringify(statement.Action).includes('s3:'));
    expect(s3.map((statement) => JSON.stringify(statement.Resource)).sort()).toEqual([
      expect.stringContaining('/accounts-work/*/manifest.json'),
      expect.stringContaining('/accounts-work/results/*'),
    ]);
  });

  it('raises a ticket for an import that did not finish, and names the state machine in the outputs', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('An accounts import failed'),
      Metrics: Match.arrayWith([Match.objectLike({ Expression: 'failed + timedOut + aborted' })]),
      Threshold: 1,
    });
    synth.template.hasOutput('AccountsImportStateMachineArn', {
      Value: { Ref: synth.logicalId(synth.stack.accountsImport.stateMachine) },
    });
  });

  it('has no unacknowledged cdk-nag AwsSolutions finding', () => {
    const report = new AwsSolutionsChecks().validateScope(synth.stack);

    expect(report.violations.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath)}`)).toEqual([]);
  });
});

describe('the accounts import as the local runtime runs it', () => {
  it('is the definition the CDK synthesizes now, tokens resolved to local names (npm run state-machines writes it)', () => {
    expect(accountsImportDefinition()).toEqual(synthesizedAccountsImportDefinition());
  });
});
