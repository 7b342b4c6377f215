import { Match } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerImportFunctions } from '../../infra/catalogue';
import { CHUNK_ATTEMPTS, UPLOAD_RETENTION_DAYS, WORK_RETENTION_DAYS } from '../../infra/constructs/register-import';
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
    // A throttled chunk waits (30 s, 1, 2, 4 and twice 5 minutes, jittered) rather than failing the import.
    expect(CHUNK_ATTEMPTS).toBeGreaterThanOrEqual(6);
    expect(batches.ItemReader.Resource).toMatch(/:states:::s3:getObject$/);
    expect(batches.ResultWriter.Resource).toMatch(/:states:::s3:putObject$/);
    expect(batches.ItemProcessor.States.ImportChunk.Retry).toContainEqual({
      ErrorEquals: ['States.TaskFailed', 'States.Timeout'],
      IntervalSeconds: 30,
      MaxAttempts: CHUNK_ATTEMPTS,
      BackoffRate: 2,
      MaxDelaySeconds: 300,
      JitterStrategy: 'FULL',
    });
  });

  it('sweeps gone companies only after a whole snapshot whose batches all succeeded, and fails the execution otherwise', () => {
    const states = synth.definition.States;
    expect(Object.keys(states).sort()).toEqual(
      [
        'AllBatchesImported',
        'Batches',
        'BatchesFailed',
        'CountSnapshotCoverage',
        'Done',
        'JudgeCoverage',
        'SnapshotCoversRegister',
        'Split',
        'Summarize',
        'SummarizeWithSweep',
        'SweepGoneCompanies',
      ].sort(),
    );
    expect(states.AllBatchesImported.Choices).toEqual([
      { Variable: '$.summary.failedBatches', NumericGreaterThan: 0, Next: 'BatchesFailed' },
      {
        And: [
          { Variable: '$.split.wholeSnapshot', BooleanEquals: true },
          { Variable: '$.summary.rejected', NumericEquals: 0 },
        ],
        Next: 'CountSnapshotCoverage',
      },
    ]);
    // Counted first, judged by the summary function, and swept only when it allows.
    expect(states.CountSnapshotCoverage).toMatchObject({
      Type: 'Map',
      ItemsPath: '$.split.sweepSegments',
      ItemSelector: { count: true },
      ResultPath: '$.coverage',
      Next: 'JudgeCoverage',
    });
    expect(states.SnapshotCoversRegister.Choices).toEqual([
      { Variable: '$.summary.sweepAllowed', BooleanEquals: true, Next: 'SweepGoneCompanies' },
    ]);
    expect(states.SnapshotCoversRegister.Default).toBe('Done');
    expect(states.SweepGoneCompanies).toMatchObject({ Type: 'Map', ItemsPath: '$.split.sweepSegments', MaxConcurrency: 8 });
    expect(states.SweepGoneCompanies.ItemSelector.count).toBeUndefined();
    expect(states.BatchesFailed.Type).toBe('Fail');
  });

  it('hands the summary function the whole state, and the split the upload and its date', () => {
    const states = synth.definition.States;
    for (const name of ['Summarize', 'JudgeCoverage', 'SummarizeWithSweep']) {
      // No Parameters on a function's own ARN: the state's input is the event, as the summary reads it.
      expect(states[name], name).not.toHaveProperty('Parameters');
      expect(states[name].ResultPath, name).toBe('$.summary');
    }
    expect(states.Split.Parameters).toEqual({ 'key.$': '$.key', 'asOf.$': '$.asOf' });
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

  it('pages on executions that did not finish and on failed batches, and names the bucket and state machine in outputs', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([Match.objectLike({ Expression: 'failed + timedOut + aborted' })]),
      Threshold: 1,
    });
    synth.template.hasResourceProperties('AWS::CloudWatch::CompositeAlarm', {
      AlarmRule: Match.objectLike({
        'Fn::Join': Match.arrayWith([
          Match.arrayWith([{ 'Fn::GetAtt': [Match.stringLikeRegexp('RegisterImportExecutionsFailed'), 'Arn'] }]),
        ]),
      }),
      AlarmActions: [{ Ref: synth.logicalId(synth.stack.alarms.paging) }],
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

/** Every state of a definition, those of Map item processors and Parallel branches included, with where it sits. */
function* statesOf(definition: Loose, path: string): Generator<{ path: string; state: Loose }> {
  for (const [name, state] of Object.entries<Loose>(definition.States ?? {})) {
    yield { path: `${path}/${name}`, state };
    for (const inner of [state.ItemProcessor, state.Iterator, ...(state.Branches ?? [])]) {
      if (inner) yield* statesOf(inner, `${path}/${name}`);
    }
  }
}

/** A DefinitionString as Step Functions reads it: tokens written as placeholder text. */
function definitionOf(definitionString: Loose): Loose {
  if (typeof definitionString === 'string') return JSON.parse(definitionString);
  const parts = definitionString['Fn::Join'][1] as Loose[];
  return JSON.parse(parts.map((part) => (typeof part === 'string' ? part : 'TOKEN')).join(''));
}

describe('every state machine of the stack', () => {
  it('passes each Task an object of Parameters, never a bare path (aws-cdk #34260 renders \'"Parameters": "$"\')', () => {
    const { template } = defaultServiceStack();
    const machines = Object.entries<Loose>(template.toJSON().Resources).filter(
      ([, resource]) => resource.Type === 'AWS::StepFunctions::StateMachine',
    );
    expect(machines.length).toBeGreaterThan(0);
    const tasks = machines.flatMap(([id, machine]) =>
      [...statesOf(definitionOf(machine.Properties.DefinitionString), id)].filter(({ state }) => state.Type === 'Task'),
    );
    expect(tasks.map(({ path }) => path)).toEqual(expect.arrayContaining([expect.stringMatching(/\/Batches\/ImportChunk$/)]));
    const notObjects = tasks
      .filter(
        ({ state }) =>
          'Parameters' in state && (typeof state.Parameters !== 'object' || state.Parameters === null || Array.isArray(state.Parameters)),
      )
      .map(({ path, state }) => `${path}: ${JSON.stringify(state.Parameters)}`);
    expect(notObjects).toEqual([]);
  });
});
