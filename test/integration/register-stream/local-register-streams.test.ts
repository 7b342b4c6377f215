import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsPerSecondFrom, startLocalRegisterStreams } from '../../../infra/local/register-stream-consumers';
import { demoDataset } from '../../../infra/local/seed';
import { DynamoStreamCheckpoints } from '../../../infra/operations/companies/stream/checkpoints';
import type { ApplyEvents, StreamEvent } from '../../../infra/operations/companies/stream/stream-events';
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
    const companiesCheckpoint = (await checkpoints.read('companies'))?.timepoint;

    const after = recording();
    const second = await run(after.apply, 0);
    second.emulator.publish('companies', {
      resource_kind: 'company-profile',
      resource_uri: '/company/15380840',
      resource_id: '15380840',
      data: { company_status: 'active' },
    });
    await waitFor(() => after.events.some((event) => event.stream === 'companies'));
    await second.stop();

    const companies = before.events.filter((event) => event.stream === 'companies').map((event) => event.timepoint);
    expect(companies).toEqual(Array.from({ length: companies.length }, (_, i) => i + 1));
    expect(companiesCheckpoint).toBe(companies.at(-1));
    expect(after.events.map((event) => [event.stream, event.timepoint])).toEqual([['companies', (companiesCheckpoint as number) + 1]]);
    expect(await checkpoints.lease('companies')).toBeUndefined();
  });

  it('publishes a few events a second with the demo data, none without, and as the setting says', () => {
    expect(eventsPerSecondFrom({}, true)).toBe(3);
    expect(eventsPerSecondFrom({}, false)).toBe(0);
    expect(eventsPerSecondFrom({ REGISTER_STREAM_EVENTS_PER_SECOND: '0' }, true)).toBe(0);
    expect(eventsPerSecondFrom({ REGISTER_STREAM_EVENTS_PER_SECOND: '12.5' }, false)).toBe(12.5);
    expect(() => eventsPerSecondFrom({ REGISTER_STREAM_EVENTS_PER_SECOND: 'lots' }, true)).toThrow(/REGISTER_STREAM_EVENTS_PER_SECOND/);
  });
});
