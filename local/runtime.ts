import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { DeleteTableCommand, type DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { functions } from '../infra/catalogue';
import { allQueues } from '../shared/queues/queues';
import { createEventApplier } from '../shared/register/stream/apply-events';
import { ensureTable } from '../shared/storage/create-tables';
import { createDocumentClient, createDynamoClient } from '../shared/storage/dynamo';
import { allTables, companiesTable, registerStreamsTable, workspaceTable } from '../shared/storage/tables';
import { invitationLink, workspaceUrl } from '../shared/workspace/invitation-link';
import { type DemoClient, runStartupHooks } from './bootstrap';
import { type DemoAccountsDay, startDemoAccountsDay } from './demo-accounts-day';
import { DEMO_PERSON_EMAIL, inviteDemoPerson } from './demo-person';
import { startSupervisedDynamoDbLocal } from './dynamodb-local';
import { EngineOutages } from './engine-outages';
import { startLocalEventSources } from './event-sources';
import { createSqsClient, startLocalSqs } from './fauxqs';
import { localFunctionEnvironment, settingsFrom } from './function-environment';
import { type LocalFunction, localFunctionFromSpec } from './functions';
import { CALL_LOG_VARIABLE } from './grants';
import { type HttpExchange, type HttpRoute, PortInUseError, startHttpServer } from './http-server';
import { startLocalKms } from './kms';
import { defaultDataDir, localPaths, localTableName, repositoryRoot } from './paths';
import { ensureQueue, localQueueSpec } from './queues';
import { eventsPerSecondFrom, type LocalRegisterStreams, startLocalRegisterStreams } from './register-stream-consumers';
import { type RuntimeInfo, readRuntimeInfo, removeRuntimeInfo, writeRuntimeInfo } from './runtime-file';
import { startLocalSecretsManager } from './secrets-manager';
import { type DemoDataset, demoDataset, type SeedOutcome, seedDemoCompanies } from './seed';
import { startLocalAccountsImport } from './state-machine/accounts-import';
import { type LocalRegisterImport, startLocalRegisterImport } from './state-machine/register-import';
import { workspaceSite } from './static-site';
import { ensureWorkspaceBuilt } from './workspace-build';

export interface LocalRuntimeOptions {
  /** HTTP port; 0 picks a free one. Default: PORT, else 3000. */
  readonly port?: number;
  /** Default: BUREAU_DATA_DIR, else .bureau/ at the repository root. */
  readonly dataDir?: string;
  /** Keep DynamoDB in memory (tests): nothing survives stop(). */
  readonly inMemory?: boolean;
  /**
   * A DynamoDB Local already running, to use instead of starting one: a test run shares one engine
   * among its runtimes. The engine keeps one database for every caller (-sharedDb), so this runtime
   * names its tables with a prefix of its own and deletes them when it stops; the engine is left
   * running. Omitted (npm start), the runtime starts, supervises and stops an engine of its own.
   */
  readonly sharedDynamoDb?: SharedDynamoDb;
  /** No request log lines and only warnings from the functions' loggers. */
  readonly quiet?: boolean;
  /** Load the demo companies on first start (npm start does; tests load what they need). */
  readonly seedDemoData?: boolean;
  /** What seedDemoData loads; default the demo dataset npm start loads (tests load a smaller one the same way). */
  readonly demoDataset?: DemoDataset;
  /** Long-poll wait of the queue pollers; default 20 s (tests stop sooner with 1). */
  readonly queueWaitSeconds?: number;
  readonly log?: (line: string) => void;
  readonly logError?: (message: string, error: unknown) => void;
  /** The runtime cannot go on (its DynamoDB Local keeps dying): npm start stops with this message. */
  readonly onFatal?: (message: string) => void;
  /** Told of every request a route answered, with the answer (tests check each against the API's document). */
  readonly onExchange?: (exchange: HttpExchange) => void;
  /**
   * The environment the operator started the runtime in: PORT, BUREAU_DYNAMODB_PORT, AWS_REGION,
   * the demo client's fixed credentials, the settings handed on to the functions, and BUREAU_CALL_LOG,
   * a folder where the functions log the AWS calls they make. Default:
   * this process's environment, which the runtime only ever reads.
   */
  readonly environment?: NodeJS.ProcessEnv;
}

export interface SharedDynamoDb {
  readonly endpoint: string;
  /** Put before each table's id: letters, digits, `_`, `-` and `.` only, as DynamoDB allows in a name. */
  readonly tablePrefix: string;
}

export interface LocalQueueInfo {
  readonly queueUrl: string;
  readonly queueArn: string;
}

export interface LocalRuntime {
  readonly baseUrl: string;
  readonly dynamodbEndpoint: string;
  readonly sqsEndpoint: string;
  /** Physical table names by table id (clients, companies, watches). */
  readonly tables: Readonly<Record<string, string>>;
  /** Queues by id, their dead-letter queues as `<id>-dlq`. */
  readonly queues: Readonly<Record<string, LocalQueueInfo>>;
  /** What the runtime provides: region, stand-in credentials, endpoints, every table and queue. */
  readonly env: Readonly<Record<string, string>>;
  /** Each function's whole environment, by catalogue id: only what its entry grants. */
  readonly functionEnvironments: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly demoClient: DemoClient;
  readonly workspace: {
    readonly url: string;
    readonly demoPerson: string;
    /** A fresh one-time link while the demo person has no password yet. */
    readonly invitationLink?: string;
  };
  readonly dataDir: string;
  /** Settles when the background load of the demo companies ends ('skipped' when not asked for). */
  readonly seeding: Promise<SeedOutcome | 'skipped' | 'failed'>;
  /** The Companies House streams' stand-in, which the runtime's consumers read and apply. */
  readonly registerStreams: Pick<LocalRegisterStreams, 'url' | 'streamKey' | 'emulator'>;
  /** Files demo accounts for the companies the local register says filed them (the demo activity tells it so). */
  readonly demoAccounts: Pick<DemoAccountsDay, 'noticeFiled'>;
  /** The register import's state machine, run from its synthesized definition against the import's functions. */
  readonly registerImport: Pick<LocalRegisterImport, 'stepFunctionsEndpoint' | 'stateMachineArn' | 's3Endpoint' | 'bucket'>;
  stop(): Promise<void>;
}

export class RuntimeAlreadyRunningError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`A local runtime (pid ${pid}) already uses ${dataDir}. Stop it first, or give this one another BUREAU_DATA_DIR.`);
    this.name = 'RuntimeAlreadyRunningError';
  }
}

export class InvalidSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidSettingError';
  }
}

const DEFAULT_PORT = 3000;
const TABLE_PREFIX = /^[A-Za-z0-9_.-]+$/;

/** A shared engine's tables of this runtime, gone with it. */
async function deleteTables(client: DynamoDBClient, names: readonly string[]): Promise<void> {
  for (const name of names) {
    try {
      await client.send(new DeleteTableCommand({ TableName: name }));
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
    }
  }
}

function portSetting(environment: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = environment[name]?.trim();
  if (!raw) return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InvalidSettingError(`${name} must be a port number from 0 to 65535, got "${raw}"`);
  return port;
}

/** Fails fast, before Java starts, when the HTTP port is taken. */
async function assertPortFree(port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? new PortInUseError(port) : error));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

/**
 * The data folder holds the database (client secret hashes), the signing keys and the demo client's
 * secret: only its owner may enter it. A folder made looser by an earlier version is tightened.
 */
function keepOwnerOnly(root: string, log: (line: string) => void): void {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const mode = statSync(root).mode & 0o777;
  if (mode !== 0o700) {
    chmodSync(root, 0o700);
    log(`Restricted ${root} to its owner (mode 0700; it was ${mode.toString(8).padStart(4, '0')}).`);
  }
}

/**
 * The whole system on this machine: DynamoDB Local, fauxqs, the tables and queues from their shared
 * definitions, the start-up hooks (signing keys, demo client), and the HTTP API serving the
 * catalogue's functions, each in instances of its own. Whatever had started is stopped again if a
 * later step fails.
 */
export async function startLocalRuntime(options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const log = options.log ?? ((line: string) => console.log(line));
  const logError = options.logError ?? ((message: string, error: unknown) => console.error(message, error));
  const environment = options.environment ?? process.env;
  const dataDir = options.dataDir ?? defaultDataDir(environment);
  const paths = { ...localPaths(dataDir), registerStreams: join(resolve(dataDir), 'register-streams') };
  const running = readRuntimeInfo(dataDir);
  if (running && running.pid !== process.pid) throw new RuntimeAlreadyRunningError(paths.root, running.pid);
  const requestedPort = options.port ?? portSetting(environment, 'PORT') ?? DEFAULT_PORT;
  const dynamoPort = portSetting(environment, 'BUREAU_DYNAMODB_PORT');
  if (options.sharedDynamoDb && !TABLE_PREFIX.test(options.sharedDynamoDb.tablePrefix))
    throw new InvalidSettingError(
      `A table prefix may hold only letters, digits, "_", "-" and ".", got "${options.sharedDynamoDb.tablePrefix}"`,
    );
  await assertPortFree(requestedPort);
  keepOwnerOnly(paths.root, log);

  const cleanups: Array<() => Promise<void> | void> = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        logError('stopping the local runtime', error);
      }
    }
  };

  try {
    const region = environment.AWS_REGION ?? 'eu-west-2';
    const baseEnv: Record<string, string> = {
      AWS_REGION: region,
      // Fake credentials: the SDK never goes looking for real ones, and nothing local could use them.
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // No CloudWatch or X-Ray here: EMF lines would only clutter the console, and there is no daemon.
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_TRACE_ENABLED: 'false',
    };
    const settings = settingsFrom(environment);
    let eventsPerSecond: number;
    try {
      eventsPerSecond = eventsPerSecondFrom(environment, Boolean(options.seedDemoData));
    } catch (error) {
      throw new InvalidSettingError((error as Error).message);
    }
    if (options.quiet && !settings.POWERTOOLS_LOG_LEVEL) settings.POWERTOOLS_LOG_LEVEL = 'WARN';

    const engineOutages = new EngineOutages();
    let dynamodbEndpoint: string;
    if (options.sharedDynamoDb) dynamodbEndpoint = options.sharedDynamoDb.endpoint;
    else {
      const dynamo = await startSupervisedDynamoDbLocal(
        { workDir: paths.work, dataDir: options.inMemory ? undefined : paths.dynamodb, port: dynamoPort, log },
        {
          outages: engineOutages,
          onRestart: ({ ended, restarts, seconds }) =>
            log(
              `DynamoDB Local stopped unexpectedly (${ended}); started it again on the same data and port in ${seconds.toFixed(1)} s (restart ${restarts} in the last minute).`,
            ),
          onGiveUp: (reason) =>
            (options.onFatal ?? ((message) => (options.logError ?? console.error)(message, undefined)))(`${reason}. Stopping.`),
        },
      );
      cleanups.push(() => dynamo.stop());
      dynamodbEndpoint = dynamo.endpoint;
    }

    const env: Record<string, string> = { ...baseEnv, DYNAMODB_ENDPOINT: dynamodbEndpoint };
    const client = createDynamoClient(env);
    cleanups.push(() => client.destroy());
    const tables: Record<string, string> = {};
    for (const def of allTables) {
      const name = options.sharedDynamoDb ? `${options.sharedDynamoDb.tablePrefix}${def.id}` : localTableName(def);
      await ensureTable(client, def, name);
      tables[def.id] = name;
      env[def.envVar] = name;
    }
    // Run after everything that reads the tables has stopped: a shared engine outlives this runtime, and keeps only what it should.
    if (options.sharedDynamoDb) cleanups.push(() => deleteTables(client, Object.values(tables)));

    // In memory, the queues keep nothing either: a test's runtime starts empty.
    const sqs = await startLocalSqs({ region, ...(options.inMemory ? {} : { journalFile: paths.queueJournal }) });
    cleanups.push(() => sqs.stop());
    const sqsClient = createSqsClient(sqs.endpoint, region);
    cleanups.push(() => sqsClient.destroy());
    env.SQS_ENDPOINT = sqs.endpoint;
    const queues: Record<string, LocalQueueInfo> = {};
    for (const def of allQueues) {
      const queue = await ensureQueue(sqsClient, localQueueSpec(def));
      queues[def.id] = { queueUrl: queue.queueUrl, queueArn: queue.queueArn };
      env[def.envVar] = queue.queueUrl;
      if (queue.dlq) {
        queues[`${def.id}-dlq`] = queue.dlq;
        env[def.deadLetter.envVar] = queue.dlq.queueUrl;
      }
    }

    const doc = createDocumentClient(client);
    const { demoClient } = await runStartupHooks({ paths, doc, tables, env: environment, log });

    const secretsManager = await startLocalSecretsManager({ signingKeyFile: paths.signingKeys });
    cleanups.push(() => secretsManager.stop());
    const kms = await startLocalKms({ keyFile: paths.webhookSecretsKey });
    cleanups.push(() => kms.stop());
    const resourceBase = { ...baseEnv, DYNAMODB_ENDPOINT: dynamodbEndpoint, SQS_ENDPOINT: sqs.endpoint };
    const functionEnvironments: Record<string, Record<string, string>> = {};
    const queueUrls = Object.fromEntries(Object.entries(queues).map(([id, queue]) => [id, queue.queueUrl]));
    // What each function may be given, by its grants: the same resources for the API's functions and the import's.
    const grantedResources = {
      base: resourceBase,
      tables,
      queues: queueUrls,
      secretsManagerEndpoint: secretsManager.endpoint,
      kmsEndpoint: kms.endpoint,
      settings,
    };
    const targets = new Map<string, LocalFunction>();
    const routes: HttpRoute[] = functions.flatMap((spec) => {
      const granted = localFunctionEnvironment(spec, {
        ...grantedResources,
        ...(environment[CALL_LOG_VARIABLE] ? { callLog: environment[CALL_LOG_VARIABLE] } : {}),
      });
      functionEnvironments[spec.id] = granted;
      const target = localFunctionFromSpec(spec, { root: repositoryRoot, environment: granted, region, engineOutages });
      targets.set(spec.id, target);
      cleanups.push(() => target.stop());
      return spec.routes.map((route) => ({ method: route.method, path: route.path, target }));
    });
    const registerImport = await startLocalRegisterImport({
      s3Endpoint: sqs.endpoint,
      region,
      root: repositoryRoot,
      environmentOf: (spec) => localFunctionEnvironment(spec, grantedResources),
      log: options.quiet ? () => {} : log,
      engineOutages,
    });
    cleanups.push(() => registerImport.stop());
    // The accounts import's state machine beside it, on the same bucket under accounts/ (docs/deploy.md, "Loading filed accounts").
    const accountsImport = await startLocalAccountsImport({
      s3Endpoint: sqs.endpoint,
      region,
      root: repositoryRoot,
      environmentOf: (spec) => localFunctionEnvironment(spec, grantedResources),
      log: options.quiet ? () => {} : log,
      engineOutages,
    });
    cleanups.push(() => accountsImport.stop());
    const eventSources = await startLocalEventSources({
      specs: functions,
      targets,
      dynamo: client,
      dynamodbEndpoint,
      sqs: sqsClient,
      tables,
      queues,
      streamCheckpointsDir: paths.streamCheckpoints,
      region,
      // Retries and failed batches are news on a console, noise in a test.
      log: options.quiet ? () => {} : log,
      ...(options.queueWaitSeconds === undefined ? {} : { queueWaitSeconds: options.queueWaitSeconds }),
    });
    cleanups.push(() => eventSources.stop());
    const http = await startHttpServer({
      port: requestedPort,
      routes,
      log: options.quiet ? undefined : log,
      logError,
      staticSite: workspaceSite(await ensureWorkspaceBuilt(log)),
      ...(options.onExchange ? { onExchange: options.onExchange } : {}),
    });
    cleanups.push(() => http.stop());
    // WebAuthn accepts "localhost" as a site, never an IP address: passkeys need this name.
    const workspaceOrigin = http.url.replace('://127.0.0.1:', '://localhost:');
    const demoInvitation = await inviteDemoPerson(doc, tables[workspaceTable.id] as string, demoClient.clientId);

    // Loaded behind the running API: on DynamoDB Local every write is synced to disk, so the first
    // load takes minutes, and the API is useful (tokens, clients, the rows already in) meanwhile.
    const seedAbort = new AbortController();
    const seeding: LocalRuntime['seeding'] = options.seedDemoData
      ? seedDemoCompanies({
          doc,
          tableName: tables[companiesTable.id] as string,
          log,
          signal: seedAbort.signal,
          dataset: options.demoDataset ?? demoDataset,
        }).catch((error: unknown) => {
          logError('Loading the demo companies failed; the next start tries again', error);
          return 'failed' as const;
        })
      : Promise.resolve('skipped' as const);
    cleanups.push(async () => {
      seedAbort.abort();
      await seeding;
    });

    // The accounts the local register files, written as a demo Accounts Data Product day and imported (README, "Receive a webhook").
    const demoAccounts = startDemoAccountsDay({
      doc,
      companiesTable: tables[companiesTable.id] as string,
      folder: join(paths.root, 'accounts'),
      log: options.quiet ? () => {} : log,
      logError,
    });
    cleanups.push(() => demoAccounts.stop());
    // The register's streams applied as deployed: the same consumer and applier, against a local register.
    const registerStreams = await startLocalRegisterStreams({
      ...(options.inMemory ? {} : { dataDir: paths.registerStreams }),
      doc,
      registerStreamsTable: tables[registerStreamsTable.id] as string,
      apply: createEventApplier({ doc, companiesTable: tables[companiesTable.id] as string, feed: 'bureau-local-stream' }),
      eventsPerSecond,
      companiesFile: (options.demoDataset ?? demoDataset).gbFile,
      log: options.quiet ? () => {} : log,
      logError,
      observer: { onAccountsFiled: demoAccounts.noticeFiled },
    });
    cleanups.push(() => registerStreams.stop());
    if (eventsPerSecond > 0) log(`Register streams: publishing about ${eventsPerSecond} demo events a second at ${registerStreams.url}.`);

    const info: RuntimeInfo = {
      pid: process.pid,
      baseUrl: http.url,
      dynamodbEndpoint,
      sqsEndpoint: sqs.endpoint,
      tables,
      queues: queueUrls,
      registerStreamsReplay: registerStreams.replay,
      registerImport: {
        stepFunctionsEndpoint: registerImport.stepFunctionsEndpoint,
        stateMachineArn: registerImport.stateMachineArn,
        s3Endpoint: registerImport.s3Endpoint,
        bucket: registerImport.bucket,
      },
      accountsImport: { stepFunctionsEndpoint: accountsImport.stepFunctionsEndpoint, stateMachineArn: accountsImport.stateMachineArn },
      startedAt: new Date().toISOString(),
    };
    writeRuntimeInfo(paths.runtime, info);
    cleanups.push(() => removeRuntimeInfo(paths.runtime));

    let stopping: Promise<void> | undefined;
    return {
      baseUrl: http.url,
      dynamodbEndpoint,
      sqsEndpoint: sqs.endpoint,
      tables,
      queues,
      env,
      functionEnvironments,
      demoClient,
      workspace: {
        url: workspaceUrl(workspaceOrigin),
        demoPerson: DEMO_PERSON_EMAIL,
        ...(demoInvitation ? { invitationLink: invitationLink(workspaceOrigin, demoInvitation) } : {}),
      },
      dataDir: paths.root,
      seeding,
      registerStreams: { url: registerStreams.url, streamKey: registerStreams.streamKey, emulator: registerStreams.emulator },
      demoAccounts: { noticeFiled: demoAccounts.noticeFiled },
      registerImport: {
        stepFunctionsEndpoint: registerImport.stepFunctionsEndpoint,
        stateMachineArn: registerImport.stateMachineArn,
        s3Endpoint: registerImport.s3Endpoint,
        bucket: registerImport.bucket,
      },
      stop: () => {
        stopping ??= stopAll();
        return stopping;
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
