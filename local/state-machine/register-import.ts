import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { BucketAlreadyOwnedByYou, CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { type FunctionSpec, registerImportFunctions } from '../../infra/catalogue';
import { ENDPOINT_VARIABLES } from '../../shared/aws/clients';
import { UPLOADS_BUCKET_VARIABLE } from '../../shared/register/import/object-keys';
import type { EngineOutages } from '../engine-outages';
import { FunctionError, FunctionThrottledError, FunctionTimeoutError, type LocalFunction, localFunctionFromSpec } from '../functions';
import { Execution, type HistoryEvent, type MapRunProgress, StatesError } from './interpreter';
import {
  LOCAL_REGISTER_IMPORT,
  localFunctionArn,
  localStateMachineArn,
  registerImportDefinition,
  type StateMachineDefinition,
} from './register-import-definition';

/** The functions the register import's state machine invokes: the catalogue's, by their local ARNs. */
const STATE_MACHINE_FUNCTIONS = ['registerSplit', 'registerBatch', 'registerSummary', 'registerSweep'];

export interface LocalRegisterImportOptions {
  /** fauxqs, which serves S3 beside SQS. */
  readonly s3Endpoint: string;
  readonly region: string;
  /** A function's environment from its catalogue entry (local/function-environment.ts); the runtime adds the bucket. */
  environmentOf(spec: FunctionSpec): Record<string, string>;
  readonly root: string;
  /** Retry waits, scaled (tests run a definition's 30-second waits in milliseconds); default 1. */
  readonly retryDelayScale?: number;
  /** The definition to run; default the synthesized one (register-import.asl.json). */
  readonly definition?: StateMachineDefinition;
  /** The functions the definition invokes, and the state machine's name and what its log lines call it: default the register import's. */
  readonly machine?: { readonly functions: readonly FunctionSpec[]; readonly name: string; readonly label: string };
  readonly log?: (line: string) => void;
  /** The local engine's outages, which do not count against a function's timeout. */
  readonly engineOutages?: EngineOutages;
}

export interface LocalRegisterImport {
  /** Where the Step Functions API is served: StartExecution, DescribeExecution, GetExecutionHistory, ListMapRuns, DescribeMapRun. */
  readonly stepFunctionsEndpoint: string;
  readonly stateMachineArn: string;
  readonly bucket: string;
  readonly s3Endpoint: string;
  stop(): Promise<void>;
}

interface ExecutionRecord {
  readonly executionArn: string;
  readonly name: string;
  readonly input: string;
  readonly startDate: Date;
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED';
  stopDate?: Date;
  output?: string;
  error?: string;
  cause?: string;
  readonly events: HistoryEvent[];
  readonly mapRuns: Map<string, MapRunProgress & { startDate: Date }>;
}

class ApiError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** An event as GetExecutionHistory answers it. */
function historyDetails(event: HistoryEvent): Record<string, unknown> {
  switch (event.type) {
    case 'StateEntered':
      return { type: `${event.stateType}StateEntered`, stateEnteredEventDetails: { name: event.name } };
    case 'StateExited':
      return { type: `${event.stateType}StateExited`, stateExitedEventDetails: { name: event.name } };
    case 'MapRunStarted':
      return { type: 'MapRunStarted', mapRunStartedEventDetails: { name: event.name, total: event.total } };
    case 'TaskRetried':
      return { type: 'TaskFailed', taskFailedEventDetails: { resourceType: 'lambda', error: event.error } };
  }
}

const seconds = (date: Date | undefined) => (date ? date.getTime() / 1000 : undefined);

/**
 * The register import's state machine on this machine: the definition the CDK synthesizes, run by the
 * local interpreter against the import's functions (each in instances of its own, as Lambda would run
 * them) and the uploads bucket in fauxqs's S3, behind the Step Functions API the CLI calls on AWS.
 */
export async function startLocalRegisterImport(options: LocalRegisterImportOptions): Promise<LocalRegisterImport> {
  const definition = options.definition ?? registerImportDefinition();
  const s3 = new S3Client({
    endpoint: options.s3Endpoint,
    region: options.region,
    forcePathStyle: true,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    await s3.send(new CreateBucketCommand({ Bucket: LOCAL_REGISTER_IMPORT.bucket }));
  } catch (error) {
    if (!(error instanceof BucketAlreadyOwnedByYou)) throw error;
  }

  const machine = options.machine ?? {
    functions: STATE_MACHINE_FUNCTIONS.map((specId) => {
      const spec = registerImportFunctions.find((candidate) => candidate.id === specId);
      if (!spec) throw new Error(`The register import needs the ${specId} function`);
      return spec;
    }),
    name: LOCAL_REGISTER_IMPORT.stateMachineName,
    label: 'register import',
  };
  const functions = new Map<string, LocalFunction>();
  for (const spec of machine.functions) {
    const specId = spec.id;
    const environment = {
      ...options.environmentOf(spec),
      [ENDPOINT_VARIABLES.s3]: options.s3Endpoint,
      [UPLOADS_BUCKET_VARIABLE]: LOCAL_REGISTER_IMPORT.bucket,
    };
    functions.set(
      localFunctionArn(specId),
      localFunctionFromSpec(spec, { root: options.root, environment, region: options.region, engineOutages: options.engineOutages }),
    );
  }

  const scale = options.retryDelayScale ?? 1;
  const adapters = {
    invoke: async (resource: string, input: unknown) => {
      const fn = functions.get(resource);
      if (!fn) throw new StatesError('States.TaskFailed', `no local function ${resource}`);
      try {
        return await fn.invoke(input);
      } catch (error) {
        // Named as Step Functions names a Lambda task's failures: the function's own error type, or Lambda's.
        if (error instanceof FunctionThrottledError) throw new StatesError('Lambda.TooManyRequestsException', error.message);
        if (error instanceof FunctionTimeoutError) throw new StatesError('Sandbox.Timedout', error.message);
        if (error instanceof FunctionError) {
          const [, name = 'Error', message = error.message] = /^[^:]+: ([^:]+): ([\s\S]*)$/.exec(error.message) ?? [];
          throw new StatesError(name, message);
        }
        throw new StatesError('Lambda.ServiceException', (error as Error).message);
      }
    },
    readJson: async (bucket: string, key: string) => {
      const { Body } = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return JSON.parse((await Body?.transformToString('utf8')) ?? 'null');
    },
    writeJson: async (bucket: string, key: string, value: unknown) => {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: JSON.stringify(value), ContentType: 'application/json' }));
    },
    retryDelayMs: (asked: number) => asked * scale,
  };

  const stateMachineArn = localStateMachineArn(machine.name);
  const executions = new Map<string, ExecutionRecord>();
  const running = new Set<Promise<void>>();
  const log = options.log ?? (() => {});

  const start = (body: { stateMachineArn?: string; name?: string; input?: string }) => {
    if (body.stateMachineArn !== stateMachineArn)
      throw new ApiError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${body.stateMachineArn}'`);
    const name = body.name ?? randomBytes(8).toString('hex');
    const executionArn = `arn:aws:states:${options.region}:${LOCAL_REGISTER_IMPORT.accountId}:execution:${machine.name}:${name}`;
    if (executions.has(executionArn)) throw new ApiError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    const input = body.input ?? '{}';
    const record: ExecutionRecord = { executionArn, name, input, startDate: new Date(), status: 'RUNNING', events: [], mapRuns: new Map() };
    executions.set(executionArn, record);
    const execution = new Execution(
      adapters,
      {
        onEvent: (event) => {
          record.events.push(event);
          if (event.type === 'StateEntered') log(`${machine.label} ${name}: ${event.name}`);
        },
        onMapRun: (run) => {
          const known = record.mapRuns.get(run.mapRunId);
          record.mapRuns.set(run.mapRunId, Object.assign(known ?? { startDate: new Date() }, run));
        },
      },
      name,
    );
    const done = execution
      .run(definition, JSON.parse(input), { Execution: { Id: executionArn, Name: name, Input: JSON.parse(input) } })
      .then(
        (output) => {
          record.output = JSON.stringify(output);
          record.status = 'SUCCEEDED';
        },
        (error: unknown) => {
          const failure = error instanceof StatesError ? error : new StatesError('States.Runtime', String(error));
          record.error = failure.error;
          record.cause = failure.cause;
          record.status = 'FAILED';
        },
      )
      .finally(() => {
        record.stopDate = new Date();
        log(`${machine.label} ${name}: ${record.status}${record.error ? ` (${record.error}: ${record.cause})` : ''}`);
        running.delete(done);
      });
    running.add(done);
    return { executionArn, startDate: seconds(record.startDate) };
  };

  const executionOf = (arn: string | undefined) => {
    const record = executions.get(arn ?? '');
    if (!record) throw new ApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);
    return record;
  };
  const mapRunOf = (arn: string | undefined) => {
    for (const record of executions.values()) {
      for (const run of record.mapRuns.values()) if (mapRunArnOf(record, run) === arn) return { record, run };
    }
    throw new ApiError('ResourceNotFound', `Map Run Does Not Exist: '${arn}'`);
  };
  const mapRunArnOf = (record: ExecutionRecord, run: MapRunProgress) =>
    `arn:aws:states:${options.region}:${LOCAL_REGISTER_IMPORT.accountId}:mapRun:${machine.name}/${run.label}:${record.name}-${run.mapRunId}`;

  const actions: Record<string, (body: Record<string, string>) => unknown> = {
    StartExecution: start,
    DescribeExecution: (body) => {
      const record = executionOf(body.executionArn);
      return {
        executionArn: record.executionArn,
        stateMachineArn,
        name: record.name,
        status: record.status,
        startDate: seconds(record.startDate),
        stopDate: seconds(record.stopDate),
        input: record.input,
        output: record.output,
        error: record.error,
        cause: record.cause,
      };
    },
    GetExecutionHistory: (body) => {
      const record = executionOf(body.executionArn);
      return {
        events: record.events.map((event, index) => ({ id: index + 1, timestamp: seconds(event.at), ...historyDetails(event) })),
      };
    },
    ListMapRuns: (body) => {
      const record = executionOf(body.executionArn);
      return {
        mapRuns: [...record.mapRuns.values()].map((run) => ({
          executionArn: record.executionArn,
          mapRunArn: mapRunArnOf(record, run),
          stateMachineArn,
          startDate: seconds(run.startDate),
        })),
      };
    },
    DescribeMapRun: (body) => {
      const { record, run } = mapRunOf(body.mapRunArn);
      return {
        mapRunArn: body.mapRunArn,
        executionArn: record.executionArn,
        status: run.status,
        startDate: seconds(run.startDate),
        itemCounts: {
          pending: run.total - run.succeeded - run.failed - run.running,
          running: run.running,
          succeeded: run.succeeded,
          failed: run.failed,
          timedOut: 0,
          aborted: 0,
          total: run.total,
          resultsWritten: run.status === 'RUNNING' ? 0 : run.total,
        },
      };
    },
  };

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      const action = actions[target.replace(/^AWSStepFunctions\./, '')];
      let status = 200;
      let answer: unknown;
      try {
        if (!action) throw new ApiError('UnknownOperationException', `The local Step Functions does not serve ${target}`);
        answer = action(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'));
      } catch (error) {
        status = 400;
        answer =
          error instanceof ApiError
            ? { __type: error.type, message: error.message }
            : { __type: 'InternalFailure', message: String(error) };
      }
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    stepFunctionsEndpoint: `http://127.0.0.1:${port}`,
    stateMachineArn,
    bucket: LOCAL_REGISTER_IMPORT.bucket,
    s3Endpoint: options.s3Endpoint,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // An execution under way fails with its functions' instances: as on AWS, a stopped import is started again.
      await Promise.all([...functions.values()].map((fn) => fn.stop()));
      await Promise.allSettled([...running]);
      s3.destroy();
    },
  };
}
