import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from './logger';
import { metrics } from './metrics';
import { tracer } from './tracer';

/**
 * Every function's handler, observed the Powertools way: the Lambda context in every log line
 * (request id, cold start; keys added during an invocation are dropped after it), the invocation
 * traced, and its metrics flushed as EMF when it ends, with a cold-start metric.
 */
export function observed<Event, Result>(handler: (event: Event, context: Context) => Promise<Result>) {
  return middy<Event, Result, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(captureLambdaHandler(tracer, { captureResponse: false }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }))
    .handler(handler);
}
