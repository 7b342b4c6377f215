import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { outputIds } from '../infra/constructs/outputs';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { FileKeySetSource } from '../local/key-file';
import { LocalDataKeys, LocalKmsKey } from '../local/kms';
import { defaultDataDir, type LocalPaths, localPaths, localTableName } from '../local/paths';
import { type RuntimeInfo, readRuntimeInfo } from '../local/runtime-file';
import { SecretsManagerKeySetVault } from '../shared/auth/secrets-manager-key-sets';
import { KmsDataKeys } from '../shared/crypto/kms-data-keys';
import { EnvelopeSealer, type SecretSealer } from '../shared/crypto/secret-sealer';
import { deliveriesQueue, fanoutQueue } from '../shared/queues/queues';
import { createSqsClient } from '../shared/queues/sqs';
import { ensureTable } from '../shared/storage/create-tables';
import { createDocumentClient, createDynamoClient } from '../shared/storage/dynamo';
import {
  clientsTable,
  companiesTable,
  deliveriesTable,
  eventsTable,
  registerStreamsTable,
  type TableDefinition,
  watchesTable,
  webhooksTable,
  workspaceTable,
} from '../shared/storage/tables';
import type { Target, TargetOptions, TargetQueues, TargetTables } from './context';
import type { RegisterImportTarget } from './register-import-run';

/** The target cannot be reached or is not what it should be: exit code 2. */
export class TargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetError';
  }
}

const targetTables = {
  clients: clientsTable,
  companies: companiesTable,
  watches: watchesTable,
  webhooks: webhooksTable,
  deliveries: deliveriesTable,
  workspace: workspaceTable,
} as const;

function tablesFrom(nameOf: (def: TableDefinition) => string | undefined, where: string): TargetTables {
  const entries = Object.entries(targetTables).map(([key, def]) => {
    const name = nameOf(def);
    if (!name) throw new TargetError(`${where} names no ${def.id} table`);
    return [key, name] as const;
  });
  const registerStreams = nameOf(registerStreamsTable);
  const events = nameOf(eventsTable);
  return {
    ...Object.fromEntries(entries),
    ...(registerStreams ? { registerStreams } : {}),
    ...(events ? { events } : {}),
  } as unknown as TargetTables;
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    // Any HTTP answer will do: DynamoDB Local replies 400 to a bare GET.
    await fetch(endpoint, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

function localTarget(
  endpoint: string,
  tables: TargetTables,
  paths: LocalPaths,
  description: string,
  stop: () => Promise<void>,
  queues?: TargetQueues,
): Target {
  const client = createDynamoClient({ DYNAMODB_ENDPOINT: endpoint });
  return {
    doc: createDocumentClient(client),
    tables,
    signingKeys: new FileKeySetSource(paths.signingKeys),
    sealer: new EnvelopeSealer(new LocalDataKeys(new LocalKmsKey(paths.webhookSecretsKey))),
    ...(queues ? { queues } : {}),
    loopbackReceivers: true,
    description,
    close: async () => {
      client.destroy();
      queues?.sqs.destroy();
      await stop();
    },
  };
}

function localRegisterImportTarget(info: NonNullable<RuntimeInfo['registerImport']>): RegisterImportTarget {
  const local = { region: 'eu-west-2', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  return {
    s3: new S3Client({ ...local, endpoint: info.s3Endpoint, forcePathStyle: true }),
    sfn: new SFNClient({ ...local, endpoint: info.stepFunctionsEndpoint }),
    bucket: info.bucket,
    stateMachineArn: info.stateMachineArn,
    pollIntervalMs: LOCAL_POLL_INTERVAL_MS,
  };
}

/** A local import of a small file ends in seconds: no need to wait five between looks. */
const LOCAL_POLL_INTERVAL_MS = 500;

/**
 * The local runtime's database: through the running runtime when runtime.json points at a live
 * endpoint, otherwise by starting DynamoDB Local on the same data folder for this command only.
 */
export async function resolveLocalTarget(dataDir: string = defaultDataDir()): Promise<Target> {
  const paths = localPaths(dataDir);
  const runtime = readRuntimeInfo(dataDir);
  if (runtime && (await answers(runtime.dynamodbEndpoint))) {
    const tables = tablesFrom((def) => runtime.tables[def.id], paths.runtime);
    const deliveries = runtime.queues?.[deliveriesQueue.id];
    const deliveriesDeadLetter = runtime.queues?.[`${deliveriesQueue.id}-dlq`];
    const fanout = runtime.queues?.[fanoutQueue.id];
    const fanoutDeadLetter = runtime.queues?.[`${fanoutQueue.id}-dlq`];
    const queues =
      deliveries && deliveriesDeadLetter
        ? {
            sqs: createSqsClient({ SQS_ENDPOINT: runtime.sqsEndpoint }),
            deliveries,
            deliveriesDeadLetter,
            ...(fanout && fanoutDeadLetter ? { fanout, fanoutDeadLetter } : {}),
          }
        : undefined;
    // The runtime plays the stack's register import: the same upload, state machine and summary as deployed.
    const registerImport = runtime.registerImport ? localRegisterImportTarget(runtime.registerImport) : undefined;
    const target = localTarget(
      runtime.dynamodbEndpoint,
      tables,
      paths,
      `the local runtime at ${runtime.baseUrl}`,
      async () => {
        registerImport?.s3.destroy();
        registerImport?.sfn.destroy();
      },
      queues,
    );
    return {
      ...target,
      // WebAuthn accepts "localhost" as a site, never an IP address: the workspace is visited by this name.
      workspaceOrigin: runtime.baseUrl.replace('://127.0.0.1:', '://localhost:'),
      ...(runtime.registerStreamsReplay ? { registerStreamsReplay: runtime.registerStreamsReplay } : {}),
      ...(registerImport ? { registerImport } : {}),
    };
  }
  const database = await startDynamoDbLocal({ workDir: paths.work, dataDir: paths.dynamodb });
  try {
    const tables = tablesFrom(localTableName, 'the local database');
    const client = createDynamoClient({ DYNAMODB_ENDPOINT: database.endpoint });
    try {
      for (const def of [...Object.values(targetTables), registerStreamsTable, eventsTable])
        await ensureTable(client, def, localTableName(def));
    } finally {
      client.destroy();
    }
    return localTarget(database.endpoint, tables, paths, `the local database in ${paths.dynamodb}`, () => database.stop());
  } catch (error) {
    await database.stop();
    throw error;
  }
}

/** A stack deployed before signing secrets were sealed: nothing to seal or open them with until it is updated. */
function missingKey(stackName: string): SecretSealer {
  const refuse = async (): Promise<never> => {
    throw new TargetError(`Stack ${stackName} has no ${outputIds.webhookSecretsKeyArn} output: deploy this version of the stack first`);
  };
  return { seal: refuse, open: refuse };
}

type StackDescriber = Pick<CloudFormationClient, 'send'> & { destroy?: () => void };

/** A deployed stack: its table names come from the stack's outputs. */
export async function resolveStackTarget(stackName: string, region: string | undefined, describer?: StackDescriber): Promise<Target> {
  const cloudFormation = describer ?? new CloudFormationClient(region ? { region } : {});
  let outputs: Record<string, string>;
  try {
    const { Stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
    const [stack] = Stacks ?? [];
    if (!stack) throw new TargetError(`Stack ${stackName} was not found`);
    outputs = Object.fromEntries(
      (stack.Outputs ?? []).flatMap((o) => (o.OutputKey && o.OutputValue ? [[o.OutputKey, o.OutputValue]] : [])),
    );
  } catch (error) {
    if (error instanceof TargetError) throw error;
    throw new TargetError(`Cannot read stack ${stackName}: ${(error as Error).message}`);
  } finally {
    if (!describer) cloudFormation.destroy?.();
  }
  const tables = tablesFrom((def) => outputs[outputIds.tableName(def.id)], `Stack ${stackName}'s outputs`);
  const client = new DynamoDBClient(region ? { region } : {});
  const secretId = outputs[outputIds.signingKeySecretArn];
  const secrets = secretId ? new SecretsManagerClient(region ? { region } : {}) : undefined;
  const deliveries = outputs[outputIds.queueUrl(deliveriesQueue.id)];
  const deliveriesDeadLetter = outputs[outputIds.deadLetterQueueUrl(deliveriesQueue.id)];
  const fanout = outputs[outputIds.queueUrl(fanoutQueue.id)];
  const fanoutDeadLetter = outputs[outputIds.deadLetterQueueUrl(fanoutQueue.id)];
  const sqs = deliveries && deliveriesDeadLetter ? new SQSClient(region ? { region } : {}) : undefined;
  const cloudWatch = new CloudWatchClient(region ? { region } : {});
  const keyArn = outputs[outputIds.webhookSecretsKeyArn];
  const kms = new KMSClient(region ? { region } : {});
  const uploadsBucket = outputs[outputIds.registerUploadsBucket];
  const stateMachineArn = outputs[outputIds.registerImportStateMachineArn];
  const registerImport =
    uploadsBucket && stateMachineArn
      ? { s3: new S3Client(region ? { region } : {}), sfn: new SFNClient(region ? { region } : {}), bucket: uploadsBucket, stateMachineArn }
      : undefined;
  return {
    ...(registerImport ? { registerImport } : {}),
    sealer: keyArn ? new EnvelopeSealer(new KmsDataKeys(kms, keyArn)) : missingKey(stackName),
    doc: createDocumentClient(client),
    tables,
    ...(secrets && secretId ? { signingKeys: new SecretsManagerKeySetVault(secrets, secretId) } : {}),
    ...(sqs && deliveries && deliveriesDeadLetter
      ? { queues: { sqs, deliveries, deliveriesDeadLetter, ...(fanout && fanoutDeadLetter ? { fanout, fanoutDeadLetter } : {}) } }
      : {}),
    cloudWatch,
    loopbackReceivers: false,
    ...(outputs[outputIds.workspaceUrl] ? { workspaceOrigin: new URL(outputs[outputIds.workspaceUrl] as string).origin } : {}),
    description: `stack ${stackName}`,
    close: async () => {
      client.destroy();
      secrets?.destroy();
      sqs?.destroy();
      cloudWatch.destroy();
      kms.destroy();
      registerImport?.s3.destroy();
      registerImport?.sfn.destroy();
    },
  };
}

/** `--stack` targets a deployed stack; without it, the local runtime. */
export function resolveTarget(options: TargetOptions): Promise<Target> {
  return options.stack ? resolveStackTarget(options.stack, options.region) : resolveLocalTarget();
}
