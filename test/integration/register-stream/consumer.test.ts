import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RegisterStreamEmulator, startRegisterStreamEmulator } from '../../../local/register-stream-emulator';
import { DynamoStreamCheckpoints } from '../../../shared/register/stream/checkpoints';
import { type ConsumeStreamOptions, consumeStream } from '../../../shared/register/stream/consumer';
import type { ApplyEvents, StreamEvent, StreamName } from '../../../shared/register/stream/stream-events';
import { registerStreamsTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';

const KEY = 'consumer-test-key';
let tables: TestTables;
let emulator: RegisterStreamEmulator;
const folders: string[] = [];

// A table per test: each starts with no checkpoint on any stream.
beforeEach(async () => {
  tables = await createTestTables([registerStreamsTable]);
});
afterEach(async () => {
  await emulator?.stop();
});
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const tableName = () => tables.names[registerStreamsTable.id] as string;
const checkpoints = () => new DynamoStreamCheckpoints(tables.doc, tableName());

interface Recorded {
  readonly calls: Array<readonly StreamEvent[]>;
  readonly apply: ApplyEvents;
  readonly timepoints: () => number[];
}

/** An apply that records what it was given; `fail` decides, per call, whether it throws instead. */
function recordingApply(fail: (events: readonly StreamEvent[], call: number) => boolean = () => false): Recorded {
  const calls: Array<readonly StreamEvent[]> = [];
  let call = 0;
  return {
    calls,
    apply: async (_stream, events) => {
      call += 1;
      if (fail(events, call)) throw new Error(`apply failed on call ${call}`);
      calls.push(events);
      return { applied: events.length, unchanged: 0, skipped: 0 };
    },
    timepoints: () => calls.flat().map((event) => event.timepoint),
  };
}

const logs: Array<{ level: string; message: string; attributes?: Record<string, unknown> }> = [];
const log = {
  info: (message: string, attributes?: Record<string, unknown>) =>
    logs.push({ level: 'info', message, ...(attributes ? { attributes } : {}) }),
  warn: (message: string, attributes?: Record<string, unknown>) =>
    logs.push({ level: 'warn', message, ...(attributes ? { attributes } : {}) }),
  error: (message: string, attributes?: Record<string, unknown>) =>
    logs.push({ level: 'error', message, ...(attributes ? { attributes } : {}) }),
};

/** A checkpoint as a consumer before this one left it. */
async function seedCheckpoint(stream: StreamName, timepoint: number) {
  const store = checkpoints();
  await store.acquire(stream, 'earlier', 60_000);
  await store.advance(stream, 'earlier', { timepoint, publishedAt: '2026-11-25T08:00:00' });
  await store.release(stream, 'earlier');
  return store;
}

function publishCompanies(count: number, stream: StreamName = 'companies'): number[] {
  return Array.from({ length: count }, (_, i) =>
    emulator.publish(stream, {
      resource_kind: 'company-profile',
      resource_uri: `/company/1538${String(i % 1000).padStart(4, '0')}`,
      resource_id: `1538${String(i % 1000).padStart(4, '0')}`,
      data: { company_status: i % 2 ? 'active' : 'liquidation' },
    }),
  );
}

/** Runs a consumer until `until` holds (checked every 20 ms), then stops it by its signal. */
async function consumeUntil(
  options: Partial<ConsumeStreamOptions> & Pick<ConsumeStreamOptions, 'apply'>,
  until: () => boolean | Promise<boolean>,
  limitMs = 20_000,
) {
  const controller = new AbortController();
  const run = consumeStream({
    stream: 'companies',
    baseUrl: emulator.url,
    streamKey: KEY,
    checkpoints: checkpoints(),
    owner: `consumer-${Math.random().toString(36).slice(2)}`,
    signal: controller.signal,
    log,
    batchWaitMs: 20,
    leaseRetryMs: 50,
    ...options,
  });
  const started = Date.now();
  while (!(await until()) && Date.now() - started < limitMs) await new Promise((resolve) => setTimeout(resolve, 20));
  controller.abort();
  return run;
}

describe('consumeStream', () => {
  it('applies events in order, in batches, moves the checkpoint after each, and hands the lease over when stopped', async () => {
    emulator = await startRegisterStreamEmulator({ streamKey: KEY, heartbeatMs: 50 });
    const store = await seedCheckpoint('companies', 0);
    const published = publishCompanies(1_234);
    const recorded = recordingApply();
    const metrics = { applied: 0, lags: [] as number[] };

    const result = await consumeUntil(
      {
        apply: recorded.apply,
        batchSize: 500,
        metrics: { applied: (_s, outcome) => (metrics.applied += outcome.applied), lag: (_s, ms) => metrics.lags.push(ms) },
      },
      () => recorded.timepoints().length >= published.length,
    );

    expect(recorded.timepoints()).toEqual(published);
    expect(recorded.calls.map((batch) => batch.length)).toEqual([500, 500, 234]);
    expect(result).toMatchObject({ stoppedBecause: 'signal', events: 1_234, batches: 3, skipped: 0, checkpoint: 1_234 });
    expect(metrics.applied).toBe(1_234);
    expect(metrics.lags.every((lag) => lag >= 0 && lag < 60_000)).toBe(true);
    expect((await store.read('companies'))?.timepoint).toBe(1_234);
    expect(await store.lease('companies')).toBeUndefined();
  });

  it('leaves the batch in hand when told to stop, without waiting to apply it, and the next run applies it from the checkpoint', async () => {
    emulator = await startRegisterStreamEmulator({ streamKey: KEY, heartbeatMs: 50 });
    const store = await seedCheckpoint('companies', 0);
    const published = publishCompanies(300);
    const first = recordingApply();
    // A batch that waits a minute to fill: all 300 events are read into it, none applied, when the stop comes.
    const readingSince = Date.now();
    const stopped = await consumeUntil({ apply: first.apply, batchWaitMs: 60_000 }, () => Date.now() - readingSince > 1_000);
    expect(first.calls).toEqual([]);
    expect(stopped).toMatchObject({ stoppedBecause: 'signal', events: 0 });
    expect((await store.read('companies'))?.timepoint).toBe(0);
    expect(await store.lease('companies')).toBeUndefined();

    const second = recordingApply();
    await consumeUntil({ apply: second.apply }, () => second.timepoints().length >= published.length);
    expect(second.timepoints()).toEqual(published);
    expect((await store.read('companies'))?.timepoint).toBe(300);
  });

  it('flushes a batch after the wait when the stream goes quiet, passes duplicates through to apply, and stops at its deadline', async () => {
    emulator = await startRegisterStreamEmulator({ streamKey: KEY, heartbeatMs: 50 });
    await seedCheckpoint('persons-with-significant-control', 0);
    const psc = {
      resource_kind: 'company-psc-individual',
      resource_uri: '/company/15380840/persons-with-significant-control/individual/p1',
      resource_id: 'p1',
      data: { name: 'SMITH, Amelia' },
    };
    for (let i = 0; i < 3; i++) emulator.publish('persons-with-significant-control', psc);
    const recorded = recordingApply();
    const started = Date.now();

    const result = await consumeStream({
      stream: 'persons-with-significant-control',
      baseUrl: emulator.url,
      streamKey: KEY,
      checkpoints: checkpoints(),
      owner: 'deadline',
      apply: recorded.apply,
      batchSize: 100,
      batchWaitMs: 100,
      deadline: Date.now() + 1_000,
      log,
    });

    expect(recorded.calls.map((batch) => batch.map((event) => event.resourceId))).toEqual([['p1', 'p1', 'p1']]);
    expect(result).toMatchObject({ stoppedBecause: 'deadline', checkpoint: 3 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await checkpoints().lease('persons-with-significant-control')).toBeUndefined();
  });

  it('skips malformed and oversize lines, counting and logging each with its place', async () => {
    emulator = await startRegisterStreamEmulator({ streamKey: KEY, heartbeatMs: 50 });
    const store = await seedCheckpoint('filings', 0);
    const filing = (id: string) => ({
      resource_kind: 'filing-history',
      resource_uri: `/company/15380840/filing-history/${id}`,
      resource_id: id,
      data: { category: 'accounts' },
    });
    emulator.publish('filings', filing('a'));
    emulator.publishRaw('filings', '{"resource_kind":"filing-history", "event": {');
    emulator.publishRaw(
      'filings',
      JSON.stringify({ ...filing('b'), resource_kind: 'company-profile', event: { timepoint: 3, published_at: 'x', type: 'changed' } }),
    );
    emulator.publishRaw('filings', JSON.stringify({ big: 'x'.repeat(70_000) }));
    emulator.publish('filings', filing('c'));
    emulator.publish('filings', filing('c'));
    const recorded = recordingApply();
    const skippedReasons: string[] = [];
    logs.length = 0;

    const result = await consumeUntil(
      {
        stream: 'filings',
        apply: recorded.apply,
        maxLineBytes: 64 * 1024,
        metrics: { skipped: (_s, reason) => skippedReasons.push(reason) },
      },
      () => recorded.timepoints().length >= 3,
    );

    expect(recorded.timepoints()).toEqual([1, 5, 6]);
    expect(recorded.calls.flat().map((event) => event.resourceId)).toEqual(['a', 'c', 'c']);
    expect(skippedReasons).toEqual(['malformed-json', 'unknown-resource-kind', 'oversize']);
    expect(result.skipped).toBe(3);
    expect(logs.filter((entry) => entry.message === 'Stream line refused').map((entry) => entry.attributes?.timepoint)).toEqual([
      undefined,
      3,
    ]);
    expect((await store.read('filings'))?.timepoint).toBe(6);
  });

  it('applies a failing batch again until it succeeds, never moving the checkpoint past it meanwhile', async () => {
    emulator = await startRegisterStreamEmulator({ streamKey: KEY, heartbeatMs: 50 });
    const store = await seedCheckpoint('charges', 0);
    const published = Array.from({ length: 30 }, (_, i) =>
      emulator.publish('charges', {
        resource_kind: 'company-charges',
        resource_uri: `/company/15380840/charges/${i}`,
        resource_id: String(i),
        data: { status: 'outstanding' },
      }),
    );
    const checkpointsWhileFailing: Array<number | undefined> = [];
    let failures = 0;
    const recorded = recordingApply((events) => {
      if (events.some((event) => event.timepoint === 15) && failures < 4) {
        failures += 1;
        return true;
      }
      return false;
    });
    const watching = setInterval(async () => {
      if (failures > 0 && failures < 4) checkpointsWhileFailing.push((await store.read('charges'))?.timepoint);
    }, 10);

    await consumeUntil(
      { stream: 'charges', apply: recorded.apply, batchSize: 10, applyRetryMs: 20 },
      () => recorded.timepoints().length >= published.length,
    );
    clearInterval(watching);

    expect(failures).toBe(4);
    expect(recorded.timepoints()).toEqual(published);
    expect(checkpointsWhileFailing.length).toBeGreaterThan(0);
    expect(checkpointsWhileFailing.every((timepoint) => timepoint === 10)).toBe(true);
    expect((await store.read('charges'))?.timepoint).toBe(30);
  });

  it('after a consumer is killed mid-stream, a successor applies every event, in order, from where the checkpoint stood', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'register-stream-kill-'));
    folders.push(folder);
    emulator = await startRegisterStreamEmulator({ streamKey: KEY, heartbeatMs: 100 });
    const store = await seedCheckpoint('companies', 0);
    const total = 3_000;
    publishCompanies(1_000);
    const appliedFile = join(folder, 'applied');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(import.meta.dirname, 'fixtures/consume-until-killed.ts'),
        emulator.url,
        KEY,
        tables.env.DYNAMODB_ENDPOINT as string,
        tableName(),
        appliedFile,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const killedApplied = () => (existsSync(appliedFile) ? readFileSync(appliedFile, 'utf8').split('\n').filter(Boolean).map(Number) : []);
    const started = Date.now();
    // Published while the first consumer reads, so the kill lands in a live stream.
    const publisher = setInterval(() => {
      if (emulator.latest('companies') !== undefined && (emulator.latest('companies') as number) < total) publishCompanies(50);
    }, 10);
    while (killedApplied().length < 600 && Date.now() - started < 20_000) await new Promise((resolve) => setTimeout(resolve, 10));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const first = killedApplied();
    const recorded = recordingApply();
    // A checkpoint write the killed consumer had already sent can still land after its exit, so the
    // checkpoint it left is read once the successor holds the lease: from then on, a write of the
    // killed one's is refused by its lease condition, and the stored checkpoint is final.
    let checkpointAtKill: number | undefined;
    const apply: typeof recorded.apply = async (stream, events) => {
      checkpointAtKill ??= (await store.read('companies'))?.timepoint ?? 0;
      return recorded.apply(stream, events);
    };

    const result = await consumeUntil(
      { owner: 'successor', apply, batchSize: 20, leaseTtlMs: 1_500 },
      () => recorded.timepoints().at(-1) === total,
      30_000,
    );
    clearInterval(publisher);
    const second = recorded.timepoints();

    expect(first.length).toBeGreaterThanOrEqual(600);
    expect(first).toEqual(Array.from({ length: first.length }, (_, i) => i + 1));
    // The successor starts right after the checkpoint: what the killed one applied past it comes again (at least once), nothing is skipped.
    const left = checkpointAtKill ?? 0;
    expect(second[0]).toBe(left + 1);
    expect(second).toEqual(Array.from({ length: total - left }, (_, i) => left + 1 + i));
    expect(first.length - left).toBeLessThanOrEqual(20);
    const everyEvent = new Set([...first, ...second]);
    expect(everyEvent.size).toBe(total);
    expect(result).toMatchObject({ stoppedBecause: 'signal', checkpoint: total });
  }, 60_000);

  it('lets only one of two consumers apply, and the other take over when the first hands over', async () => {
    emulator = await startRegisterStreamEmulator({ streamKey: KEY, heartbeatMs: 50 });
    await seedCheckpoint('companies', 0);
    publishCompanies(100);
    const first = recordingApply();
    const second = recordingApply();
    const stopFirst = new AbortController();
    const stopSecond = new AbortController();
    const common = { stream: 'companies' as const, baseUrl: emulator.url, streamKey: KEY, log, batchWaitMs: 20, leaseRetryMs: 50 };

    const firstRun = consumeStream({ ...common, checkpoints: checkpoints(), owner: 'first', apply: first.apply, signal: stopFirst.signal });
    while (first.timepoints().length < 100) await new Promise((resolve) => setTimeout(resolve, 10));
    const secondRun = consumeStream({
      ...common,
      checkpoints: checkpoints(),
      owner: 'second',
      apply: second.apply,
      signal: stopSecond.signal,
    });
    publishCompanies(50);
    while (first.timepoints().length < 150) await new Promise((resolve) => setTimeout(resolve, 10));
    stopFirst.abort();
    await firstRun;
    publishCompanies(50);
    while (second.timepoints().length < 50) await new Promise((resolve) => setTimeout(resolve, 10));
    stopSecond.abort();
    await secondRun;

    expect(first.timepoints()).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
    expect(second.timepoints()).toEqual(Array.from({ length: 50 }, (_, i) => i + 151));
  });

  it('records a gap when the register no longer holds the checkpoint, and goes on from what it publishes now', async () => {
    emulator = await startRegisterStreamEmulator({ streamKey: KEY, heartbeatMs: 50 });
    const store = await seedCheckpoint('companies', 5);
    publishCompanies(20);
    emulator.forgetThrough('companies', 10);
    const recorded = recordingApply();
    const gaps: Array<number | undefined> = [];
    const publisher = setInterval(() => publishCompanies(1), 20);

    await consumeUntil({ apply: recorded.apply, metrics: { gap: (_s, from) => gaps.push(from) } }, () => recorded.timepoints().length >= 5);
    clearInterval(publisher);

    const [gap] = await store.gaps('companies');
    expect(gaps).toEqual([6]);
    expect(gap).toMatchObject({ from: 6, resumedAt: recorded.timepoints()[0] });
    expect(recorded.timepoints()[0]).toBeGreaterThan(20);
    expect((await store.read('companies'))?.timepoint).toBe(recorded.timepoints().at(-1));
  });

  it('after a 416 for a checkpoint past what the register holds (its numbering started again), moves the checkpoint to what it reads now', async () => {
    emulator = await startRegisterStreamEmulator({ streamKey: KEY, heartbeatMs: 50 });
    const store = await seedCheckpoint('companies', 500);
    publishCompanies(3);
    const recorded = recordingApply();
    const publisher = setInterval(() => publishCompanies(1), 20);

    await consumeUntil({ apply: recorded.apply }, () => recorded.timepoints().length >= 3);
    clearInterval(publisher);

    expect(await store.gaps('companies')).toMatchObject([{ from: 501, resumedAt: recorded.timepoints()[0] }]);
    expect(recorded.timepoints()[0]).toBeLessThan(500);
    expect((await store.read('companies'))?.timepoint).toBe(recorded.timepoints().at(-1));
  });
});
