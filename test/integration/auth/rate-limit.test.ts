import { createServer, type Server, type Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter, rateLimitedHeaders, rateLimitHeaders } from '../../../shared/auth/rate-limit';
import { createDocumentClient, createDynamoClient } from '../../../shared/storage/dynamo';
import { clientsTable } from '../../../shared/storage/tables';
import { presentMinuteMs } from '../../support/clock';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { manualClock } from '../../support/fakes';

let tables: TestTables;
beforeAll(async () => {
  tables = await createTestTables([clientsTable]);
});

let counter = 0;
const uniqueKey = () => `client#limiter-${Date.now().toString(36)}-${counter++}`;

/** 20 s into a window, so 40 s remain. */
const clockInWindow = () => manualClock(presentMinuteMs() + 20_000);

describe('the rate limiter', () => {
  it('counts calls in the current window and refuses those over the limit', async () => {
    const clock = clockInWindow();
    const limiter = new RateLimiter(tables.doc, tables.names.clients as string, { clock });
    const key = uniqueKey();

    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limiter.consume(key, 3));

    expect(results.map((r) => [r.allowed, r.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(results[3]).toMatchObject({ limit: 3, resetSeconds: 40 });
  });

  it('counts atomically under concurrency', async () => {
    const limiter = new RateLimiter(tables.doc, tables.names.clients as string, { clock: clockInWindow() });
    const key = uniqueKey();

    const results = await Promise.all(Array.from({ length: 20 }, () => limiter.consume(key, 10)));

    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    expect(results.map((r) => r.remaining).sort((a, b) => a - b)).toEqual([...Array(11).fill(0), 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('starts afresh in the next window and keeps keys apart', async () => {
    const clock = clockInWindow();
    const limiter = new RateLimiter(tables.doc, tables.names.clients as string, { clock });
    const [key, other] = [uniqueKey(), uniqueKey()];
    await limiter.consume(key, 1);
    expect((await limiter.consume(key, 1)).allowed).toBe(false);

    expect((await limiter.consume(other, 1)).allowed).toBe(true);
    clock.advance(40);
    const next = await limiter.consume(key, 1);

    expect(next).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 60 });
  });

  it('fails open, quickly, when DynamoDB cannot be reached', async () => {
    const unreachable = createDocumentClient(createDynamoClient({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', AWS_REGION: 'eu-west-2' }));
    const limiter = new RateLimiter(unreachable, 'clients', { timeoutMs: 500 });

    const started = Date.now();
    const consumed = await limiter.consume(uniqueKey(), 5);

    expect(consumed).toMatchObject({ allowed: true, failedOpen: true, limit: 5 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(rateLimitHeaders(consumed)).toEqual({ 'ratelimit-policy': '"default";q=5;w=60' });
  });

  it('still holds the limit on this instance while it fails open', async () => {
    const unreachable = createDocumentClient(createDynamoClient({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', AWS_REGION: 'eu-west-2' }));
    const limiter = new RateLimiter(unreachable, 'clients', { timeoutMs: 500, clock: clockInWindow() });
    const key = uniqueKey();

    const results = await Promise.all(Array.from({ length: 12 }, () => limiter.consume(key, 5)));

    expect(results.filter((result) => result.allowed)).toHaveLength(5);
    expect(results.every((result) => result.failedOpen)).toBe(true);
  });

  it('fails open within its time budget when DynamoDB accepts connections but never answers', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const hanging = createDocumentClient(createDynamoClient({ DYNAMODB_ENDPOINT: `http://127.0.0.1:${port}`, AWS_REGION: 'eu-west-2' }));
    const limiter = new RateLimiter(hanging, 'clients', { timeoutMs: 300 });

    try {
      const started = Date.now();
      const consumed = await limiter.consume(uniqueKey(), 5);

      expect(consumed).toMatchObject({ allowed: true, failedOpen: true });
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('describes the policy and the live counter in draft RateLimit headers', () => {
    const usage = { allowed: false, limit: 600, remaining: 0, used: 601, windowStart: 1_800_000_000, resetSeconds: 17 };

    expect(rateLimitHeaders({ ...usage, remaining: 12 })).toEqual({
      'ratelimit-policy': '"default";q=600;w=60',
      ratelimit: '"default";r=12;t=17',
    });
    expect(rateLimitedHeaders(usage)).toEqual({
      'ratelimit-policy': '"default";q=600;w=60',
      ratelimit: '"default";r=0;t=17',
      'retry-after': '17',
    });
  });
});
