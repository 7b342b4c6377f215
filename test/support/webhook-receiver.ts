import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, type WebhookEvent } from '../../packages/client/src/index';

export interface ReceivedDelivery {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly receivedAt: number;
}

export interface ReceiverAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** Hold the answer this long. */
  readonly delayMs?: number;
  /** What the answer's body says; default "ok". */
  readonly body?: string | Uint8Array;
}

export type Responder = (delivery: ReceivedDelivery, index: number) => ReceiverAnswer;

export interface WebhookReceiver {
  /** e.g. http://127.0.0.1:41234 */
  readonly url: string;
  readonly deliveries: ReceivedDelivery[];
  respondWith(responder: Responder): void;
  /** Resolves once `count` deliveries matching `match` have arrived; rejects after timeoutMs. */
  waitFor(match: (delivery: ReceivedDelivery) => boolean, count?: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  stop(): Promise<void>;
}

/**
 * The delivery's event once its signature is verified as a subscriber verifies it, with the SDK (any
 * of the secrets may match, as during a rotation); throws WebhookVerificationError naming the reason.
 */
export function verifiedEvent(delivery: ReceivedDelivery, secretOrSecrets: string | readonly string[]): Promise<WebhookEvent> {
  return verifyWebhook(delivery.body, delivery.headers, secretOrSecrets);
}

/**
 * A real HTTP(S) server on loopback that records every POST and answers as told (200 by default). A
 * port given is listened on again: a receiver that was stopped comes back at the same URL.
 */
export async function startWebhookReceiver(options: { tls?: { key: string; cert: string }; port?: number } = {}): Promise<WebhookReceiver> {
  const deliveries: ReceivedDelivery[] = [];
  let responder: Responder = () => ({ status: 200 });
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      const delivery = { path: request.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
      deliveries.push(delivery);
      const answer = responder(delivery, deliveries.length - 1);
      const reply = () => {
        if (response.destroyed) return;
        response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        response.end(answer.body ?? 'ok');
      };
      if (answer.delayMs) setTimeout(reply, answer.delayMs);
      else reply();
    });
  };
  const server: Server = options.tls ? createHttpsServer(options.tls, handle) : createHttpServer(handle);
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    deliveries,
    respondWith(next) {
      responder = next;
    },
    async waitFor(match, count = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = deliveries.filter(match);
        if (found.length >= count) return found;
        if (Date.now() > deadline) throw new Error(`Expected ${count} matching deliveries within ${timeoutMs} ms, got ${found.length}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/**
 * Resolves once no delivery has arrived for `quietMs` (or when `maxMs` have passed): changes travel
 * the profile stream, the fan-out and the sender, and a webhook not sent yet must be given the time
 * to arrive before its absence counts.
 */
export async function untilQuiet(deliveries: readonly unknown[], quietMs: number, maxMs = Number.POSITIVE_INFINITY): Promise<void> {
  const started = Date.now();
  let seen = -1;
  let since = started;
  while (Date.now() - started < maxMs) {
    if (deliveries.length !== seen) {
      seen = deliveries.length;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
