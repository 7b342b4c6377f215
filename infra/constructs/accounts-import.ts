import { join } from 'node:path';
import { Duration, Stack, Token, Validations } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket, IBucket } from 'aws-cdk-lib/aws-s3';
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
import { ACCOUNTS_STATE_MACHINE_VARIABLE } from '../../shared/accounts/import/accounts-download';
import {
  ACCOUNTS_MAP_RESULTS_PREFIX,
  ACCOUNTS_OBJECT_PATTERNS,
  ACCOUNTS_PREFIX,
  ACCOUNTS_WORK_PREFIX,
} from '../../shared/accounts/import/accounts-object-keys';
import { FUNCTION_DEFAULTS, type FunctionSpec } from '../catalogue';
import type { Alarms } from './alarms';
import { BureauFunction } from './bureau-function';
import type { BureauTables } from './tables';

/**
 * Working days at 07:30 UTC: Companies House publishes a day's archive overnight, and each run looks
 * back a week (shared/accounts/import/accounts-download.ts), so a file published late, or on a day
 * without a run, is brought in by the next.
 */
export const ACCOUNTS_DOWNLOAD_SCHEDULE = 'cron(30 7 ? * MON-FRI *)';
/**
 * Windows imported at once. A window reads some 130 filings a second on one vCPU and writes one
 * conditional put per changed profile (a profile item is about 6 KB: 6 write units), so 5 at once
 * write at most about 3,900 units a second: under the 4,000 a new on-demand table serves, whatever
 * the table has served before (docs/deploy.md, "Loading filed accounts").
 */
export const ACCOUNTS_ITEM_CONCURRENCY = 5;
/** Retries of a window after its first attempt. */
export const ACCOUNTS_ITEM_ATTEMPTS = 4;
/** Days an archive and its summary.json are kept, and the manifests and map results. */
export const ACCOUNTS_RETENTION_DAYS = 35;
export const ACCOUNTS_WORK_RETENTION_DAYS = 7;

export interface AccountsImportProps {
  readonly specs: readonly FunctionSpec[];
  readonly tables: BureauTables;
  readonly alarms: Alarms;
  /** The register import's uploads bucket: the archives live beside the register files, under a prefix of their own. */
  readonly bucket: Bucket;
  readonly repositoryRoot: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetention?: RetentionDays;
  /** False leaves the download unscheduled (an operator still runs it by hand). */
  readonly scheduled?: boolean;
}

/** The Map reads its manifest and nothing else of the bucket (the CDK's reader would grant every object). */
class ManifestReader extends S3JsonItemReader {
  constructor(private readonly uploads: IBucket) {
    super({ bucket: uploads, key: JsonPath.stringAt('$.split.manifestKey') });
  }

  override providePolicyStatements(): PolicyStatement[] {
    return [
      new PolicyStatement({ actions: ['s3:GetObject'], resources: [this.uploads.arnForObjects(ACCOUNTS_OBJECT_PATTERNS.manifests)] }),
    ];
  }
}

/** The Map writes its results under their prefix only. */
class MapResultsWriter extends ResultWriterV2 {
  constructor(private readonly uploads: IBucket) {
    super({ bucket: uploads, prefix: ACCOUNTS_MAP_RESULTS_PREFIX });
  }

  override providePolicyStatements(): PolicyStatement[] {
    return [
      new PolicyStatement({
        actions: ['s3:PutObject', 's3:GetObject', 's3:ListMultipartUploadParts', 's3:AbortMultipartUpload'],
        resources: [this.uploads.arnForObjects(ACCOUNTS_OBJECT_PATTERNS.mapResults)],
      }),
    ];
  }
}

/**
 * Filed accounts loaded on AWS: each working day the download function brings the Accounts Data
 * Product's new archives into the uploads bucket (under `accounts/`) and starts the state machine on
 * each; an operator starts it the same way on a monthly archive. A split function reads the archive's
 * central directory by ranged GETs and writes a manifest of windows; a Distributed Map reads each
 * window's entries from S3 and stores their figures; a summary function adds the windows up into
 * summary.json beside the archive. The execution fails, and its alarm fires, when a window failed
 * after its retries.
 */
export class AccountsImport extends Construct {
  readonly stateMachine: StateMachine;
  readonly functions: ReadonlyMap<string, BureauFunction>;
  readonly rule?: Rule;

  constructor(scope: Construct, id: string, props: AccountsImportProps) {
    super(scope, id);
    // The Map's result writer as the CDK now renders it, for this construct alone: the flag is off in older apps.
    this.node.setContext(DISTRIBUTED_MAP_RESULT_WRITER_V2, true);
    props.bucket.addLifecycleRule({ id: 'accounts', prefix: ACCOUNTS_PREFIX, expiration: Duration.days(ACCOUNTS_RETENTION_DAYS) });
    props.bucket.addLifecycleRule({
      id: 'accounts-work',
      prefix: ACCOUNTS_WORK_PREFIX,
      expiration: Duration.days(ACCOUNTS_WORK_RETENTION_DAYS),
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
        ...(props.logRetention ? { logRetention: props.logRetention } : {}),
        environment: props.environment,
      });
      for (const grant of spec.tables) {
        fn.bindTable({ table: props.tables.of(grant.table), access: grant.access, writeKeyPrefixes: grant.writeKeyPrefixes });
      }
      if (spec.uploads) {
        fn.bindUploads(props.bucket, spec.uploads);
        acknowledgeObjectPatterns(fn, props.bucket, [...spec.uploads.read, ...spec.uploads.write]);
      }
      props.alarms.watchFunction(fn, timeout);
      built.set(spec.id, fn);
    }
    this.functions = built;
    const fn = (specId: string) => {
      const found = built.get(specId);
      if (!found) throw new Error(`The accounts import needs the ${specId} function`);
      return found;
    };

    const split = new LambdaInvoke(this, 'Split', {
      lambdaFunction: fn('accountsSplit'),
      payload: TaskInput.fromObject({ key: JsonPath.stringAt('$.key') }),
      payloadResponseOnly: true,
      resultPath: '$.split',
    });
    split.addRetry({ errors: [Errors.TASKS_FAILED], interval: Duration.seconds(10), backoffRate: 2, maxAttempts: 2 });

    const importItem = new LambdaInvoke(this, 'ImportWindow', { lambdaFunction: fn('accountsItem'), payloadResponseOnly: true });
    // A window imported twice stores nothing the first attempt stored (a filing already held changes nothing): retrying is safe.
    importItem.addRetry({
      errors: [Errors.TASKS_FAILED, Errors.TIMEOUT],
      interval: Duration.seconds(30),
      backoffRate: 2,
      maxAttempts: ACCOUNTS_ITEM_ATTEMPTS,
      maxDelay: Duration.minutes(5),
      jitterStrategy: JitterType.FULL,
    });
    const windows = new DistributedMap(this, 'Windows', {
      label: 'Windows',
      itemReader: new ManifestReader(props.bucket),
      itemSelector: {
        key: JsonPath.stringAt('$.key'),
        archive: JsonPath.stringAt('$.split.archive'),
        size: JsonPath.numberAt('$.split.size'),
        etag: JsonPath.stringAt('$.split.etag'),
        item: JsonPath.objectAt('$$.Map.Item.Value'),
      },
      maxConcurrency: ACCOUNTS_ITEM_CONCURRENCY,
      // A window that fails after its retries does not stop the others: the summary names it and the execution then fails.
      toleratedFailurePercentage: 100,
      // A window under throttling may take minutes: longer than an express child execution may.
      mapExecutionType: StateMachineType.STANDARD,
      resultWriterV2: new MapResultsWriter(props.bucket),
      resultPath: '$.items',
    });
    windows.itemProcessor(importItem);

    // No payload: the state's whole input is the event (`TaskInput.fromJsonPathAt('$')` renders `"Parameters": "$"`, aws-cdk #34260).
    const summarize = new LambdaInvoke(this, 'Summarize', {
      lambdaFunction: fn('accountsSummary'),
      payloadResponseOnly: true,
      resultPath: '$.summary',
    });

    const definition = split
      .next(windows)
      .next(summarize)
      .next(
        new Choice(this, 'AllWindowsImported')
          .when(
            Condition.numberGreaterThan('$.summary.failedItems', 0),
            new Fail(this, 'WindowsFailed', {
              error: 'WindowsFailed',
              cause: 'Windows of the archive failed after their retries: summary.json beside the archive names them',
            }),
          )
          .otherwise(new Succeed(this, 'Done')),
      );

    this.stateMachine = new StateMachine(this, 'StateMachine', {
      comment: 'Bureau: stores the figures of an Accounts Data Product archive uploaded to the bucket in the profiles',
      definitionBody: DefinitionBody.fromChainable(definition),
      stateMachineType: StateMachineType.STANDARD,
      // A monthly archive takes well under an hour (docs/deploy.md, "Loading filed accounts"); four is a stuck import.
      timeout: Duration.hours(4),
      tracingEnabled: true,
      logs: {
        destination: new LogGroup(this, 'Logs', { retention: props.logRetention ?? RetentionDays.ONE_MONTH }),
        level: LogLevel.ALL,
        includeExecutionData: false,
      },
    });
    props.alarms.watchAccountsImport('AccountsImport', this.stateMachine);
    acknowledgeStateMachineRole(this.stateMachine, [...built.values()], props.bucket);

    const download = fn('accountsDownload');
    download.addEnvironment(ACCOUNTS_STATE_MACHINE_VARIABLE, this.stateMachine.stateMachineArn);
    this.stateMachine.grantStartExecution(download);
    // Whether an archive is already in the bucket, by listing its key: never the register's uploads.
    download.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [props.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${ACCOUNTS_PREFIX}*`] } },
      }),
    );
    if (props.scheduled === false) return;
    this.rule = new Rule(this, 'Schedule', {
      description: "Bureau: each working day, the last days' Accounts Data Product archives fetched and imported",
      schedule: Schedule.expression(ACCOUNTS_DOWNLOAD_SCHEDULE),
      // The next working day's run looks back over this one's days: a run that cannot start within hours adds nothing.
      targets: [new LambdaFunction(download, { maxEventAge: Duration.hours(2), retryAttempts: 2 })],
    });
  }
}

const logicalId = (construct: Construct) => Stack.of(construct).getLogicalId(construct.node.defaultChild as never);

/** Each archive's key is new, so an object grant names its kind of key with wildcards. */
function acknowledgeObjectPatterns(fn: BureauFunction, bucket: Bucket, patterns: readonly string[]) {
  for (const pattern of new Set(patterns)) {
    Validations.of(fn.executionRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${logicalId(bucket)}.Arn>/${pattern}]`,
      reason: `Objects of one kind (${pattern}) of any archive: each archive has a key of its own.`,
    });
  }
}

function acknowledgeStateMachineRole(stateMachine: StateMachine, functions: readonly BureauFunction[], bucket: Bucket) {
  Validations.of(stateMachine.role).acknowledge(
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'CloudWatch Logs delivery and X-Ray actions support no resource-level permissions.',
    },
    ...functions.map((fn) => ({
      id: `AwsSolutions-IAM5[Resource::<${logicalId(fn)}.Arn>:*]`,
      reason: "Invoking the function's versions, which the Step Functions task grants beside the function itself.",
    })),
    ...[ACCOUNTS_OBJECT_PATTERNS.manifests, ACCOUNTS_OBJECT_PATTERNS.mapResults].map((pattern) => ({
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
    ...[':*', '/Windows:*'].map((suffix) => ({
      id: `AwsSolutions-IAM5[Resource::${executions}${suffix}]`,
      reason: 'The Distributed Map describes, stops and redrives its own child executions, named by Step Functions as it starts them.',
    })),
  );
}
