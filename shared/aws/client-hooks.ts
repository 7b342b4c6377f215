/*
 * Apart from clients.ts so that the local runtime can install a hook without loading the tracer,
 * which writes to the environment of the function it would run in.
 */

/** The AWS services the functions call. */
export type AwsService = 'dynamodb' | 'sqs' | 'secretsmanager' | 'kms' | 's3';

/** What a hook may do to a new client: add middleware to its stack. */
export interface HookableClient {
  // biome-ignore lint/suspicious/noExplicitAny: each client's middleware stack is typed by its own inputs and outputs
  readonly middlewareStack: { add(middleware: any, options: any): void };
}

export type AwsClientHook = (client: HookableClient, service: AwsService) => void;

const hooks: AwsClientHook[] = [];

/**
 * Runs for every client built from now on in this process or thread. Nothing deployed installs one:
 * the local runtime installs its stand-in for IAM here before it loads a handler, so that code
 * never travels in a function's bundle; tests install faults (throttling) the same way. Returns
 * what removes the hook again, for clients built after.
 */
export function onAwsClientCreated(hook: AwsClientHook): () => void {
  hooks.push(hook);
  return () => {
    const index = hooks.indexOf(hook);
    if (index !== -1) hooks.splice(index, 1);
  };
}

export const installedHooks = (): readonly AwsClientHook[] => hooks;
