import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookEnvelope } from '../../../shared/events/envelope';
import type { DeliveryMessage } from '../../../shared/queues/queues';
import { deliveriesTable, webhooksTable } from '../../../shared/storage/tables';
import { DeliveryClient } from '../../../shared/webhooks/delivery-client';
import { DynamoDeliveryLog } from '../../../shared/webhooks/dynamo-delivery-log';
import { DynamoSubscriptionStore } from '../../../shared/webhooks/dynamo-subscription-store';
import { deliveryIdOf } from '../../../shared/webhooks/events';
import { RETRY_DELAYS_SECONDS } from '../../../shared/webhooks/retry-schedule';
import { type SendOutcome, WebhookSender } from '../../../shared/webhooks/sender';
import type { Subscription } from '../../../shared/webhooks/subscription';
import { createTestTables } from '../../support/dynamo';
import { fixtureSealer, subscriptionFixture } from '../../support/subscription-fixture';

/** Short, so a receiver that holds the attempt is cut off within the test; every bound below is stated against it. */
const TIMEOUT_MS = 1500;
const MIB = 2 ** 20;

/** How much of each 64 MiB answer the receiver got to write before the connection closed, by path. */
const hugeWritten = new Map<string, number>();

/**
 * 64 MiB as fast as the client takes it, announced (the client can refuse it from its length) or
 * chunked (it must stop reading at its cap).
 */
const huge =
  (announced: boolean) =>
  (request: IncomingMessage, response: ServerResponse): void => {
    response.writeHead(200, { 'content-type': 'application/octet-stream', ...(announced ? { 'content-length': String(64 * MIB) } : {}) });
    const chunk = Buffer.alloc(MIB, 120);
    let sent = 0;
    response.once('close', () => hugeWritten.set(request.url as string, sent * MIB));
    const pump = () => {
      while (sent < 64 && !response.destroyed) {
        sent++;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
      if (!response.destroyed) response.end();
    };
    pump();
  };

/** Receivers that misbehave on purpose, each on its own path of one server on loopback. */
const behaviours: Record<string, (request: IncomingMessage, response: ServerResponse) => void> = {
  '/hang': () => {},
  '/huge': huge(true),
  '/huge-chunked': huge(false),
  // Each byte arrives well within the client's idle allowance, so only the attempt's total deadline can end it.
  '/trickle': (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    const timer = setInterval(() => response.write('x'), 50);
    response.once('close', () => clearInterval(timer));
  },
  '/trickle-headers': (request) => {
    const line = Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n');
    let sent = 0;
    const timer = setInterval(() => {
      if (request.socket.destroyed) clearInterval(timer);
      else request.socket.write(line.subarray(sent, ++sent));
      if (sent >= line.length) sent = 0;
    }, 50);
    request.socket.once('close', () => clearInterval(timer));
  },
  '/reset-mid-body': (request) => {
    request.socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial', () => request.socket.resetAndDestroy());
  },
  '/reset-mid-headers': (request) => {
    request.socket.write('HTTP/1.1 200 OK\r\ncontent-', () => request.socket.resetAndDestroy());
  },
  '/fast': (_request, response) => response.writeHead(204).end(),
  '/fail': (_request, response) => response.writeHead(500).end(),
};

let server: Server;
let base: string;
let store: DynamoSubscriptionStore;
let log: DynamoDeliveryLog;
const client = new DeliveryClient({ allowLoopback: true, timeoutMs: TIMEOUT_MS });
let sender: WebhookSender;
let sequence = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.once('end', () => behaviours[request.url ?? '']?.(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tables = await createTestTables([webhooksTable, deliveriesTable]);
  store = new DynamoSubscriptionStore(tables.doc, tables.names.webhooks as string);
  log = new DynamoDeliveryLog(tables.doc, tables.names.deliveries as string, () => new Date());
  sender = new WebhookSender({
    subscriptions: store,
    log,
    client,
    retry: { delaysSeconds: RETRY_DELAYS_SECONDS, random: () => 0.5 },
    clock: () => new Date(),
    sealer: fixtureSealer,
  });
});

afterAll(async () => {
  await client.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

/** A client may hold only so many subscriptions: each test's go to a client of their own. */
async function subscription(path: string, clientId = `cli-hostile-${sequence}`): Promise<Subscription> {
  const created = await subscriptionFixture({ clientId, name: path, url: `${base}${path}` });
  await store.create(created);
  return created;
}

function message(target: Subscription): DeliveryMessage {
  const number = String(++sequence).padStart(8, '0');
  const envelope: WebhookEnvelope = {
    type: 'profile.changed',
    apiVersion: 'v1',
    occurredAt: new Date().toISOString(),
    idempotencyKey: `profile.changed:GB:${number}:overview:v2`,
    block: 'overview',
    data: { jurisdiction: 'GB', companyNumber: number },
  };
  return { deliveryId: deliveryIdOf(envelope.idempotencyKey, target.id), clientId: target.clientId, subscriptionId: target.id, envelope };
}

/** Sends one delivery to the receiver at `path` and returns its outcome and what the log kept of it. */
async function deliverTo(path: string) {
  const target = await subscription(path);
  const delivery = message(target);
  const started = performance.now();
  const outcome = await sender.send(delivery);
  const elapsedMs = performance.now() - started;
  const logged = await log.read(target.id, delivery.deliveryId);
  return { outcome, elapsedMs, logged };
}

const attemptOf = (outcome: SendOutcome) => ('attempt' in outcome ? outcome.attempt : undefined);

describe('a delivery to a receiver that misbehaves', () => {
  it('ends as a timeout at the deadline when the receiver never answers, and is retried on the schedule', async () => {
    const { outcome, elapsedMs, logged } = await deliverTo('/hang');
    expect(outcome).toMatchObject({ kind: 'retry', delaySeconds: RETRY_DELAYS_SECONDS[0], attempt: { error: 'timeout' } });
    expect(attemptOf(outcome)?.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(elapsedMs).toBeLessThan(TIMEOUT_MS + 1000);
    expect(logged).toMatchObject({ status: 'pending', attempts: 1 });
  });

  it.each(['/huge', '/huge-chunked'])(
    'reads at most its cap of a 64 MiB answer (%s): the attempt ends long before the deadline, cuts the answer short and holds next to nothing',
    async (path) => {
      // Buffers live outside the JS heap: a body read whole would show in arrayBuffers, not heapUsed.
      const held = () => {
        const memory = process.memoryUsage();
        return memory.heapUsed + memory.arrayBuffers;
      };
      const before = held();
      const { outcome, elapsedMs, logged } = await deliverTo(path);
      const grown = held() - before;
      // The log keeps its first 2 KiB, marked as the start of something longer.
      expect(outcome).toMatchObject({
        kind: 'delivered',
        attempt: { httpStatus: 200, responseBody: 'x'.repeat(2048), responseBodyTruncated: true },
      });
      expect(attemptOf(outcome)?.durationMs).toBeLessThan(TIMEOUT_MS / 2);
      expect(elapsedMs).toBeLessThan(TIMEOUT_MS);
      expect(grown).toBeLessThan(16 * MIB);
      expect(logged).toMatchObject({ status: 'delivered', attempts: 1 });
      // The client closed the connection with most of the answer unsent: only socket buffers' worth left the receiver.
      await expect.poll(() => hugeWritten.get(path)).toBeDefined();
      expect(hugeWritten.get(path)).toBeLessThanOrEqual(32 * MIB);
    },
  );

  it('takes the status and stops reading at the deadline when the body trickles in a byte at a time', async () => {
    const { outcome, elapsedMs } = await deliverTo('/trickle');
    expect(outcome).toMatchObject({
      kind: 'delivered',
      attempt: { httpStatus: 200, responseBody: expect.stringMatching(/^x+$/), responseBodyTruncated: true },
    });
    expect(attemptOf(outcome)?.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(elapsedMs).toBeLessThan(TIMEOUT_MS + 1000);
  });

  it('ends as a timeout at the deadline when the status line and headers trickle in forever', async () => {
    const { outcome, elapsedMs } = await deliverTo('/trickle-headers');
    expect(outcome).toMatchObject({ kind: 'retry', attempt: { error: 'timeout' } });
    expect(attemptOf(outcome)?.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(elapsedMs).toBeLessThan(TIMEOUT_MS + 1000);
  });

  it('takes the status of an answer reset mid-body (the receiver said 200), and the next delivery still goes through', async () => {
    const { outcome, elapsedMs } = await deliverTo('/reset-mid-body');
    expect(outcome).toMatchObject({
      kind: 'delivered',
      attempt: { httpStatus: 200, responseBody: 'partial', responseBodyTruncated: true },
    });
    expect(elapsedMs).toBeLessThan(TIMEOUT_MS);
    expect((await deliverTo('/fast')).outcome).toMatchObject({ kind: 'delivered', attempt: { httpStatus: 204 } });
  });

  it('logs a connection reset before the status line as a failed attempt, retried, without waiting for the deadline', async () => {
    const { outcome, elapsedMs, logged } = await deliverTo('/reset-mid-headers');
    expect(outcome).toMatchObject({ kind: 'retry', attempt: { error: 'connection_reset' } });
    expect(elapsedMs).toBeLessThan(TIMEOUT_MS);
    expect(logged).toMatchObject({ status: 'pending', attempts: 1 });
  });
});

describe('a batch with a receiver that never answers', () => {
  it('settles, and logs, its other deliveries (a success and a failure to retry) long before the hanging one ends', async () => {
    const hanging = await subscription('/hang', 'cli-hostile-batch');
    const others = await Promise.all(['/fast', '/fast', '/fast', '/fail'].map((path) => subscription(path, 'cli-hostile-batch')));
    const batch = [hanging, ...others].map((target) => ({ message: message(target) }));
    const quick = [1, 2, 3, 4];
    const started = performance.now();
    const settled = new Map<number, { at: number; kind: SendOutcome['kind'] }>();
    let quickSettled: () => void = () => {};
    const allQuickSettled = new Promise<void>((resolve) => {
      quickSettled = resolve;
    });
    const sending = sender.sendBatch(batch, async (index, outcome) => {
      settled.set(index, { at: performance.now() - started, kind: outcome.kind });
      if (quick.every((each) => settled.has(each))) quickSettled();
    });

    await allQuickSettled;
    // Told of, each with its own outcome, in a small fraction of the deadline the hanging POST still runs to.
    expect(quick.map((index) => settled.get(index)?.kind)).toEqual(['delivered', 'delivered', 'delivered', 'retry']);
    for (const index of quick) expect(settled.get(index)?.at).toBeLessThan(TIMEOUT_MS / 3);
    // And already in the log, the failure with its next attempt due: read while the hanging POST is still open.
    const logged = await Promise.all(others.map((target, index) => log.read(target.id, batch[index + 1]?.message.deliveryId as string)));
    expect(logged.map((record) => record?.status)).toEqual(['delivered', 'delivered', 'delivered', 'pending']);
    expect(logged[3]?.nextAttemptAt).toEqual(expect.any(String));
    expect(settled.has(0)).toBe(false);

    const outcomes = await sending;
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['retry', 'delivered', 'delivered', 'delivered', 'retry']);
    expect(outcomes[0]).toMatchObject({ attempt: { error: 'timeout' } });
    expect(settled.get(0)?.at).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  });
});
