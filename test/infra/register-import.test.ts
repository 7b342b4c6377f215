import { Match } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerImportFunctions } from '../../infra/catalogue';
import { UPLOAD_RETENTION_DAYS, WORK_RETENTION_DAYS } from '../../infra/constructs/register-import';
import { BATCH_CONCURRENCY } from '../../infra/register-import-concurrency';
import { defaultServiceStack } from '../support/service-stack';

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is read loosely; the assertions check its shape
type Loose = any;

function synthesize() {
  const { stack, template, logicalId } = defaultServiceStack();
  const resources = template.toJSON().Resources as Record<string, Loose>;
  const stateMachine = resources[logicalId(stack.registerImport.stateMachine)];
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
  return { stack, template, resources, logicalId, definition, statementsOfRole };
}

describe('the register import', () => {
  let synth: ReturnType<typeof synthesize>;
  beforeAll(() => {
    synth = synthesize();
  });

  it('keeps uploads in a private, encrypted, SSL-only bucket whose objects expire', () => {
    const bucket = synth.resources[synth.logicalId(synth.stack.registerImport.bucket)];
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LifecycleConfiguration: {
        Rules: expect.arrayContaining([
          expect.objectContaining({ Prefix: 'uploads/', ExpirationInDays: UPLOAD_RETENTION_DAYS, Status: 'Enabled' }),
          expect.objectContaining({ Prefix: 'work/', ExpirationInDays: WORK_RETENTION_DAYS, Status: 'Enabled' }),
          expect.objectContaining({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
        ]),
      },
    });
    synth.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: synth.logicalId(synth.stack.registerImport.bucket) },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('imports the chunks with a Distributed Map that reads the manifest, bounds its concurrency, retries and writes its results', () => {
    const batches = synth.definition.States.Batches;
    expect(batches).toMatchObject({
      Type: 'Map',
      ItemProcessor: { ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' } },
      ItemReader: { ReaderConfig: { InputType: 'JSON' }, Parameters: { 'Key.$': '$.split.manifestKey' } },
      ItemSelector: { 'chunk.$': '$$.Map.Item.Value', 'asOf.$': '$.asOf' },
      MaxConcurrency: BATCH_CONCURRENCY,
      ResultWriter: { Parameters: { Prefix: 'work/results' } },
    });
    expect(batches.ItemReader.Resource).toMatch(/:states:::s3:getObject$/);
    expect(batches.ResultWriter.Resource).toMatch(/:states:::s3:putObject$/);
    expect(batches.ItemProcessor.States.ImportChunk.Retry).toContainEqual({
      ErrorEquals: ['States.TaskFailed', 'States.Timeout'],
      IntervalSeconds: 30,
      MaxAttempts: 3,
      BackoffRate: 2,
      MaxDelaySeconds: 300,
      JitterStrategy: 'FULL',
    });
  });

  it('sweeps gone companies only after a whole snapshot whose batches all succeeded, and fails the execution otherwise', () => {
    const states = synth.definition.States;
    expect(Object.keys(states).sort()).toEqual(
      ['AllBatchesImported', 'Batches', 'BatchesFailed', 'Done', 'Split', 'Summarize', 'SummarizeWithSweep', 'SweepGoneCompanies'].sort(),
    );
    expect(states.AllBatchesImported.Choices).toEqual([
      { Variable: '$.summary.failedBatches', NumericGreaterThan: 0, Next: 'BatchesFailed' },
      {
        And: [
          { Variable: '$.split.wholeSnapshot', BooleanEquals: true },
          { Variable: '$.summary.rejected', NumericEquals: 0 },
        ],
        Next: 'SweepGoneCompanies',
      },
    ]);
    expect(states.SweepGoneCompanies).toMatchObject({ Type: 'Map', ItemsPath: '$.split.sweepSegments', MaxConcurrency: 8 });
    expect(states.BatchesFailed.Type).toBe('Fail');
  });

  it('gives each function only its objects and the companies table actions the import sends', () => {
    const bucketArn = { 'Fn::GetAtt': [synth.logicalId(synth.stack.registerImport.bucket), 'Arn'] };
    const objects = (pattern: string) => ({ 'Fn::Join': ['', [bucketArn, `/${pattern}`]] });
    for (const spec of registerImportFunctions) {
      const fn = synth.stack.registerImport.functions.get(spec.id);
      const statements = synth.statementsOfRole(synth.logicalId(fn?.executionRole as IConstruct));
      const s3 = statements.filter((statement) => JSON.stringify(statement.Action).includes('s3:'));
      const expected = [
        ...(spec.uploads?.read.length ? [{ Action: 's3:GetObject', Resource: spec.uploads.read.map(objects) }] : []),
        ...(spec.uploads?.write.length ? [{ Action: 's3:PutObject', Resource: spec.uploads.write.map(objects) }] : []),
      ];
      expect(
        s3.map(({ Action, Resource }) => ({ Action, Resource: [Resource].flat() })),
        spec.id,
      ).toEqual(expected);
      expect(JSON.stringify(statements), spec.id).not.toContain('"s3:*"');
    }
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: registerImportFunctions[0]?.description,
      EphemeralStorage: { Size: 2048 },
      Timeout: 900,
    });
  });

  it("lets the state machine read only manifests and write only the Map's results", () => {
    const role = synth.logicalId(synth.stack.registerImport.stateMachine.role);
    const s3 = synth.statementsOfRole(role).filter((statement) => JSON.stringify(statement.Action).includes('s3:'));
    expect(s3.map((statement) => JSON.stringify(statement.Resource))).toEqual(
      expect.arrayContaining([expect.stringContaining('/work/results/*'), expect.stringContaining('/work/*/manifest.json')]),
    );
    expect(s3).toHaveLength(2);
  });

  it('alarms on executions that did not finish and on failed batches, and names the bucket and state machine in outputs', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([Match.objectLike({ Expression: 'failed + timedOut + aborted' })]),
      Threshold: 1,
      AlarmActions: [{ Ref: synth.logicalId(synth.stack.alarms.topic) }],
    });
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'RegisterImportFailedBatches',
      Namespace: 'Bureau',
      Threshold: 1,
    });
    synth.template.hasOutput('RegisterUploadsBucket', { Value: { Ref: synth.logicalId(synth.stack.registerImport.bucket) } });
    synth.template.hasOutput('RegisterImportStateMachineArn', { Value: { Ref: synth.logicalId(synth.stack.registerImport.stateMachine) } });
    synth.template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: Match.objectLike({ Level: 'ALL' }),
    });
  });
});
