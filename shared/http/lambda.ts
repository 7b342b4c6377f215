import { isIP } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { logger } from '../observability/logger';
import { BusinessMetric, count } from '../observability/metrics';
import { observed } from '../observability/middleware';
import { refuseOversizedBody } from './body-limit';
import { badRequest, HttpError } from './errors';
import { ORIGIN_VERIFY_HEADER, type OriginGuard, originGuardFrom, VIEWER_ADDRESS_HEADER } from './origin-guard';
import { MalformedQueryStringError, parseQueryString } from './query-string';
import { internalError, problem } from './responses';
import type { HttpHandler, HttpRequest, HttpResponse } from './types';

export type ApiGatewayHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

export function toHttpRequest(event: APIGatewayProxyEventV2, sourceIp: string = event.requestContext.http.sourceIp): HttpRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value;
  // Payload 2.0 moves the Cookie header into `cookies`; put it back as the browser sent it.
  if (event.cookies?.length) headers.cookie = event.cookies.join('; ');
  const body = event.body ? (event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body) : '';
  return {
    method: event.requestContext.http.method.toUpperCase(),
    path: event.rawPath,
    pathParameters: Object.fromEntries(Object.entries(event.pathParameters ?? {}).filter(([, v]) => v !== undefined)) as Record<
      string,
      string
    >,
    headers,
    query: parseQueryString(event.rawQueryString ?? ''),
    body,
    sourceIp,
    requestId: event.requestContext.requestId,
  };
}

/**
 * On every response: bodies are JSON and must never be sniffed into something a browser runs, and the
 * API is HTTPS-only, so browsers should never try it over plain HTTP.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'strict-transport-security': 'max-age=31536000',
};

export function toApiGatewayResult(response: HttpResponse): APIGatewayProxyStructuredResultV2 {
  const body = response.body === undefined ? '' : typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
  // Payload 2.0 sets cookies from `cookies`, not from a set-cookie header.
  const { 'set-cookie': cookie, ...headers } = response.headers ?? {};
  return {
    statusCode: response.status,
    headers: { ...headers, ...SECURITY_HEADERS },
    ...(cookie === undefined ? {} : { cookies: [cookie] }),
    body,
    isBase64Encoded: false,
  };
}

function requestOf(event: APIGatewayProxyEventV2, sourceIp?: string): HttpRequest {
  refuseOversizedBody(event.body, event.isBase64Encoded);
  try {
    return toHttpRequest(event, sourceIp);
  } catch (error) {
    if (error instanceof MalformedQueryStringError) {
      throw badRequest('malformed_query_string', error.message, error.parameter === undefined ? {} : { parameter: error.parameter });
    }
    throw error;
  }
}

/**
 * Behind CloudFront the gateway sees one of CloudFront's addresses; the caller's is in the header
 * CloudFront sets, which is believed only of a request that proved it came through CloudFront.
 */
function viewerAddress(event: APIGatewayProxyEventV2): string | undefined {
  const address = event.headers?.[VIEWER_ADDRESS_HEADER];
  return address !== undefined && isIP(address) !== 0 ? address : undefined;
}

/**
 * Wraps a transport-neutral handler as an API Gateway HTTP API (payload 2.0) Lambda handler.
 * Client errors become their JSON body; anything else is logged and becomes a bare 500. Deployed,
 * a request that did not come through CloudFront (and its firewall) is refused before anything else.
 */
export function lambdaHttpHandler(handle: HttpHandler, guard: OriginGuard | undefined = originGuardFrom()): ApiGatewayHandler {
  return observed<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(async (event) => {
    logger.appendKeys({ apiRequestId: event.requestContext.requestId, routeKey: event.requestContext.routeKey });
    try {
      await guard?.check(event.headers?.[ORIGIN_VERIFY_HEADER]);
      return toApiGatewayResult(await handle(requestOf(event, guard ? viewerAddress(event) : undefined)));
    } catch (error) {
      if (error instanceof HttpError) return toApiGatewayResult(problem(error));
      // Answered with a bare 500, so Lambda sees no error: the metric is what the alarm watches.
      count(BusinessMetric.unhandledErrors);
      logger.error('unhandled error', { error: error as Error, method: event.requestContext.http.method, path: event.rawPath });
      return toApiGatewayResult(internalError());
    }
  });
}
