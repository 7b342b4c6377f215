import { Tracer } from '@aws-lambda-powertools/tracer';
import { SERVICE_NAME } from './service';

/**
 * X-Ray tracing: the handler as a segment, each AWS SDK call as a subsegment. Active only on Lambda
 * (the stack turns tracing on); the local runtime sets POWERTOOLS_TRACE_ENABLED=false.
 */
export const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME });
