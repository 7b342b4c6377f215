import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RegisterStreamEmulator, startRegisterStreamEmulator } from '../../../local/register-stream-emulator';
import { parseStreamLine } from '../../../shared/register/stream/stream-events';
import {
  readStream,
  readStreamConnection,
  StreamHttpError,
  StreamIdleError,
  type StreamItem,
  TimepointGoneError,
} from '../../../shared/register/stream/stream-reader';

const KEY = 'test-stream-key';
const running: RegisterStreamEmulator[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.stop();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function emulator(options: Partial<Parameters<typeof startRegisterStreamEmulator>[0]> = {}) {
  const started = await startRegisterStreamEmulator({ streamKey: KEY, heartbeatMs: 50, ...options });
  running.push(started);
  return started;
}

function company(emulator: RegisterStreamEmulator, status = 'active') {
  return emulator.publish('companies', {
    resource_kind: 'company-profile',
    resource_uri: '/company/15380840',
    resource_id: '15380840',
    data: { company_status: status },
  });
}

const timepointOf = (item: StreamItem) => {
  if (item.kind !== 'line') return undefined;
  const parsed = parseStreamLine('companies', item.text);
  return parsed.ok ? parsed.event.timepoint : undefined;
};

/** Takes items until `count` have come or the generator ends. */
async function take(items: AsyncGenerator<StreamItem>, count: number): Promise<StreamItem[]> {
  const taken: StreamItem[] = [];
  if (count === 0) return taken;
  for await (const item of items) {
    taken.push(item);
    if (taken.length >= count) break;
  }
  return taken;
}

describe('one connection to the emulator', () => {
  it('reads from the timepoint asked for, and the key is checked', async () => {
    const stream = await emulator();
    for (const status of ['active', 'liquidation', 'dissolved']) company(stream, status);

    const items = await take(readStreamConnection({ baseUrl: stream.url, stream: 'companies', streamKey: KEY, timepoint: 2 }), 2);
    const refused = await take(readStreamConnection({ baseUrl: stream.url, stream: 'companies', streamKey: 'wrong' }), 1).catch((e) => e);

    expect(items.map(timepointOf)).toEqual([2, 3]);
    expect(refused).toBeInstanceOf(StreamHttpError);
    expect((refused as StreamHttpError).status).toBe(401);
  });

  it('stays up on heartbeats alone, and gives up on silence after the idle limit', async () => {
    const stream = await emulator({ heartbeatMs: 40 });
    let heartbeats = 0;
    const controller = new AbortController();
    const started = Date.now();

    const items = readStreamConnection({
      baseUrl: stream.url,
      stream: 'filings',
      streamKey: KEY,
      idleTimeoutMs: 250,
      signal: controller.signal,
      onHeartbeat: () => {
        heartbeats += 1;
        if (heartbeats === 15) stream.stall('filings');
      },
    });
    const error = await take(items, 1).catch((e) => e);

    expect(error).toBeInstanceOf(StreamIdleError);
    expect(heartbeats).toBe(15);
    // Fifteen heartbeats 40 ms apart outlast the 250 ms limit: only the stall ended it.
    expect(Date.now() - started).toBeGreaterThan(600);
  });

  it('refuses a line over the limit without ending the connection', async () => {
    const stream = await emulator();
    company(stream);
    stream.publishRaw('companies', JSON.stringify({ padding: 'x'.repeat(3 * 1024 * 1024) }));
    company(stream, 'dissolved');

    const items = await take(
      readStreamConnection({ baseUrl: stream.url, stream: 'companies', streamKey: KEY, timepoint: 1, maxLineBytes: 1024 * 1024 }),
      3,
    );

    expect(items[0] && timepointOf(items[0])).toBe(1);
    expect(items[1]).toEqual({ kind: 'oversize', bytes: expect.any(Number) });
    expect((items[1] as { bytes: number }).bytes).toBeGreaterThan(3 * 1024 * 1024);
    expect(items[2] && timepointOf(items[2])).toBe(3);
  });

  it('answers a timepoint the register no longer holds with TimepointGoneError', async () => {
    const stream = await emulator();
    for (let i = 0; i < 5; i++) company(stream);
    stream.forgetThrough('companies', 3);

    const gone = await take(readStreamConnection({ baseUrl: stream.url, stream: 'companies', streamKey: KEY, timepoint: 2 }), 1).catch(
      (e) => e,
    );
    const held = await take(readStreamConnection({ baseUrl: stream.url, stream: 'companies', streamKey: KEY, timepoint: 4 }), 2);

    expect(gone).toBeInstanceOf(TimepointGoneError);
    expect(held.map(timepointOf)).toEqual([4, 5]);
  });
});

describe('the stream across connections', () => {
  it('reconnects after each scheduled drop from the next timepoint, losing and repeating nothing', async () => {
    const stream = await emulator({ disconnectAfterMs: 150 });
    let last = 0;
    const reconnects: unknown[] = [];
    const publisher = setInterval(() => company(stream), 5);

    const items = readStream({
      baseUrl: stream.url,
      stream: 'companies',
      streamKey: KEY,
      resumeFrom: () => last + 1,
      backoff: { endedMs: 5, failureMs: 5 },
      onReconnect: (reason) => reconnects.push(reason),
    });
    const seen: number[] = [];
    for await (const item of items) {
      last = timepointOf(item) ?? last;
      seen.push(last);
      if (seen.length === 150) break;
    }
    clearInterval(publisher);

    expect(seen).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
    expect(reconnects.length).toBeGreaterThanOrEqual(2);
    expect(reconnects.every((reason) => reason === undefined)).toBe(true);
  });

  it('reconnects after a silent connection from the next timepoint, having waited the failure backoff', async () => {
    const stream = await emulator({ heartbeatMs: 30 });
    company(stream);
    let last = 0;
    const reasons: unknown[] = [];
    const sleeps: number[] = [];

    const items = readStream({
      baseUrl: stream.url,
      stream: 'companies',
      streamKey: KEY,
      idleTimeoutMs: 200,
      resumeFrom: () => last + 1,
      random: () => 0,
      onReconnect: (reason) => reasons.push(reason),
      sleep: async (ms) => {
        sleeps.push(ms);
        company(stream, 'dissolved');
      },
    });
    const seen: number[] = [];
    for await (const item of items) {
      last = timepointOf(item) ?? last;
      seen.push(last);
      if (seen.length === 1) stream.stall('companies');
      if (seen.length === 2) break;
    }

    expect(seen).toEqual([1, 2]);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(StreamIdleError);
    expect(sleeps).toEqual([10_000]);
    expect(stream.connections.map((c) => c.timepoint)).toEqual([1, 2]);
  });

  it('waits a minute after a 429 (a third connection) and ten seconds growing after 5xx, by the register settings', async () => {
    const stream = await emulator();
    company(stream);
    const first = readStreamConnection({ baseUrl: stream.url, stream: 'companies', streamKey: KEY, timepoint: 1 });
    const second = readStreamConnection({ baseUrl: stream.url, stream: 'companies', streamKey: KEY, timepoint: 1 });
    await take(first, 1);
    await take(second, 1).catch(() => undefined);
    // The generators above were closed by take's break; hold two open ones for the third to meet.
    const holders = [0, 1].map(() => readStreamConnection({ baseUrl: stream.url, stream: 'companies', streamKey: KEY, timepoint: 1 }));
    await Promise.all(holders.map((holder) => holder.next()));
    expect(stream.openConnections('companies')).toBe(2);

    const waits: Array<{ reason: unknown; ms: number }> = [];
    const controller = new AbortController();
    const sleeps: number[] = [];
    const third = readStream({
      baseUrl: stream.url,
      stream: 'companies',
      streamKey: KEY,
      resumeFrom: () => 1,
      signal: controller.signal,
      random: () => 0,
      onReconnect: (reason, ms) => waits.push({ reason, ms }),
      sleep: async (ms) => {
        sleeps.push(ms);
        if (sleeps.length === 1) {
          // The two holders leave; the register then fails twice before it answers.
          for (const holder of holders) await holder.return(undefined);
          stream.failNextConnections('companies', 503, 2);
        }
      },
    });
    const [item] = await take(third, 1);
    controller.abort();

    expect(item && timepointOf(item)).toBe(1);
    expect(waits.map(({ reason }) => (reason as StreamHttpError).status)).toEqual([429, 503, 503]);
    // Failures in a row grow the wait, the 429 among them: the two 503s are the second and third.
    expect(sleeps).toEqual([60_000, 20_000, 40_000]);
    expect(stream.connections.map((c) => c.status).slice(-4)).toEqual([429, 503, 503, 200]);
  });

  it('throws TimepointGoneError out of the reconnecting reader, for the consumer to record', async () => {
    const stream = await emulator();
    company(stream);
    company(stream);
    stream.forgetThrough('companies', 1);

    const error = await take(readStream({ baseUrl: stream.url, stream: 'companies', streamKey: KEY, resumeFrom: () => 1 }), 1).catch(
      (e) => e,
    );

    expect(error).toBeInstanceOf(TimepointGoneError);
    expect((error as TimepointGoneError).timepoint).toBe(1);
  });

  it('keeps its timepoints across a restart of the emulator', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'register-stream-'));
    folders.push(folder);
    const before = await emulator({ dataDir: folder });
    company(before);
    company(before);
    await before.stop();

    const after = await emulator({ dataDir: folder });
    const next = company(after, 'dissolved');
    const items = await take(readStreamConnection({ baseUrl: after.url, stream: 'companies', streamKey: KEY, timepoint: 1 }), 3);

    expect(next).toBe(3);
    expect(items.map(timepointOf)).toEqual([1, 2, 3]);
  });
});
