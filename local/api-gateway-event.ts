import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { RouteMatch } from './routes';

/**
 * Translation between HTTP and API Gateway HTTP API (payload format 2.0) events, following what the
 * real gateway does rather than what would be convenient: the path arrives decoded, the query
 * string raw, repeated headers and parameters comma-joined, cookies split out of the headers.
 */
export interface ReceivedRequest {
  readonly method: string;
  /** The request target exactly as received: percent-encoded path plus optional query. */
  readonly target: string;
  /** Node's rawHeaders: name, value, name, value… in arrival order and original case. */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  readonly sourceIp: string;
  readonly httpVersion: string;
  readonly localPort: number;
}

export class MalformedPathError extends Error {
  constructor(readonly target: string) {
    super('The request path is not valid percent-encoded UTF-8.');
    this.name = 'MalformedPathError';
  }
}

export interface SplitTarget {
  /** Decoded path, as API Gateway HTTP API puts it in rawPath and routes on it. */
  readonly path: string;
  /** Query string exactly as received, without the "?". */
  readonly rawQueryString: string;
}

export function splitTarget(target: string): SplitTarget {
  const queryStart = target.indexOf('?');
  const encodedPath = queryStart === -1 ? target : target.slice(0, queryStart);
  const rawQueryString = queryStart === -1 ? '' : target.slice(queryStart + 1);
  try {
    return { path: decodeURIComponent(encodedPath), rawQueryString };
  } catch {
    throw new MalformedPathError(target);
  }
}

/** HTTP APIs deliver only these bodies as text; every other type (form posts included) arrives base64-encoded. */
const textContentType = /^(text\/[^;]*|application\/(json|xml|javascript))\s*(;.*)?$/i;

export function isTextContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && textContentType.test(contentType.trim());
}

function collectHeaders(rawHeaders: readonly string[]): { headers: Record<string, string>; cookies: string[] } {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] ?? '').toLowerCase();
    const value = rawHeaders[i + 1] ?? '';
    if (name === 'cookie') {
      cookies.push(
        ...value
          .split(';')
          .map((cookie) => cookie.trim())
          .filter((cookie) => cookie !== ''),
      );
      continue;
    }
    headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  return { headers, cookies };
}

function queryParameters(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === '') return undefined;
  const joined: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    joined[name] = name in joined ? `${joined[name]},${value}` : value;
  }
  return Object.keys(joined).length > 0 ? joined : undefined;
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/** The gateway's CLF-style request time, e.g. 12/Mar/2020:19:03:58 +0000. */
export function requestTime(now: Date): string {
  return `${two(now.getUTCDate())}/${months[now.getUTCMonth()]}/${now.getUTCFullYear()}:${two(now.getUTCHours())}:${two(
    now.getUTCMinutes(),
  )}:${two(now.getUTCSeconds())} +0000`;
}

/** API Gateway request ids look like "JKJaXmPLvHcESHA=": base64 of 10 random bytes. */
export function gatewayRequestId(): string {
  return randomBytes(10).toString('base64');
}

function traceId(now: Date): string {
  return `Root=1-${Math.floor(now.getTime() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;
}

export interface GatewayIdentity {
  readonly accountId: string;
  readonly apiId: string;
}

export function toApiGatewayEvent(
  request: ReceivedRequest,
  match: RouteMatch<unknown>,
  identity: GatewayIdentity,
  now: Date = new Date(),
): APIGatewayProxyEventV2 {
  const { path, rawQueryString } = splitTarget(request.target);
  const { headers, cookies } = collectHeaders(request.rawHeaders);
  const domainName = (headers.host ?? `localhost:${request.localPort}`).split(',')[0] ?? 'localhost';
  headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${request.sourceIp}` : request.sourceIp;
  headers['x-forwarded-port'] = String(request.localPort);
  headers['x-forwarded-proto'] = 'http';
  headers['x-amzn-trace-id'] ??= traceId(now);
  if (request.body.length > 0) headers['content-length'] = String(request.body.length);
  const textBody = isTextContentType(headers['content-type']);
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: match.routeKey,
    rawPath: path,
    rawQueryString,
    headers,
    requestContext: {
      accountId: identity.accountId,
      apiId: identity.apiId,
      domainName,
      domainPrefix: domainName.split('.')[0] ?? domainName,
      http: {
        method: request.method.toUpperCase(),
        path,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: gatewayRequestId(),
      routeKey: match.routeKey,
      stage: '$default',
      time: requestTime(now),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
  };
  if (cookies.length > 0) event.cookies = cookies;
  const query = queryParameters(rawQueryString);
  if (query) event.queryStringParameters = query;
  if (Object.keys(match.pathParameters).length > 0) event.pathParameters = { ...match.pathParameters };
  if (request.body.length > 0) {
    event.body = textBody ? request.body.toString('utf8') : request.body.toString('base64');
    event.isBase64Encoded = !textBody;
  }
  return event;
}

export interface GatewayResponse {
  readonly statusCode: number;
  /** Header name and value pairs; set-cookie may repeat. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer;
}

export class MalformedLambdaResponseError extends Error {
  constructor(reason: string) {
    super(`Malformed Lambda proxy response: ${reason}`);
    this.name = 'MalformedLambdaResponseError';
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function scalarText(value: unknown, what: string): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new MalformedLambdaResponseError(`${what} must be a string, number or boolean`);
}

/**
 * Turns a handler's result into the HTTP response API Gateway would send. The result first goes
 * through JSON, as it does on its way out of Lambda. A result without statusCode is a 200 JSON
 * body (the gateway's payload 2.0 assumption); a structured result that breaks the format throws.
 */
export function fromLambdaResult(result: unknown): GatewayResponse {
  const serialised = JSON.stringify(result) ?? 'null';
  const payload: unknown = JSON.parse(serialised);
  if (!isRecord(payload) || !('statusCode' in payload)) {
    return { statusCode: 200, headers: [['content-type', 'application/json']], body: Buffer.from(serialised) };
  }
  const { statusCode, headers = {}, cookies = [], body, isBase64Encoded = false } = payload;
  if (typeof statusCode !== 'number' || !Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599) {
    throw new MalformedLambdaResponseError('statusCode must be an integer from 100 to 599');
  }
  if (!isRecord(headers)) throw new MalformedLambdaResponseError('headers must be an object');
  if (!Array.isArray(cookies)) throw new MalformedLambdaResponseError('cookies must be an array');
  if (body !== undefined && body !== null && typeof body !== 'string') throw new MalformedLambdaResponseError('body must be a string');
  if (typeof isBase64Encoded !== 'boolean') throw new MalformedLambdaResponseError('isBase64Encoded must be a boolean');
  const pairs: Array<readonly [string, string]> = Object.entries(headers).map(([name, value]) => [
    name.toLowerCase(),
    scalarText(value, `header ${name}`),
  ]);
  for (const cookie of cookies) pairs.push(['set-cookie', scalarText(cookie, 'a cookie')]);
  const text = body ?? '';
  return { statusCode, headers: pairs, body: isBase64Encoded ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8') };
}
