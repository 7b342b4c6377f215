import { join } from 'node:path';
import { Duration, RemovalPolicy, Size, Stack, Token, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import {
  Choice,
  Condition,
  DefinitionBody,
  DistributedMap,
  Errors,
  Fail,
  JitterType,
  JsonPath,
  LogLevel,
  Map as MapState,
  ResultWriterV2,
  S3JsonItemReader,
  StateMachine,
  StateMachineType,
  Succeed,
  TaskInput,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { STEPFUNCTIONS_USE_DISTRIBUTED_MAP_RESULT_WRITER_V2 as DISTRIBUTED_MAP_RESULT_WRITER_V2 } from 'aws-cdk-lib/cx-api';
import { Construct } from 'constructs';
import { MAP_RESULTS_PREFIX, OBJECT_PATTERNS, UPLOADS_PREFIX, WORK_PREFIX } from '../../shared/register/import/object-keys';
import { FUNCTION_DEFAULTS, type FunctionSpec } from '../catalogue';
import { BATCH_CONCURRENCY, SWEEP_CONCURRENCY } from '../register-import-concurrency';
import type { Alarms } from './alarms';
import { BureauFunction } from './bureau-function';
import type { BureauTables } from './tables';

/** Days an upload and its summary.json are kept: long enough to look back at last month's import. */
export const UPLOAD_RETENTION_DAYS = 35;
/** Retries of a chunk after its first attempt, in the Distributed Map. */
export const CHUNK_ATTEMPTS = 6;
/** Days the chunks, manifest and map results are kept: enough to redrive or inspect a failed import. */
export const WORK_RETENTION_DAYS = 7;

export interface RegisterImportProps {
  readonly specs: readonly FunctionSpec[];
  readonly tables: BureauTables;
  readonly alarms: Alarms;
  readonly repositoryRoot: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetention?: RetentionDays;
}

/** The Map reads its manifest and nothing else of the bucket (the CDK's reader would grant every object). */
class ManifestReader extends S3JsonItemReader {
  constructor(private readonly uploads: IBucket) {
    super({ bucket: uploads, key: JsonPath.stringAt('$.split.manifestKey') });
  }

  override providePolicyStatements(): PolicyStatement[] {
    return [new PolicyStatement({ actions: ['s3:GetObject'], resources: [this.uploads.arnForObjects(OBJECT_PATTERNS.manifests)] })];
  }
}

/** The Map writes its results under their prefix only (the CDK's writer would grant every object). */
class MapResultsWriter extends ResultWriterV2 {
  constructor(private readonly uploads: IBucket) {
    super({ bucket: uploads, prefix: MAP_RESULTS_PREFIX });
  }

  override providePolicyStatements(): PolicyStatement[] {
    return [
      new PolicyStatement({
        actions: ['s3:PutObject', 's3:GetObject', 's3:ListMultipartUploadParts', 's3:AbortMultipartUpload'],
        resources: [this.uploads.arnForObjects(OBJECT_PATTERNS.mapResults)],
      }),
    ];
  }
}

/**
 * Loading a whole register on AWS: an operator uploads the register file to the bucket and starts the
 * state machine with `{ key, asOf }` (and `forceSweep: "<jurisdiction>"` to sweep whatever the coverage). A split function cuts the file into chunks of whole records; a
 * Distributed Map imports them, a bounded number at a time, with the same code as `bureau companies
 * import`; after a whole snapshot, a Map over scan segments marks the companies it left out gone; a
 * summary function adds the batches up into summary.json beside the upload. The execution fails,
 * and its alarm fires, when any batch failed after its retries.
 */
export class RegisterImport extends Construct {
  readonly bucket: Bucket;
  readonly stateMachine: StateMachine;
  readonly functions: ReadonlyMap<string, BureauFunction>;

  constructor(scope: Construct, id: string, props: RegisterImportProps) {
    super(scope, id);
    // The Map's result writer as the CDK now renders it, for this construct alone: the flag is off in older apps.
    this.node.setContext(DISTRIBUTED_MAP_RESULT_WRITER_V2, true);
    this.bucket = new Bucket(this, 'Uploads', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      lifecycleRules: [
        { id: 'uploads', prefix: UPLOADS_PREFIX, expiration: Duration.days(UPLOAD_RETENTION_DAYS) },
        { id: 'work', prefix: WORK_PREFIX, expiration: Duration.days(WORK_RETENTION_DAYS) },
        { id: 'unfinished-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      // Copies of public registers that expire anyway: nothing here outlives the stack.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Uploads are copies of the public registers that operators put there to import; who started each import is in CloudTrail, and every object expires within weeks.',
    });

    const built = new Map<string, BureauFunction>();
    for (const spec of props.specs) {
      const timeout = Duration.seconds(spec.timeoutSeconds ?? FUNCTION_DEFAULTS.timeoutSeconds);
      const fn = new BureauFunction(Stack.of(this), spec.id, {
        entry: join(props.repositoryRoot, spec.entry),
        description: spec.description,
        projectRoot: props.repositoryRoot,
        memorySize: spec.memoryMb ?? FUNCTION_DEFAULTS.memoryMb,
        timeout,
        ...(spec.ephemeralStorageMb ? { ephemeralStorageSize: Size.mebibytes(spec.ephemeralStorageMb) } : {}),
        ...(props.logRetention ? { logRetention: props.logRetention } : {}),
        environment: props.environment,
      });
      for (const grant of spec.tables) {
        fn.bindTable({ table: props.tables.of(grant.table), access: grant.access, writeKeyPrefixes: grant.writeKeyPrefixes });
      }
      if (spec.uploads) {
        fn.bindUploads(this.bucket, spec.uploads);
        acknowledgeObjectPatterns(fn, this.bucket, spec.uploads);
      }
      props.alarms.watchFunction(fn, timeout);
      built.set(spec.id, fn);
    }
    this.functions = built;
    const fn = (specId: string) => {
      const found = built.get(specId);
      if (!found) throw new Error(`The register import needs the ${specId} function`);
      return found;
    };

    const split = new LambdaInvoke(this, 'Split', {
      lambdaFunction: fn('registerSplit'),
      payload: TaskInput.fromObject({ key: JsonPath.stringAt('$.key'), asOf: JsonPath.stringAt('$.asOf') }),
      payloadResponseOnly: true,
      resultPath: '$.split',
    });

    const importChunk = new LambdaInvoke(this, 'ImportChunk', { lambdaFunction: fn('registerBatch'), payloadResponseOnly: true });
    // A chunk imported twice writes only what the first attempt did not: retrying is always safe. A chunk still
    // throttled after its client's retries and the batch kit's patience (shared/register/import/import-client.ts)
    // waits here for the table to finish splitting: up to about 20 minutes over six attempts, then it is a failed batch.
    importChunk.addRetry({
      errors: [Errors.TASKS_FAILED, Errors.TIMEOUT],
      interval: Duration.seconds(30),
      backoffRate: 2,
      maxAttempts: CHUNK_ATTEMPTS,
      maxDelay: Duration.minutes(5),
      jitterStrategy: JitterType.FULL,
    });
    const batches = new DistributedMap(this, 'Batches', {
      label: 'Batches',
      itemReader: new ManifestReader(this.bucket),
      itemSelector: { chunk: JsonPath.objectAt('$$.Map.Item.Value'), asOf: JsonPath.stringAt('$.asOf') },
      maxConcurrency: BATCH_CONCURRENCY,
      // A batch that fails after its retries does not stop the others: the summary names it and the execution then fails.
      toleratedFailurePercentage: 100,
      // Batches may run up to 15 minutes: longer than an express child execution may.
      mapExecutionType: StateMachineType.STANDARD,
      resultWriterV2: new MapResultsWriter(this.bucket),
      resultPath: '$.batches',
    });
    batches.itemProcessor(importChunk);

    // No payload: the state's whole input is the event. `TaskInput.fromJsonPathAt('$')` with payloadResponseOnly
    // renders `"Parameters": "$"`, and the function then receives the string "$" (aws-cdk #34260).
    const summarize = (stateId: string) =>
      new LambdaInvoke(this, stateId, { lambdaFunction: fn('registerSummary'), payloadResponseOnly: true, resultPath: '$.summary' });

    const segmentMap = (id: string, taskId: string, resultPath: string, extra: Record<string, unknown>) => {
      const task = new LambdaInvoke(this, taskId, { lambdaFunction: fn('registerSweep'), payloadResponseOnly: true });
      task.addRetry({
        errors: [Errors.TASKS_FAILED, Errors.TIMEOUT],
        interval: Duration.seconds(30),
        backoffRate: 2,
        maxAttempts: 3,
        jitterStrategy: JitterType.FULL,
      });
      return new MapState(this, id, {
        itemsPath: '$.split.sweepSegments',
        itemSelector: {
          jurisdiction: JsonPath.stringAt('$.split.jurisdiction'),
          asOf: JsonPath.stringAt('$.asOf'),
          segment: JsonPath.numberAt('$$.Map.Item.Value'),
          totalSegments: JsonPath.numberAt('$.split.totalSegments'),
          ...extra,
        },
        maxConcurrency: SWEEP_CONCURRENCY,
        resultPath,
      }).itemProcessor(task);
    };
    // The guard (shared/register/import/sweep-guard.ts): count what the snapshot covers, let the summary decide, then sweep.
    const countCoverage = segmentMap('CountSnapshotCoverage', 'CountSegment', '$.coverage', { count: true });
    const sweep = segmentMap('SweepGoneCompanies', 'SweepSegment', '$.sweep', {});

    const done = new Succeed(this, 'Done');
    const definition = split
      .next(batches)
      .next(summarize('Summarize'))
      .next(
        new Choice(this, 'AllBatchesImported')
          .when(
            Condition.numberGreaterThan('$.summary.failedBatches', 0),
            new Fail(this, 'BatchesFailed', {
              error: 'BatchesFailed',
              cause: 'Chunks failed after their retries: summary.json beside the upload names them',
            }),
          )
          // A rejected row's company would look gone when it is only unread: no sweep then, as locally.
          .when(
            Condition.and(Condition.booleanEquals('$.split.wholeSnapshot', true), Condition.numberEquals('$.summary.rejected', 0)),
            countCoverage.next(summarize('JudgeCoverage')).next(
              new Choice(this, 'SnapshotCoversRegister')
                .when(Condition.booleanEquals('$.summary.sweepAllowed', true), sweep.next(summarize('SummarizeWithSweep')).next(done))
                // Refused: summary.json says why, and the summary function counted SweepRefused.
                .otherwise(done),
            ),
          )
          .otherwise(done),
      );

    this.stateMachine = new StateMachine(this, 'StateMachine', {
      comment: 'Bureau: loads a register file uploaded to the bucket into the companies table',
      definitionBody: DefinitionBody.fromChainable(definition),
      stateMachineType: StateMachineType.STANDARD,
      // 5.8 million rows take well under an hour at BATCH_CONCURRENCY (docs/deploy.md); six is a stuck import.
      timeout: Duration.hours(6),
      tracingEnabled: true,
      logs: {
        destination: new LogGroup(this, 'Logs', { retention: props.logRetention ?? RetentionDays.ONE_MONTH }),
        level: LogLevel.ALL,
        // Inputs and outputs are chunk keys and counts: the states and errors say what an operator needs.
        includeExecutionData: false,
      },
    });
    props.alarms.watchRegisterImport('RegisterImport', this.stateMachine);
    acknowledgeStateMachineRole(this.stateMachine, [...built.values()], this.bucket);
  }
}

/** The import id in every key is new with each import, so an object grant names its kind of key with wildcards. */
function acknowledgeObjectPatterns(fn: BureauFunction, bucket: Bucket, grant: { read: readonly string[]; write: readonly string[] }) {
  const bucketId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as never);
  for (const pattern of new Set([...grant.read, ...grant.write])) {
    Validations.of(fn.executionRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${pattern}]`,
      reason: `Objects of one kind (${pattern}) under any import's id: each import has a new id.`,
    });
  }
}

function acknowledgeStateMachineRole(stateMachine: StateMachine, functions: readonly BureauFunction[], bucket: Bucket) {
  const role = stateMachine.role;
  const logicalId = (construct: Construct) => Stack.of(construct).getLogicalId(construct.node.defaultChild as never);
  Validations.of(role).acknowledge(
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'CloudWatch Logs delivery and X-Ray actions support no resource-level permissions.',
    },
    ...functions.map((fn) => ({
      id: `AwsSolutions-IAM5[Resource::<${logicalId(fn)}.Arn>:*]`,
      reason: "Invoking the function's versions, which the Step Functions task grants beside the function itself.",
    })),
    ...[OBJECT_PATTERNS.manifests, OBJECT_PATTERNS.mapResults].map((pattern) => ({
      id: `AwsSolutions-IAM5[Resource::<${logicalId(bucket)}.Arn>/${pattern}]`,
      reason: `The Map reads each import's manifest and writes each map run's results (${pattern}): ids are new with every import and run.`,
    })),
  );
  // The CDK's grant to the Distributed Map over its own child executions, whose names Step Functions makes up.
  const stack = Stack.of(stateMachine);
  const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
  const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
  const executions = `arn:<AWS::Partition>:states:${region}:${account}:execution:{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"${logicalId(stateMachine)}"}]}]}`;
  Validations.of(stateMachine.node.findChild('DistributedMapPolicy')).acknowledge(
    ...[':*', '/Batches:*'].map((suffix) => ({
      id: `AwsSolutions-IAM5[Resource::${executions}${suffix}]`,
      reason: 'The Distributed Map describes, stops and redrives its own child executions, named by Step Functions as it starts them.',
    })),
  );
}
