import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BureauApiError, BureauConnectionError, createClient } from '../../../packages/client/src/index';
import { Transport } from '../../../packages/client/src/transport';

/** A loopback server that answers each request with the next scripted answer, to drive the retry rules without the API. */
type Answer = { status: number; headers?: Record<string, string>; body?: unknown; delayMs?: number };
let script: Answer[] = [];
const seen: Array<{ method: string; url: string }> = [];
let baseUrl: string;
const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  seen.push({ method: request.method ?? '', url: request.url ?? '' });
  const answer = script.shift() ?? { status: 200, body: { ok: true } };
  const send = () => {
    if (response.destroyed) return;
    response.writeHead(answer.status, { 'content-type': 'application/problem+json', ...answer.headers });
    response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  };
  request.resume();
  request.on('end', () => (answer.delayMs ? setTimeout(send, answer.delayMs) : send()));
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const noJitter = { random: () => 0 };
const run = (answers: Answer[]) => {
  script = answers;
  seen.length = 0;
};

describe('the transport', () => {
  it('retries a GET on 503 and 429, waiting out Retry-After, and returns the answer that came through', async () => {
    run([
      { status: 503 },
      { status: 429, headers: { 'retry-after': '1' }, body: { error: 'rate_limited' } },
      { status: 200, body: { ok: 1 } },
    ]);
    const started = Date.now();
    const response = await new Transport({ baseUrl, ...noJitter }).send({ method: 'GET', path: '/v1/x', idempotent: true });
    expect(response.body).toEqual({ ok: 1 });
    expect(seen).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('never retries a POST, nor any other 4xx', async () => {
    const transport = new Transport({ baseUrl, ...noJitter });
    run([{ status: 503 }]);
    expect((await transport.send({ method: 'POST', path: '/v1/x', body: {}, idempotent: false })).status).toBe(503);
    expect(seen).toHaveLength(1);
    run([{ status: 400, body: { error: 'invalid_limit', detail: 'limit', parameter: 'limit' } }]);
    expect((await transport.send({ method: 'GET', path: '/v1/x', idempotent: true })).status).toBe(400);
    expect(seen).toHaveLength(1);
  });

  it('stops after maxRetries and hands back the last answer, whose error carries Retry-After and the request id', async () => {
    const transport = new Transport({ baseUrl, maxRetries: 1, ...noJitter });
    const limited = {
      status: 429,
      headers: { 'retry-after': '0', 'apigw-requestid': 'req-1' },
      body: { error: 'rate_limited', detail: 'slow down' },
    };
    run([limited, limited]);
    const spec = { method: 'GET', path: '/v1/x', idempotent: true } as const;
    const error = transport.error(spec, await transport.send(spec));
    expect(seen).toHaveLength(2);
    expect(error).toBeInstanceOf(BureauApiError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', detail: 'slow down', retryAfter: 0, requestId: 'req-1' });
  });

  it('does not wait out a Retry-After longer than maxRetryAfterMs', async () => {
    run([{ status: 429, headers: { 'retry-after': '3600' } }]);
    const response = await new Transport({ baseUrl, ...noJitter }).send({ method: 'GET', path: '/v1/x', idempotent: true });
    expect(response.status).toBe(429);
    expect(seen).toHaveLength(1);
  });

  it('times out each attempt, retries, and names a timeout when none answered in time', async () => {
    run([
      { status: 200, delayMs: 500 },
      { status: 200, body: { ok: 2 } },
    ]);
    const transport = new Transport({ baseUrl, timeoutMs: 100, ...noJitter });
    expect((await transport.send({ method: 'GET', path: '/v1/x', idempotent: true })).body).toEqual({ ok: 2 });

    run([
      { status: 200, delayMs: 500 },
      { status: 200, delayMs: 500 },
    ]);
    const error = await new Transport({ baseUrl, timeoutMs: 100, maxRetries: 1, ...noJitter })
      .send({ method: 'GET', path: '/v1/x', idempotent: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BureauConnectionError);
    expect(error).toMatchObject({ timedOut: true });
  });

  it('retries a refused connection, then says it failed to connect', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    let attempts = 0;
    const error = await new Transport({
      baseUrl: `http://127.0.0.1:${port}`,
      maxRetries: 2,
      ...noJitter,
      fetch: (input, init) => {
        attempts++;
        return fetch(input, init);
      },
    })
      .send({ method: 'DELETE', path: '/v1/x', idempotent: true })
      .catch((caught: unknown) => caught);
    expect(attempts).toBe(3);
    expect(error).toMatchObject({ name: 'BureauConnectionError', timedOut: false });
  });

  it('stops waiting between retries when the caller aborts', async () => {
    run([{ status: 503, headers: { 'retry-after': '30' } }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('gave up')), 100);
    await expect(
      new Transport({ baseUrl, ...noJitter }).send({ method: 'GET', path: '/v1/x', idempotent: true, signal: controller.signal }),
    ).rejects.toThrow('gave up');
  });

  it('takes a 404 to a repeated DELETE as done, since the attempt whose answer was lost deleted it; a first 404 is thrown', async () => {
    const sdk = createClient({ baseUrl, clientId: 'cli_1', clientSecret: 'bsk_1', ...noJitter });
    const notFound = { status: 404, body: { error: 'webhook_not_found', detail: 'No such webhook' } };
    run([{ status: 200, body: { access_token: 'token', token_type: 'Bearer', expires_in: 3600 } }, { status: 503 }, notFound]);
    await expect(sdk.webhooks.delete('wh_1')).resolves.toBeUndefined();
    expect(seen.map(({ method }) => method)).toEqual(['POST', 'DELETE', 'DELETE']);

    run([notFound]);
    await expect(sdk.webhooks.delete('wh_1')).rejects.toMatchObject({ status: 404, code: 'webhook_not_found' });
  });
});
