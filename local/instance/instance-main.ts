import { parentPort, workerData } from 'node:worker_threads';
import type { Context } from 'aws-lambda';
import { onAwsClientCreated } from '../../shared/aws/client-hooks';
import { rideOutEngineRestarts } from '../engine-restarts';
import { localGrantHook } from '../grants';
import { createLambdaContext, type LocalFunctionIdentity } from '../lambda-context';

/**
 * One Lambda execution environment: a thread with its own module graph and its own process.env,
 * holding the function's handler. It serves one invocation at a time; the module is imported on the
 * first, as a cold start would.
 */
export interface InstanceData {
  readonly identity: LocalFunctionIdentity;
}

export interface InvocationRequest {
  readonly event: unknown;
}

export type InvocationReply =
  /** The module is loaded and the handler called: the function's timeout runs from here, not from init. */
  | { readonly started: true }
  | { readonly ok: true; readonly result: unknown }
  | {
      readonly ok: false;
      readonly error: { readonly name: string; readonly message: string; readonly stack?: string };
      /** The handler module failed to load: this environment is unusable, as after a failed Lambda init. */
      readonly initFailed: boolean;
    };

type Handler = (event: unknown, context: Context) => Promise<unknown>;

const describe = (error: unknown) =>
  error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : { name: 'Error', message: String(error) };

/**
 * Serves this thread's invocations with the handler `load` imports, the first time one comes. The
 * instance's bundle (function-bundle.ts) calls it with the handler's module as a lazy import.
 */
export function serveInvocations(entry: string, load: () => Promise<{ handler?: unknown }>): void {
  const { identity } = workerData as InstanceData;

  // On every AWS client the handler builds, IAM's stand-in and calls that wait out a restart of
  // DynamoDB Local: installed before the handler loads, and from here, so no deployed bundle carries them.
  const grants = localGrantHook(process.env);
  if (grants) onAwsClientCreated(grants);
  onAwsClientCreated(rideOutEngineRestarts());

  let loading: Promise<Handler> | undefined;
  const handlerOf = (): Promise<Handler> => {
    loading ??= load().then((module) => {
      if (typeof module.handler !== 'function') throw new Error(`${entry} does not export a handler function`);
      return module.handler as Handler;
    });
    return loading;
  };

  parentPort?.on('message', async ({ event }: InvocationRequest) => {
    let handler: Handler;
    try {
      handler = await handlerOf();
    } catch (error) {
      parentPort?.postMessage({ ok: false, error: describe(error), initFailed: true } satisfies InvocationReply);
      return;
    }
    try {
      parentPort?.postMessage({ started: true } satisfies InvocationReply);
      const result = await handler(event, createLambdaContext(identity));
      parentPort?.postMessage({ ok: true, result } satisfies InvocationReply);
    } catch (error) {
      parentPort?.postMessage({ ok: false, error: describe(error), initFailed: false } satisfies InvocationReply);
    }
  });
}
