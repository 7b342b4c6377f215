import { isAbsolute, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { FUNCTION_DEFAULTS, type FunctionSpec } from '../infra/catalogue';
import type { EngineOutages } from './engine-outages';
import { functionBundle } from './function-bundle';
import type { InstanceData, InvocationReply, InvocationRequest } from './instance/instance-main';
import type { LocalFunctionIdentity } from './lambda-context';

/** Where a local function says it runs; only visible in ARNs and the context object. */
export const LOCAL_ACCOUNT_ID = '000000000000';

/**
 * Instances one local function of the catalogue may run at once: on AWS a function scales with the
 * account's concurrency; one machine gets a small fixed pool instead.
 */
export const LOCAL_CONCURRENCY = 10;

export interface LocalFunctionOptions {
  readonly functionName: string;
  /** Handler module: absolute, or relative to the repository root. It exports `handler`. */
  readonly entry: string;
  readonly timeoutSeconds?: number;
  readonly memoryMb?: number;
  readonly region?: string;
  /** Resolves relative entries; defaults to the current directory. */
  readonly root?: string;
  /** The whole of process.env inside the function: nothing else is inherited. */
  readonly environment?: Readonly<Record<string, string>>;
  /** Instances that may run at once; beyond them an invocation is throttled. */
  readonly concurrency?: number;
  /** The local engine's outages, which do not count against the timeout (engine-outages.ts). */
  readonly engineOutages?: EngineOutages;
}

export class FunctionTimeoutError extends Error {
  constructor(functionName: string, seconds: number) {
    super(`${functionName}: Task timed out after ${seconds} seconds`);
    this.name = 'FunctionTimeoutError';
  }
}

/** Every instance is busy and the function may run no more: Lambda's TooManyRequestsException. */
export class FunctionThrottledError extends Error {
  constructor(
    readonly functionName: string,
    readonly concurrency: number,
  ) {
    super(`${functionName}: Rate Exceeded (all ${concurrency} instances are busy)`);
    this.name = 'FunctionThrottledError';
  }
}

/** An error a handler threw, carried back from its instance. */
export class FunctionError extends Error {
  constructor(functionName: string, error: { name: string; message: string; stack?: string }) {
    super(`${functionName}: ${error.name}: ${error.message}`);
    this.name = 'FunctionError';
    if (error.stack) this.stack = error.stack;
  }
}

/**
 * Lambda allows 10 s to load a function; one machine starting many instances at once is slower than
 * AWS, so a hung import is caught with more room.
 */
const INIT_TIMEOUT_SECONDS = 30;

/** One execution environment: a worker thread that serves one invocation at a time. */
class FunctionInstance {
  private readonly worker: Worker;
  private pending: { started(): void; resolve(value: unknown): void; reject(error: Error): void } | undefined;
  private dead = false;

  constructor(
    private readonly functionName: string,
    code: string,
    data: InstanceData,
    environment: Readonly<Record<string, string>>,
  ) {
    // Not the runtime's own flags (tsx's loader among them): the bundle is plain JavaScript, and its
    // source map keeps stack traces pointing at the TypeScript.
    this.worker = new Worker(code, { workerData: data, env: { ...environment }, execArgv: ['--enable-source-maps'] });
    // An idle instance must not keep the runtime's process alive; an invocation in flight does.
    this.worker.unref();
    this.worker.on('message', (reply: InvocationReply) => {
      if ('started' in reply) return this.pending?.started();
      const pending = this.pending;
      this.pending = undefined;
      if (!pending) return;
      if (reply.ok) return pending.resolve(reply.result);
      if (reply.initFailed) void this.terminate();
      pending.reject(new FunctionError(this.functionName, reply.error));
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`${this.functionName}: the instance exited with code ${code}`)));
  }

  get usable(): boolean {
    return !this.dead;
  }

  /** The timeout counts from the handler call, as Lambda's does: a cold start's init is not part of it. */
  invoke(event: unknown, timeoutSeconds: number, outages?: EngineOutages): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined = setTimeout(() => {
        void this.terminate();
        this.fail(new Error(`${this.functionName}: the instance did not start within ${INIT_TIMEOUT_SECONDS} s`));
      }, INIT_TIMEOUT_SECONDS * 1000);
      this.pending = {
        started: () => {
          clearTimeout(timer);
          let credited = outages?.totalMs() ?? 0;
          const expire = () => {
            const owed = (outages?.totalMs() ?? 0) - credited;
            if (owed > 0) {
              credited += owed;
              timer = setTimeout(expire, owed);
              return;
            }
            // Lambda ends an environment that timed out; whatever it was doing goes with it.
            void this.terminate();
            this.fail(new FunctionTimeoutError(this.functionName, timeoutSeconds));
          };
          timer = setTimeout(expire, timeoutSeconds * 1000);
        },
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.worker.ref();
      this.worker.postMessage({ event } satisfies InvocationRequest);
    }).finally(() => {
      if (!this.dead) this.worker.unref();
    });
  }

  async terminate(): Promise<void> {
    this.dead = true;
    await this.worker.terminate();
  }

  private fail(error: Error): void {
    this.dead = true;
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(error);
  }
}

/**
 * One Lambda function played locally. Each instance is a worker thread with only the environment the
 * function is given, so a variable, table or key it was not granted is missing here as it would be
 * deployed, and module state is never shared with another function. An instance serves one
 * invocation at a time; the function starts instances on demand up to its concurrency, and beyond
 * that throttles at once rather than queueing. A timeout or a failed init discards the instance.
 */
export class LocalFunction {
  readonly functionName: string;
  readonly timeoutSeconds: number;
  readonly concurrency: number;
  private readonly data: InstanceData;
  private readonly environment: Readonly<Record<string, string>>;
  private readonly engineOutages: EngineOutages | undefined;
  /** The instances' code, built from the start: the first cold start should not also wait for it. */
  private readonly code: Promise<string>;
  private readonly idle: FunctionInstance[] = [];
  private readonly all = new Set<FunctionInstance>();

  constructor(options: LocalFunctionOptions) {
    this.functionName = options.functionName;
    this.timeoutSeconds = options.timeoutSeconds ?? FUNCTION_DEFAULTS.timeoutSeconds;
    this.concurrency = options.concurrency ?? LOCAL_CONCURRENCY;
    const entry = isAbsolute(options.entry) ? options.entry : resolve(options.root ?? process.cwd(), options.entry);
    const identity: LocalFunctionIdentity = {
      functionName: options.functionName,
      memoryMb: options.memoryMb ?? FUNCTION_DEFAULTS.memoryMb,
      timeoutSeconds: this.timeoutSeconds,
      region: options.region ?? options.environment?.AWS_REGION ?? 'eu-west-2',
      accountId: LOCAL_ACCOUNT_ID,
    };
    this.data = { identity };
    this.environment = options.environment ?? {};
    this.engineOutages = options.engineOutages;
    this.code = functionBundle(entry).catch((error: Error) => {
      throw new Error(`${this.functionName}: its code could not be built: ${error.message}`);
    });
    // A function nobody invokes must not fail the runtime over its build: only an invocation hears of it.
    this.code.catch(() => {});
  }

  /** Instances that exist now, busy or idle. */
  get instances(): number {
    return this.all.size;
  }

  async invoke(event: unknown): Promise<unknown> {
    const instance = this.acquire(await this.code);
    try {
      return await instance.invoke(event, this.timeoutSeconds, this.engineOutages);
    } finally {
      if (instance.usable) this.idle.push(instance);
      else this.all.delete(instance);
    }
  }

  /** Ends every instance, busy or not. */
  async stop(): Promise<void> {
    const instances = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(instances.map((instance) => instance.terminate()));
  }

  private acquire(code: string): FunctionInstance {
    for (let instance = this.idle.pop(); instance; instance = this.idle.pop()) {
      if (instance.usable) return instance;
      this.all.delete(instance);
    }
    if (this.all.size >= this.concurrency) throw new FunctionThrottledError(this.functionName, this.concurrency);
    const instance = new FunctionInstance(this.functionName, code, this.data, this.environment);
    this.all.add(instance);
    return instance;
  }
}

export function localFunctionName(spec: Pick<FunctionSpec, 'id'>): string {
  return `bureau-${spec.id}`;
}

export function localFunctionFromSpec(
  spec: FunctionSpec,
  options: { root: string; environment: Readonly<Record<string, string>>; region?: string; engineOutages?: EngineOutages },
): LocalFunction {
  return new LocalFunction({
    functionName: localFunctionName(spec),
    entry: spec.entry,
    root: options.root,
    timeoutSeconds: spec.timeoutSeconds,
    memoryMb: spec.memoryMb,
    region: options.region,
    environment: options.environment,
    engineOutages: options.engineOutages,
  });
}
