import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export interface LocalFunctionIdentity {
  /** Local function name, e.g. bureau-token. */
  readonly functionName: string;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  readonly region: string;
  readonly accountId: string;
}

/** The Lambda context object handed to a handler for one invocation. */
export function createLambdaContext(fn: LocalFunctionIdentity, startedAt: number = Date.now()): Context {
  const deadline = startedAt + fn.timeoutSeconds * 1000;
  const unsupported = (name: string) => () => {
    throw new Error(`context.${name}() belongs to callback-style handlers, which the Node.js runtimes no longer support`);
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: fn.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${fn.region}:${fn.accountId}:function:${fn.functionName}`,
    memoryLimitInMB: String(fn.memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${fn.functionName}`,
    logStreamName: `local/[$LATEST]${randomUUID().replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported('done'),
    fail: unsupported('fail'),
    succeed: unsupported('succeed'),
  };
}
