import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { FUNCTION_DEFAULTS, type FunctionSpec } from '../catalogue';
import { createLambdaContext } from './lambda-context';

/** Where a local function says it runs; only visible in ARNs and the context object. */
export const LOCAL_ACCOUNT_ID = '000000000000';

export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

export interface LocalFunctionOptions {
  readonly functionName: string;
  /** Handler module: absolute, or relative to the repository root. It exports `handler`. */
  readonly entry: string;
  readonly timeoutSeconds?: number;
  readonly memoryMb?: number;
  readonly region?: string;
  /** Resolves relative entries; defaults to the current directory. */
  readonly root?: string;
}

export class FunctionTimeoutError extends Error {
  constructor(functionName: string, seconds: number) {
    super(`${functionName}: Task timed out after ${seconds} seconds`);
    this.name = 'FunctionTimeoutError';
  }
}

/**
 * One Lambda function played in-process. The module is imported on first use, as a cold start
 * would (so it reads the environment the runtime prepared); after a failed import the next invocation
 * tries again, as Lambda repeats a failed init. The timeout counts from the handler call, not the init.
 */
export class LocalFunction {
  readonly functionName: string;
  readonly timeoutSeconds: number;
  private readonly entryUrl: string;
  private readonly memoryMb: number;
  private readonly region: string;
  private loading?: Promise<LambdaHandler>;

  constructor(options: LocalFunctionOptions) {
    this.functionName = options.functionName;
    this.timeoutSeconds = options.timeoutSeconds ?? FUNCTION_DEFAULTS.timeoutSeconds;
    this.memoryMb = options.memoryMb ?? FUNCTION_DEFAULTS.memoryMb;
    this.region = options.region ?? process.env.AWS_REGION ?? 'eu-west-2';
    const entry = isAbsolute(options.entry) ? options.entry : resolve(options.root ?? process.cwd(), options.entry);
    this.entryUrl = pathToFileURL(entry).href;
  }

  async invoke(event: unknown): Promise<unknown> {
    const handler = await this.load();
    const context = createLambdaContext({
      functionName: this.functionName,
      memoryMb: this.memoryMb,
      timeoutSeconds: this.timeoutSeconds,
      region: this.region,
      accountId: LOCAL_ACCOUNT_ID,
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new FunctionTimeoutError(this.functionName, this.timeoutSeconds)), this.timeoutSeconds * 1000);
    });
    try {
      return await Promise.race([handler(event, context), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private load(): Promise<LambdaHandler> {
    this.loading ??= import(this.entryUrl).then((module: { handler?: unknown }) => {
      if (typeof module.handler !== 'function') throw new Error(`${this.entryUrl} does not export a handler function`);
      return module.handler as LambdaHandler;
    });
    this.loading.catch(() => {
      this.loading = undefined;
    });
    return this.loading;
  }
}

export function localFunctionName(spec: FunctionSpec): string {
  return `bureau-${spec.id}`;
}

export function localFunctionFromSpec(spec: FunctionSpec, root: string, region?: string): LocalFunction {
  return new LocalFunction({
    functionName: localFunctionName(spec),
    entry: spec.entry,
    root,
    timeoutSeconds: spec.timeoutSeconds,
    memoryMb: spec.memoryMb,
    region,
  });
}
