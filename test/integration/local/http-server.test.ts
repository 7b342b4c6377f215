import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalFunction } from '../../../local/functions';
import { type RunningHttpServer, startHttpServer } from '../../../local/http-server';

const echo = new LocalFunction({ functionName: 'bureau-echo', entry: join(import.meta.dirname, 'fixtures/echo-handler.ts') });
const slowEcho = new LocalFunction({
  functionName: 'bureau-slow',
  entry: join(import.meta.dirname, 'fixtures/echo-handler.ts'),
  timeoutSeconds: 1,
});
const missing = new LocalFunction({ functionName: 'bureau-missing', entry: join(import.meta.dirname, 'fixtures/no-such-handler.ts') });

let server: RunningHttpServer;
const logLines: string[] = [];

beforeAll(async () => {
  server = await startHttpServer({
    port: 0,
    maxBodyBytes: 1024,
    log: (line) => logLines.push(line),
    routes: [
      { method: 'GET', path: '/v1/profile/{companyNumber}', target: echo },
      { method: 'GET', path: '/v1/profile/search', target: echo },
      { method: 'POST', path: '/v1/things', target: echo },
      { method: 'GET', path: '/files/{proxy+}', target: echo },
      { method: 'GET', path: '/plain', target: echo },
      { method: 'GET', path: '/teapot', target: echo },
      { method: 'GET', path: '/binary', target: echo },
      { method: 'GET', path: '/throws', target: echo },
      { method: 'GET', path: '/malformed', target: echo },
      { method: 'GET', path: '/slow', target: slowEcho },
      { method: 'GET', path: '/missing', target: missing },
    ],
  });
});

afterAll(async () => {
  await server.stop();
});

interface Echo {
  event: APIGatewayProxyEventV2;
  context: { functionName: string; remainingMs: number };
}

async function echoOf(response: Response): Promise<Echo> {
  expect(response.status).toBe(200);
  return (await response.json()) as Echo;
}

/** fetch cannot send repeated headers with different case; a raw request can. */
function rawGet(path: string, rawHeaders: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${server.url}${path}`, { method: 'GET', headers: rawHeaders as unknown as Record<string, string> });
    request.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('local API Gateway (HTTP API, payload 2.0)', () => {
  it('builds a version 2.0 event with the route key, decoded path parameters and the raw query string', async () => {
    const response = await fetch(`${server.url}/v1/profile/SC%20123%C3%A9?jurisdiction=GB&q=a%20b+c&tag=x&tag=y`, {
      headers: { 'User-Agent': 'bureau-test', 'X-Custom': 'Value' },
    });

    const { event, context } = await echoOf(response);
    expect(event.version).toBe('2.0');
    expect(event.routeKey).toBe('GET /v1/profile/{companyNumber}');
    expect(event.rawPath).toBe('/v1/profile/SC 123é');
    expect(event.rawQueryString).toBe('jurisdiction=GB&q=a%20b+c&tag=x&tag=y');
    expect(event.queryStringParameters).toEqual({ jurisdiction: 'GB', q: 'a b c', tag: 'x,y' });
    expect(event.pathParameters).toEqual({ companyNumber: 'SC 123é' });
    expect(event.headers['user-agent']).toBe('bureau-test');
    expect(event.headers['x-custom']).toBe('Value');
    expect(event.headers['X-Custom']).toBeUndefined();
    expect(event.isBase64Encoded).toBe(false);
    expect(event.body).toBeUndefined();
    expect(event.requestContext).toMatchObject({
      accountId: '000000000000',
      apiId: 'local',
      routeKey: 'GET /v1/profile/{companyNumber}',
      stage: '$default',
      http: { method: 'GET', path: '/v1/profile/SC 123é', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bureau-test' },
    });
    expect(event.requestContext.time).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
    expect(Math.abs(event.requestContext.timeEpoch - Date.now())).toBeLessThan(5000);
    expect(response.headers.get('apigw-requestid')).toBe(event.requestContext.requestId);
    expect(context.functionName).toBe('bureau-echo');
    expect(context.remainingMs).toBeGreaterThan(2000);
  });

  it('prefers a literal route over a parameter and gives a greedy parameter the rest of the path', async () => {
    const literal = await echoOf(await fetch(`${server.url}/v1/profile/search`));
    const greedy = await echoOf(await fetch(`${server.url}/files/a/b%2Fc/d.txt`));

    expect(literal.event.routeKey).toBe('GET /v1/profile/search');
    expect(literal.event.pathParameters).toBeUndefined();
    expect(greedy.event.routeKey).toBe('GET /files/{proxy+}');
    expect(greedy.event.pathParameters).toEqual({ proxy: 'a/b/c/d.txt' });
  });

  it('lower-cases header names, joins repeats with commas and moves cookies to their own field', async () => {
    const { status, body } = await rawGet('/v1/profile/1', [
      'Host',
      'localhost',
      'X-Repeat',
      'one',
      'x-REPEAT',
      'two',
      'Cookie',
      'a=1; b=2',
      'cookie',
      'c=3',
    ]);

    expect(status, body).toBe(200);
    const { event } = JSON.parse(body) as Echo;
    expect(event.headers['x-repeat']).toBe('one,two');
    expect(event.cookies).toEqual(['a=1', 'b=2', 'c=3']);
    expect(event.headers.cookie).toBeUndefined();
  });

  it('passes JSON bodies as text and base64-encodes binary and form bodies', async () => {
    const json = await echoOf(
      await fetch(`${server.url}/v1/things`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: '{"a":"é"}',
      }),
    );
    const binary = await echoOf(
      await fetch(`${server.url}/v1/things`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: new Uint8Array([0, 159, 255]),
      }),
    );
    const form = await echoOf(
      await fetch(`${server.url}/v1/things`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      }),
    );

    expect(json.event).toMatchObject({ body: '{"a":"é"}', isBase64Encoded: false });
    expect(json.event.headers['content-length']).toBe('10');
    expect(binary.event).toMatchObject({ body: Buffer.from([0, 159, 255]).toString('base64'), isBase64Encoded: true });
    expect(form.event).toMatchObject({ body: Buffer.from('grant_type=client_credentials').toString('base64'), isBase64Encoded: true });
  });

  it('maps a structured result to status, headers, cookies and body', async () => {
    const response = await fetch(`${server.url}/teapot`);

    expect(response.status).toBe(418);
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(response.headers.get('x-count')).toBe('3');
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; HttpOnly']);
    expect(await response.text()).toBe('short and stout');
  });

  it('decodes a base64 result body and treats a result without statusCode as 200 JSON', async () => {
    const binary = await fetch(`${server.url}/binary`);
    const plain = await fetch(`${server.url}/plain`);

    expect(new Uint8Array(await binary.arrayBuffer())).toEqual(new Uint8Array([0, 1, 2, 255]));
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('application/json');
    expect(await plain.json()).toEqual({ hello: 'world' });
  });

  it('answers 404 JSON for an unknown path and for a known path with another method', async () => {
    const unknown = await fetch(`${server.url}/nowhere`);
    const wrongMethod = await fetch(`${server.url}/v1/profile/123`, { method: 'DELETE' });

    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('apigw-requestid')).toMatch(/^[A-Za-z0-9+/]{14}==$/);
    expect(await unknown.json()).toMatchObject({ error: 'not_found' });
    expect(wrongMethod.status).toBe(404);
    expect(await wrongMethod.json()).toMatchObject({ error: 'not_found' });
  });

  it('answers 500 like API Gateway, without details, when a handler throws, breaks the format, times out or cannot load', async () => {
    for (const path of ['/throws', '/malformed', '/slow', '/missing']) {
      const response = await fetch(`${server.url}${path}`);

      expect(response.status, path).toBe(500);
      expect(await response.json(), path).toEqual({ message: 'Internal Server Error' });
    }
  });

  it('refuses bodies over the limit with 413 and malformed percent-encoding with 400', async () => {
    const tooLarge = await fetch(`${server.url}/v1/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(1025),
    });
    const malformed = await fetch(`${server.url}/v1/profile/%E0%A4%A`);

    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ error: 'payload_too_large' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: 'malformed_path' });
  });

  it.each([
    ['a URL too long', `GET /plain?q=${'a'.repeat(9000)} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`, 414, 'uri_too_long'],
    ['a URL too long for the whole head', `GET /plain?q=${'a'.repeat(12_000)} HTTP/1.1\r\nhost: x\r\n\r\n`, 414, 'uri_too_long'],
    ['one huge header', `GET /plain HTTP/1.1\r\nhost: x\r\nx-big: ${'b'.repeat(12_000)}\r\n\r\n`, 431, 'request_header_fields_too_large'],
    [
      'headers too large together',
      `GET /plain HTTP/1.1\r\nhost: x\r\nx-one: ${'b'.repeat(6000)}\r\nx-two: ${'b'.repeat(6000)}\r\n\r\n`,
      431,
      'request_header_fields_too_large',
    ],
    ['a request that is not HTTP', 'HELLO THERE\r\n\r\n', 400, 'malformed_request'],
  ])('answers %s with a JSON problem, not an empty reply or a reset', async (_case, raw, status, error) => {
    const reply = await new Promise<string>((resolve, reject) => {
      const { port } = new URL(server.url);
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(raw));
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });

    const [head = '', body = ''] = reply.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(head).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/);
    expect(head).toMatch(/\r\nx-content-type-options: nosniff\r\n/);
    expect(JSON.parse(body)).toMatchObject({ status, error });
  });

  it('logs one line per request with method, path, status and duration but no query string or headers', async () => {
    logLines.length = 0;

    await fetch(`${server.url}/v1/profile/77?client_secret=hunter2`, { headers: { authorization: 'Bearer secret-token' } });

    expect(logLines).toHaveLength(1);
    expect(logLines[0]).toMatch(/^GET \/v1\/profile\/77 200 \d+ms$/);
  });
});
