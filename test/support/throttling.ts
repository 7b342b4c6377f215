import { type AwsClientHook, onAwsClientCreated } from '../../shared/aws/client-hooks';

/** DynamoDB's writing commands: what a bulk load sends, and what a busy table throttles. */
const WRITES = new Set(['BatchWriteItemCommand', 'PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand']);

export interface InjectedThrottling {
  /** Requests answered with ProvisionedThroughputExceededException so far. */
  readonly throttled: number;
  /** Write requests seen, each attempt counted. */
  readonly writes: number;
  remove(): void;
}

/**
 * DynamoDB refusing writes beyond what the table serves, with ProvisionedThroughputExceededException,
 * as a new table does while its partitions split under a first load: `writesPerSecond` write requests
 * a second pass (a token bucket holding a second's worth), the share beyond is refused, after the
 * first `refuseFirst` requests are refused whatever the rate. Installed
 * through the client hook for every DynamoDB client built after it, inside the SDK's retry loop (the
 * deserialize step), so the client's own retries meet each refusal as they would on AWS.
 */
export function injectWriteThrottling(
  writesPerSecond: number,
  options: {
    /**
     * Write requests refused outright before the rate applies, as a table refuses while it splits: what
     * is beyond the rate depends on how fast the machine writes, these refusals do not.
     */
    readonly refuseFirst?: number;
    readonly now?: () => number;
  } = {},
): InjectedThrottling {
  const now = options.now ?? (() => performance.now());
  let refuseFirst = options.refuseFirst ?? 0;
  let tokens = writesPerSecond;
  let refilledAt = now();
  const take = () => {
    const at = now();
    tokens = Math.min(writesPerSecond, tokens + ((at - refilledAt) / 1000) * writesPerSecond);
    refilledAt = at;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
  const counts = { throttled: 0, writes: 0 };
  const hook: AwsClientHook = (client, service) => {
    if (service !== 'dynamodb') return;
    client.middlewareStack.add(
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
        if (!WRITES.has(context.commandName ?? '')) return next(args);
        counts.writes++;
        if (refuseFirst > 0) refuseFirst--;
        else if (take()) return next(args);
        counts.throttled++;
        throw Object.assign(new Error('The level of configured provisioned throughput for the table was exceeded.'), {
          name: 'ProvisionedThroughputExceededException',
          $fault: 'client',
          $metadata: { httpStatusCode: 400 },
        });
      },
      { step: 'deserialize', name: 'injectWriteThrottling' },
    );
  };
  const remove = onAwsClientCreated(hook);
  return {
    get throttled() {
      return counts.throttled;
    },
    get writes() {
      return counts.writes;
    },
    remove,
  };
}
