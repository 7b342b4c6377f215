import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { API_CORS } from '../shared/http/cors';
import { HttpError } from '../shared/http/errors';
import { SECURITY_HEADERS } from '../shared/http/lambda';
import { problem } from '../shared/http/responses';
import {
  fromLambdaResult,
  type GatewayIdentity,
  type GatewayResponse,
  gatewayRequestId,
  MalformedPathError,
  type ReceivedRequest,
  splitTarget,
  toApiGatewayEvent,
} from './api-gateway-event';
import { FunctionThrottledError, LOCAL_ACCOUNT_ID } from './functions';
import { gatewayCors } from './gateway-cors';
import { type RouteDefinition, RouteTable } from './routes';
import type { StaticSite } from './static-site';

/**
 * API Gateway's request payload limit. The functions refuse far less (8 KiB, shared/http/body-limit.ts)
 * in their own adapter, which runs here as deployed: this guard only keeps the gateway's behaviour.
 */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** API Gateway HTTP API's quota on the request line and headers together. */
export const MAX_REQUEST_HEAD_BYTES = 10_240;
/** Past this, an oversized request head is blamed on its URL (414) rather than its headers (431). */
export const MAX_REQUEST_LINE_BYTES = 8192;

export interface Invocable {
  readonly functionName: string;
  invoke(event: unknown): Promise<unknown>;
}

export interface HttpRoute extends RouteDefinition {
  readonly target: Invocable;
}

export interface HttpServerOptions {
  /** Defaults to 127.0.0.1: the local runtime is for this machine only. */
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly routes: readonly HttpRoute[];
  /** One line per request (method, path, status, duration); never headers or bodies. */
  readonly log?: (line: string) => void;
  /** Where handler failures are reported (the gateway hides them from the client). */
  readonly logError?: (message: string, error: unknown) => void;
  readonly identity?: GatewayIdentity;
  readonly maxBodyBytes?: number;
  /** Static files served beside the routes (the workspace's pages), as CloudFront serves them deployed. */
  readonly staticSite?: StaticSite;
  /** Told of every request a route answered, whole: how tests check each answer against the API's document. */
  readonly onExchange?: (exchange: HttpExchange) => void;
}

/** A request to a route and the answer it got, as the client saw them. */
export interface HttpExchange {
  /** The route's key, e.g. "GET /v1/profile/{companyNumber}". */
  readonly routeKey: string;
  readonly method: string;
  /** The request target: path and query string. */
  readonly target: string;
  /** Names lower-cased; a repeated header's values joined with ", ". */
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly requestBody: Buffer;
  readonly status: number;
  /** Names lower-cased; a repeated header's values joined with ", ". */
  readonly responseHeaders: Readonly<Record<string, string>>;
  readonly responseBody: Buffer;
}

function headerRecord(pairs: Iterable<readonly [string, string]>): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    record[key] = record[key] === undefined ? value : `${record[key]}, ${value}`;
  }
  return record;
}

function rawHeaderPairs(raw: readonly string[]): Array<readonly [string, string]> {
  const pairs: Array<readonly [string, string]> = [];
  for (let index = 0; index + 1 < raw.length; index += 2) pairs.push([raw[index] as string, raw[index + 1] as string]);
  return pairs;
}

export interface RunningHttpServer {
  readonly url: string;
  readonly port: number;
  /** Stops accepting requests, lets in-flight ones finish (up to a few seconds), then closes. */
  stop(): Promise<void>;
}

export class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(`Port ${port} is already in use. Choose another one, e.g. PORT=${port + 1} npm start`);
    this.name = 'PortInUseError';
  }
}

class BodyTooLargeError extends Error {}
class UriTooLongError extends Error {}

const STOP_GRACE_MS = 5000;

function gatewayError(status: number, code: string, message: string): GatewayResponse {
  const response = problem(new HttpError(status, code, message));
  return {
    statusCode: response.status,
    headers: Object.entries({ ...response.headers, ...SECURITY_HEADERS }),
    body: Buffer.from(JSON.stringify(response.body)),
  };
}

/** Every instance of the function is busy: refused at once, as Lambda throttling is, never queued. */
function throttled(): GatewayResponse {
  const response = gatewayError(429, 'throttled', 'The service is busy; retry shortly.');
  return { ...response, headers: [...response.headers, ['retry-after', '1']] };
}

/** What API Gateway sends when the integration fails: the client never sees the cause. */
const internalServerError = (): GatewayResponse => ({
  statusCode: 500,
  headers: Object.entries({ 'content-type': 'application/json', ...SECURITY_HEADERS }),
  body: Buffer.from(JSON.stringify({ message: 'Internal Server Error' })),
});

/** A whole HTTP/1.1 response for a request the parser refused, written straight to the socket. */
function rawResponse(result: GatewayResponse): string {
  const head = [`HTTP/1.1 ${result.statusCode} ${STATUS_CODES[result.statusCode] ?? ''}`];
  for (const [name, value] of result.headers) head.push(`${name}: ${value}`);
  head.push(`content-length: ${result.body.length}`, 'connection: close');
  return `${head.join('\r\n')}\r\n\r\n${result.body.toString('utf8')}`;
}

/**
 * The parser's refusals get the same JSON problem bodies as everything else, where Node would send
 * a bare status line or nothing: a head over the quota is a 414 when its request line is to blame,
 * else a 431; anything else it cannot parse is a 400.
 */
function refusalOf(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): GatewayResponse {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    const packet = error.rawPacket ?? Buffer.alloc(0);
    const lineEnd = packet.indexOf('\r\n');
    const requestLineBytes = lineEnd < 0 ? packet.length : lineEnd;
    return requestLineBytes > MAX_REQUEST_LINE_BYTES
      ? gatewayError(414, 'uri_too_long', `The request line is longer than ${MAX_REQUEST_LINE_BYTES} bytes.`)
      : gatewayError(
          431,
          'request_header_fields_too_large',
          `The request line and headers exceed ${MAX_REQUEST_HEAD_BYTES} bytes together.`,
        );
  }
  return gatewayError(400, 'malformed_request', 'The request is not valid HTTP/1.1.');
}

function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.reject(new BodyTooLargeError());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on('end', () => (tooLarge ? reject(new BodyTooLargeError()) : resolve(Buffer.concat(chunks))));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, result: GatewayResponse, requestId: string, method: string): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of result.headers) {
    const existing = headers[name];
    if (existing === undefined) headers[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else headers[name] = name === 'set-cookie' ? [existing, value] : `${existing},${value}`;
  }
  headers['apigw-requestid'] = requestId;
  const bodyless = method === 'HEAD' || result.statusCode === 204 || result.statusCode === 304;
  if (!bodyless) headers['content-length'] = String(result.body.length);
  response.writeHead(result.statusCode, headers);
  response.end(bodyless ? undefined : result.body);
}

/**
 * Serves the catalogue's routes the way API Gateway HTTP API does: each request becomes a payload
 * format 2.0 event for the route's handler. Unknown paths and known paths with another method both
 * get 404 (the HTTP API answers so; a 405 comes only from a handler that chooses to send it).
 */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const routes = new RouteTable(options.routes);
  const identity = options.identity ?? { accountId: LOCAL_ACCOUNT_ID, apiId: 'local' };
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const inFlight = new Set<Promise<void>>();
  const cors = gatewayCors(API_CORS);
  const isSitePath = (path: string) => options.staticSite?.('HEAD', path) !== undefined;

  async function respond(request: IncomingMessage, response: ServerResponse, port: number): Promise<void> {
    const started = performance.now();
    const method = (request.method ?? 'GET').toUpperCase();
    const target = request.url ?? '/';
    let result: GatewayResponse;
    let requestId = gatewayRequestId();
    let routeKey: string | undefined;
    let body: Buffer = Buffer.alloc(0);
    // Whether the API's CORS is added: not to the site's files, nor to a preflight, answered whole.
    let gatewayCorsApplies = true;
    try {
      if (Buffer.byteLength(target) > MAX_REQUEST_LINE_BYTES) throw new UriTooLongError();
      const { path } = splitTarget(target);
      const match = routes.match(method, path);
      routeKey = match?.routeKey;
      body = await readBody(request, limit);
      const file = match ? undefined : options.staticSite?.(method, path);
      // Deployed, CloudFront serves the site's paths from S3, which adds no CORS and answers no preflight.
      const sitePath = file !== undefined || (method === 'OPTIONS' && isSitePath(path));
      const preflight = sitePath ? undefined : cors.preflight(method, request.headers);
      gatewayCorsApplies = !sitePath && preflight === undefined;
      if (file) {
        result = file;
      } else if (preflight) {
        result = preflight;
      } else if (!match) {
        result = gatewayError(404, 'not_found', `No route matches ${method} ${path}.`);
      } else {
        const received: ReceivedRequest = {
          method,
          target,
          rawHeaders: request.rawHeaders,
          body,
          sourceIp: request.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1',
          httpVersion: request.httpVersion,
          localPort: port,
        };
        const event = toApiGatewayEvent(received, match, identity);
        requestId = event.requestContext.requestId;
        try {
          result = fromLambdaResult(await match.route.target.invoke(event));
        } catch (error) {
          if (error instanceof FunctionThrottledError) {
            result = throttled();
          } else {
            options.logError?.(`${match.route.target.functionName} failed on ${match.routeKey}`, error);
            result = internalServerError();
          }
        }
      }
    } catch (error) {
      if (error instanceof MalformedPathError) result = gatewayError(400, 'malformed_path', error.message);
      else if (error instanceof UriTooLongError)
        result = gatewayError(414, 'uri_too_long', `The request line is longer than ${MAX_REQUEST_LINE_BYTES} bytes.`);
      else if (error instanceof BodyTooLargeError)
        result = gatewayError(413, 'payload_too_large', `The request body exceeds ${limit} bytes.`);
      else throw error;
    }
    if (gatewayCorsApplies) result = cors.apply(result, request.headers);
    if (result.statusCode === 413) response.setHeader('connection', 'close');
    send(response, result, requestId, method);
    if (routeKey && options.onExchange) {
      const bodyless = method === 'HEAD' || result.statusCode === 204 || result.statusCode === 304;
      options.onExchange({
        routeKey,
        method,
        target,
        requestHeaders: headerRecord(rawHeaderPairs(request.rawHeaders)),
        requestBody: body,
        status: result.statusCode,
        responseHeaders: headerRecord([...result.headers, ['apigw-requestid', requestId]]),
        responseBody: bodyless ? Buffer.alloc(0) : result.body,
      });
    }
    const path = target.split('?')[0];
    options.log?.(`${method} ${path} ${result.statusCode} ${Math.round(performance.now() - started)}ms`);
  }

  const server = createServer({ maxHeaderSize: MAX_REQUEST_HEAD_BYTES }, (request, response) => {
    const port = (server.address() as AddressInfo).port;
    const work = respond(request, response, port).catch((error: unknown) => {
      options.logError?.('request failed', error);
      if (!response.headersSent) send(response, internalServerError(), gatewayRequestId(), 'GET');
      else response.destroy();
    });
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  });

  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(rawResponse(refusalOf(error)));
  });

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? new PortInUseError(options.port) : error));
    server.listen(options.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.race([Promise.allSettled([...inFlight]), new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref())]);
      server.closeAllConnections();
      await closed;
    },
  };
}
