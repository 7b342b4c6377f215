import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from './logger';
import { metrics } from './metrics';
import { tracer } from './tracer';

let coldStart = true;

/**
 * Flushes the invocation's metrics as EMF when it ends, and counts cold starts. Powertools' own
 * logMetrics middleware does the same but logs a warning on every invocation that counted nothing,
 * which for the routes that count nothing is every one.
 */
function publishMetrics<Event, Result>(): MiddlewareObj<Event, Result, Error, Context> {
  const publish = () => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  };
  return {
    before: () => {
      if (!coldStart) return;
      coldStart = false;
      metrics.captureColdStartMetric();
    },
    after: publish,
    onError: publish,
  };
}

/**
 * Every function's handler, observed the Powertools way: the Lambda context in every log line
 * (request id, cold start; keys added during an invocation are dropped after it), the invocation
 * traced, and its metrics flushed as EMF when it ends, with a cold-start metric.
 *
 * Middy's own early timeout is off: the runtime's timeout is the one deadline. Middy's would only
 * turn Lambda's timeout into a TimeoutError 5 ms sooner, and it is a timer fixed at the start of the
 * invocation, which locally would cut short a call that is waiting out a restart of DynamoDB Local,
 * time the local runtime does not charge to the function (local/engine-outages.ts).
 */
export function observed<Event, Result>(handler: (event: Event, context: Context) => Promise<Result>) {
  return middy<Event, Result, Error, Context>({ timeoutEarlyInMillis: 0 })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(captureLambdaHandler(tracer, { captureResponse: false }))
    .use(publishMetrics<Event, Result>())
    .handler(handler);
}
