import { execFileSync } from 'node:child_process';
import type { LookupAddress } from 'node:dns';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryClient } from '../../../shared/webhooks/delivery-client';
import { type ReceiverAnswer, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver';

let tls: { key: string; cert: string };
let plain: WebhookReceiver;
let secure: WebhookReceiver;
const clients: DeliveryClient[] = [];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bureau-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  tls = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  rmSync(dir, { recursive: true, force: true });
  plain = await startWebhookReceiver();
  secure = await startWebhookReceiver({ tls });
});

afterAll(async () => {
  await Promise.all([plain?.stop(), secure?.stop(), ...clients.map((client) => client.close())]);
});

function client(options: ConstructorParameters<typeof DeliveryClient>[0] = {}): DeliveryClient {
  const created = new DeliveryClient(options);
  clients.push(created);
  return created;
}

/** A resolver that answers every name with the addresses given. */
const resolvingTo = (...addresses: string[]) =>
  ((_hostname: string, _options: unknown, callback: (error: null, addresses: LookupAddress[]) => void) =>
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    )) as unknown as typeof import('node:dns').lookup;

const post = (target: DeliveryClient, url: string) => target.post(url, { 'content-type': 'application/json' }, '{"ok":true}');

describe('the delivery HTTP client', () => {
  it('refuses, before any connection, URLs that are not https or whose literal address is not public', async () => {
    const strict = client();
    for (const url of [
      'http://93.184.215.14/hook',
      'https://10.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[fd00::1]/hook',
      'https://100.64.0.1/hook',
      'https://user:pass@93.184.215.14/hook',
      'https://[::127.0.0.1]/hook',
      'https://[::a9fe:a9fe]/hook',
      'https://93.184.215.14:22/hook',
      `${plain.url}/hook`,
    ]) {
      expect(await post(strict, url), url).toMatchObject({ kind: 'error', error: 'url_not_allowed' });
    }
  });

  it('vets the addresses a name resolves to at connect time: a name that now points inside is refused', async () => {
    const port = new URL(secure.url).port;
    for (const addresses of [['127.0.0.1'], ['93.184.215.14', '10.1.2.3'], ['169.254.169.254'], ['::7f00:1']]) {
      const rebound = client({ lookup: resolvingTo(...addresses), ports: [Number(port)] });
      expect(await post(rebound, `https://hooks.example.com:${port}/hook`)).toMatchObject({ kind: 'error', error: 'address_not_public' });
    }
    // Loopback is allowed locally only for loopback names, never for a public name that resolves there.
    const local = client({ allowLoopback: true, lookup: resolvingTo('127.0.0.1'), ports: [Number(port)] });
    expect(await post(local, `https://hooks.example.com:${port}/hook`)).toMatchObject({ error: 'address_not_public' });
    expect(secure.deliveries).toHaveLength(0);
  });

  it('verifies TLS: a certificate it cannot trust is an error, a trusted one delivers', async () => {
    const untrusted = await post(client({ allowLoopback: true }), `${secure.url}/hook`);
    // The log gets a fixed sentence: never the TLS library's own words, which say what listens where.
    expect(untrusted).toEqual({
      kind: 'error',
      error: 'tls_error',
      message: 'The TLS handshake with the endpoint failed.',
      durationMs: expect.any(Number),
    });
    expect(await post(client({ allowLoopback: true, ca: tls.cert }), `${secure.url}/hook`)).toMatchObject({
      kind: 'response',
      status: 200,
    });
  });

  it('follows no redirect, reports the status and Retry-After, and times out a receiver that hangs', async () => {
    const local = client({ allowLoopback: true, timeoutMs: 500 });
    plain.respondWith(
      (delivery): ReceiverAnswer =>
        delivery.path === '/moved'
          ? { status: 307, headers: { location: `${plain.url}/elsewhere` } }
          : delivery.path === '/busy'
            ? { status: 429, headers: { 'retry-after': '120' } }
            : delivery.path === '/slow'
              ? { status: 200, delayMs: 3000 }
              : { status: 200 },
    );
    expect(await post(local, `${plain.url}/moved`)).toMatchObject({ kind: 'response', status: 307 });
    expect(plain.deliveries.map((delivery) => delivery.path)).not.toContain('/elsewhere');
    expect(await post(local, `${plain.url}/busy`)).toMatchObject({ kind: 'response', status: 429, retryAfter: '120' });
    const slow = await post(local, `${plain.url}/slow`);
    expect(slow).toMatchObject({ kind: 'error', error: 'timeout' });
    expect(slow.durationMs).toBeLessThan(2000);
  });

  it("keeps the start of the receiver's answer with its status and the time the call took, marked when it went on", async () => {
    const local = client({ allowLoopback: true });
    const fiveKiB = `{"error":"${'e'.repeat(5 * 1024)}"}`;
    plain.respondWith(
      (delivery): ReceiverAnswer =>
        delivery.path === '/long'
          ? { status: 500, body: fiveKiB, delayMs: 30 }
          : delivery.path === '/binary'
            ? { status: 400, body: Uint8Array.from([0x6e, 0x6f, 0xff, 0xc3, 0x28, 0x21]) }
            : delivery.path === '/empty'
              ? { status: 204 }
              : { status: 422, body: '{"error":"unknown event type"}' },
    );

    const long = await post(local, `${plain.url}/long`);
    expect(long).toEqual({
      kind: 'response',
      status: 500,
      excerpt: { text: fiveKiB.slice(0, 2048), truncated: true },
      durationMs: expect.any(Number),
    });
    expect(long.durationMs).toBeGreaterThanOrEqual(30);
    expect(await post(local, `${plain.url}/short`)).toMatchObject({
      status: 422,
      excerpt: { text: '{"error":"unknown event type"}', truncated: false },
    });
    expect(await post(local, `${plain.url}/binary`)).toMatchObject({
      status: 400,
      excerpt: { text: 'no\uFFFD\uFFFD(!', truncated: false },
    });
    expect(await post(local, `${plain.url}/empty`)).toMatchObject({ status: 204, excerpt: { text: '', truncated: false } });
  });

  it('reads only the start of a large answer and reports a refused connection', async () => {
    const big: Server = createServer((_request, response) => {
      response.writeHead(200);
      const chunk = Buffer.alloc(1024 * 1024, 'x');
      for (let i = 0; i < 50; i++) response.write(chunk);
      response.end();
    });
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
    const { port } = big.address() as AddressInfo;
    const local = client({ allowLoopback: true });
    expect(await post(local, `http://127.0.0.1:${port}/hook`)).toMatchObject({
      kind: 'response',
      status: 200,
      excerpt: { text: 'x'.repeat(2048), truncated: true },
    });
    big.closeAllConnections();
    await new Promise((resolve) => big.close(resolve));
    expect(await post(local, `http://127.0.0.1:${port}/hook`)).toMatchObject({ kind: 'error', error: 'connection_refused' });
  });
});
