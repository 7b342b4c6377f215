import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../packages/client/src/index';

/** A subscription whose secret may have signed a delivery. */
export interface ListenerSecret {
  readonly subscriptionId: string;
  readonly secret: string;
}

export interface ListenerOptions {
  readonly port: number;
  /** The HTTP status every delivery is answered with: 200, or e.g. 500 to watch the retries. */
  readonly status: number;
  /** The secrets to verify with, read again for every delivery so a rotation or a new subscription counts at once. */
  readonly secrets: () => Promise<readonly ListenerSecret[]>;
  readonly print: (line: string) => void;
  readonly clock?: () => Date;
}

export interface Listener {
  readonly url: string;
  stop(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) resolve(undefined);
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/**
 * A local webhook receiver for trying deliveries out: prints each one in a line, says whether its
 * signature verified (with the SDK's verifyWebhook, as a subscriber would) and with which
 * subscription's secret, and answers with the status it was told.
 */
export async function startWebhookListener(options: ListenerOptions): Promise<Listener> {
  const clock = options.clock ?? (() => new Date());
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readBody(request);
    if (request.method !== 'POST' || body === undefined) {
      response.writeHead(request.method !== 'POST' ? 405 : 413).end();
      return;
    }
    const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
    let verifiedBy: string | undefined;
    for (const { subscriptionId, secret } of await options.secrets()) {
      try {
        await verifyWebhook(body, request.headers, secret);
        verifiedBy = subscriptionId;
        break;
      } catch {
        // Not this subscription's secret; the next may be.
      }
    }
    let summary: string;
    try {
      const event = JSON.parse(body) as { type?: string; block?: string | null; data?: { jurisdiction?: string; companyNumber?: string } };
      const company = event.data?.companyNumber ? ` ${event.data.jurisdiction} ${event.data.companyNumber}` : '';
      summary = `${event.type}${event.block ? ` ${event.block}` : ''}${company}`;
    } catch {
      summary = 'a body that is not JSON';
    }
    const verdict = verifiedBy ? `signature verified (${verifiedBy})` : 'signature NOT verified';
    options.print(`${clock().toISOString()}  ${summary}  ${headers['webhook-id'] ?? '(no webhook-id)'}  ${verdict}  → ${options.status}`);
    response.writeHead(options.status, { 'content-type': 'text/plain' }).end(verifiedBy ? 'ok' : 'unverified');
  };
  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
