import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryClient } from '../../../shared/webhooks/delivery-client';

/** Receivers that misbehave on purpose, each on its own path of one server on loopback. */
const behaviours: Record<string, (request: IncomingMessage, response: ServerResponse) => void> = {
  '/hang': () => {},
  '/huge': (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(64 * 2 ** 20) });
    const chunk = Buffer.alloc(2 ** 20, 120);
    let sent = 0;
    const pump = () => {
      while (sent < 64 && response.write(chunk)) sent++;
      if (sent < 64) response.once('drain', pump);
      else response.end();
    };
    pump();
  },
  '/trickle': (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    const timer = setInterval(() => {
      if (response.destroyed) clearInterval(timer);
      else response.write('x');
    }, 100);
    response.once('close', () => clearInterval(timer));
  },
  '/reset': (request) => {
    request.socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial');
    request.socket.destroy();
  },
  '/fast': (_request, response) => response.writeHead(204).end(),
};

let server: Server;
let base: string;
const client = new DeliveryClient({ allowLoopback: true, timeoutMs: 1500 });

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.once('end', () => behaviours[request.url ?? '']?.(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const post = (path: string) => client.post(`${base}${path}`, { 'content-type': 'application/json' }, '{"type":"webhook.test"}');

describe('a delivery to a receiver that misbehaves', () => {
  it('ends as a timeout within the deadline when the receiver never answers', async () => {
    const result = await post('/hang');
    expect(result).toMatchObject({ kind: 'error', error: 'timeout' });
    expect(result.durationMs).toBeLessThan(3000);
  });

  it('reads at most its cap of a 64 MiB answer, quickly and without holding it in memory', async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const result = await post('/huge');
    expect(result).toMatchObject({ kind: 'response', status: 200 });
    expect(result.durationMs).toBeLessThan(3000);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(32 * 2 ** 20);
  });

  it('takes the status and stops reading at the deadline when the answer trickles in a byte at a time', async () => {
    const result = await post('/trickle');
    expect(result).toMatchObject({ kind: 'response', status: 200 });
    expect(result.durationMs).toBeLessThan(3000);
  });

  it('takes the status of an answer cut off mid-body (the receiver said 200), and the next delivery still goes through', async () => {
    expect(await post('/reset')).toMatchObject({ kind: 'response', status: 200 });
    expect(await post('/fast')).toMatchObject({ kind: 'response', status: 204 });
  });
});
