import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsPerSecondFrom, startLocalRegisterStreams } from '../../../local/register-stream-consumers';
import { demoDataset } from '../../../local/seed';
import { DynamoStreamCheckpoints } from '../../../shared/register/stream/checkpoints';
import type { ApplyEvents, StreamEvent } from '../../../shared/register/stream/stream-events';
import { STREAM_NAMES } from '../../../shared/register/stream/stream-events';
import { ensureTable } from '../../../shared/storage/create-tables';
import { registerStreamsTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';

let tables: TestTables;
const folder = mkdtempSync(join(tmpdir(), 'local-register-streams-'));

beforeAll(async () => {
  tables = await createTestTables([registerStreamsTable]);
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function recording() {
  const events: StreamEvent[] = [];
  const apply: ApplyEvents = async (_stream, batch) => {
    events.push(...batch);
    return { applied: batch.length, unchanged: 0, skipped: 0 };
  };
  return { events, apply };
}

async function run(apply: ApplyEvents, eventsPerSecond: number) {
  return startLocalRegisterStreams({
    dataDir: folder,
    doc: tables.doc,
    registerStreamsTable: tables.names[registerStreamsTable.id] as string,
    apply,
    eventsPerSecond,
    companiesFile: demoDataset.gbFile,
    log: () => {},
    logError: (message, error) => {
      throw new Error(`${message}: ${String(error)}`);
    },
  });
}

const timepointsOf = (events: readonly StreamEvent[], stream: string) =>
  events.filter((event) => event.stream === stream).map((event) => event.timepoint);

const waitFor = async (condition: () => boolean, limitMs = 15_000) => {
  const started = Date.now();
  while (!condition() && Date.now() - started < limitMs) await new Promise((resolve) => setTimeout(resolve, 25));
};

describe('the local register streams', () => {
  it('publish demo activity that one consumer per stream applies, and a restart goes on from each checkpoint', async () => {
    const before = recording();
    const first = await run(before.apply, 200);
    await waitFor(() => before.events.length >= 150 && new Set(before.events.map((e) => e.stream)).size >= 5);
    await first.stop();
    const checkpoints = new DynamoStreamCheckpoints(tables.doc, tables.names[registerStreamsTable.id] as string);
    const stored = new Map(
      await Promise.all(STREAM_NAMES.map(async (stream) => [stream, (await checkpoints.read(stream))?.timepoint] as const)),
    );

    const after = recording();
    const second = await run(after.apply, 0);
    const last = second.emulator.publish('companies', {
      resource_kind: 'company-profile',
      resource_uri: '/company/15380840',
      resource_id: '15380840',
      data: { company_status: 'active' },
    });
    await waitFor(() => after.events.some((event) => event.stream === 'companies' && event.timepoint === last));
    await waitFor(() =>
      STREAM_NAMES.every(
        (stream) => (second.emulator.latest(stream) ?? 0) <= Math.max(0, ...timepointsOf(after.events, stream), stored.get(stream) ?? 0),
      ),
    );
    await second.stop();

    for (const stream of STREAM_NAMES) {
      const checkpoint = stored.get(stream) ?? 0;
      const firstRun = timepointsOf(before.events, stream);
      const secondRun = timepointsOf(after.events, stream);
      // Each stream in order with nothing missed or repeated: the second run starts right after the first's checkpoint.
      expect(firstRun.at(-1) ?? 0, stream).toBe(checkpoint);
      expect([...firstRun, ...secondRun], stream).toEqual(Array.from({ length: second.emulator.latest(stream) ?? 0 }, (_, i) => i + 1));
      expect(await checkpoints.lease(stream)).toBeUndefined();
    }
  });

  it('starts a consumer again after a storage failure stopped it, from its checkpoint', async () => {
    const missing = `registerStreams-later-${Date.now()}`;
    const errors: string[] = [];
    const recorded = recording();
    const streams = await startLocalRegisterStreams({
      doc: tables.doc,
      registerStreamsTable: missing,
      apply: recorded.apply,
      eventsPerSecond: 0,
      companiesFile: demoDataset.gbFile,
      log: () => {},
      logError: (message) => errors.push(message),
    });
    try {
      await waitFor(() => errors.length >= 9);
      await ensureTable(tables.client, registerStreamsTable, missing);
      await waitFor(() => STREAM_NAMES.every((stream) => streams.emulator.openConnections(stream) > 0), 20_000);
      streams.emulator.publish('charges', {
        resource_kind: 'company-charges',
        resource_uri: '/company/15380840/charges/c1',
        resource_id: 'c1',
        data: { status: 'outstanding' },
      });
      await waitFor(() => recorded.events.length > 0);
    } finally {
      await streams.stop();
    }

    expect(errors[0]).toMatch(/stream consumer stopped; starting it again in 5 s/);
    expect(recorded.events.map((event) => event.resourceId)).toEqual(['c1']);
  }, 40_000);

  it('publishes a few events a second with the demo data, none without, and as the setting says', () => {
    expect(eventsPerSecondFrom({}, true)).toBe(3);
    expect(eventsPerSecondFrom({}, false)).toBe(0);
    expect(eventsPerSecondFrom({ REGISTER_STREAM_EVENTS_PER_SECOND: '0' }, true)).toBe(0);
    expect(eventsPerSecondFrom({ REGISTER_STREAM_EVENTS_PER_SECOND: '12.5' }, false)).toBe(12.5);
    expect(() => eventsPerSecondFrom({ REGISTER_STREAM_EVENTS_PER_SECOND: 'lots' }, true)).toThrow(/REGISTER_STREAM_EVENTS_PER_SECOND/);
  });
});
