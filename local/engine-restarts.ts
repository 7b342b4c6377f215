import type { AwsClientHook } from '../shared/aws/client-hooks';

/** How a call finds DynamoDB Local gone: nothing listens on its port, or the connection was cut. */
const ENGINE_GONE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);
const RETRY_EVERY_MS = 250;
/** Well beyond the few seconds a restart takes, well within what the runtime allows before giving up on the engine. */
export const ENGINE_RESTART_WAIT_MS = 30_000;

const isEngineGone = (error: unknown): boolean => ENGINE_GONE.has((error as { code?: string } | null)?.code ?? '');

/**
 * DynamoDB does not go away on AWS, but locally its engine can, for the seconds the runtime's
 * supervisor takes to start it again on the same port and data (dynamodb-local.ts). A function's call
 * that finds it gone, once the SDK's own few retries are spent, is tried again until it is back, so an
 * invocation under way rides out the restart instead of failing: a failed queue batch would stay
 * hidden for the queue's visibility timeout (minutes), and an API call would answer 500.
 */
export function rideOutEngineRestarts(waitMs = ENGINE_RESTART_WAIT_MS): AwsClientHook {
  return (client, service) => {
    if (service !== 'dynamodb') return;
    client.middlewareStack.add(
      // Before the SDK's retry step, so each try here is a whole round of the SDK's own attempts.
      <Args, Result>(next: (args: Args) => Promise<Result>) =>
        async (args: Args): Promise<Result> => {
          const deadline = Date.now() + waitMs;
          for (;;) {
            try {
              return await next(args);
            } catch (error) {
              if (!isEngineGone(error) || Date.now() >= deadline) throw error;
              await new Promise((resolve) => setTimeout(resolve, RETRY_EVERY_MS));
            }
          }
        },
      { step: 'build', name: 'rideOutEngineRestarts' },
    );
  };
}
