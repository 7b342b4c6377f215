import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoStreamCheckpoints, LeaseLostError } from '../../../shared/register/stream/checkpoints';
import { registerStreamsTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';

let tables: TestTables;
let now = Date.now();
const clock = () => now;
const checkpointsOf = () => new DynamoStreamCheckpoints(tables.doc, tables.names[registerStreamsTable.id] as string, clock);

beforeAll(async () => {
  tables = await createTestTables([registerStreamsTable]);
});

describe('stream leases', () => {
  it('lets one of two consumers hold a stream, and the other take over only once the lease expires', async () => {
    const store = checkpointsOf();

    const [a, b] = await Promise.all([store.acquire('charges', 'a', 10_000), store.acquire('charges', 'b', 10_000)]);
    const winner = a ? 'a' : 'b';
    const loser = a ? 'b' : 'a';
    now += 5_000;
    const loserBeforeExpiry = await store.acquire('charges', loser, 10_000);
    const winnerRenews = await store.renew('charges', winner, 10_000);
    now += 10_001;
    const loserAfterExpiry = await store.acquire('charges', loser, 10_000);
    const winnerRenewsLate = await store.renew('charges', winner, 10_000);

    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(loserBeforeExpiry).toBe(false);
    expect(winnerRenews).toBe(true);
    expect(loserAfterExpiry).toBe(true);
    expect(winnerRenewsLate).toBe(false);
    expect(await store.lease('charges')).toEqual({ owner: loser, expiresAt: now + 10_000 });
  });

  it('never lets a consumer that lost its lease move the checkpoint, nor anyone move it back', async () => {
    const store = checkpointsOf();
    await store.acquire('officers', 'first', 1_000);
    await store.advance('officers', 'first', { timepoint: 10, publishedAt: '2026-11-25T08:00:00' });
    now += 1_001;
    await store.acquire('officers', 'second', 1_000);

    const stale = await store.advance('officers', 'first', { timepoint: 20, publishedAt: '2026-11-25T08:00:01' }).catch((e) => e);
    await store.advance('officers', 'second', { timepoint: 15, publishedAt: '2026-11-25T08:00:02' });
    const backwards = await store.advance('officers', 'second', { timepoint: 12, publishedAt: '2026-11-25T08:00:03' }).catch((e) => e);

    expect(stale).toBeInstanceOf(LeaseLostError);
    expect(backwards).toBeInstanceOf(Error);
    expect(await store.read('officers')).toMatchObject({ timepoint: 15, publishedAt: '2026-11-25T08:00:02' });
  });

  it('hands a stream over at once on release, and a release by a former holder leaves the new lease alone', async () => {
    const store = checkpointsOf();
    await store.acquire('filings', 'old', 60_000);
    await store.release('filings', 'old');
    const successor = await store.acquire('filings', 'new', 60_000);

    await store.release('filings', 'old');

    expect(successor).toBe(true);
    expect(await store.lease('filings')).toMatchObject({ owner: 'new' });
    expect(await store.acquire('filings', 'third', 60_000)).toBe(false);
  });

  it('records the gaps a 416 leaves, and where reading resumed', async () => {
    const store = checkpointsOf();
    await store.recordGap('insolvency-cases', { from: 101, at: '2026-11-25T08:00:00.000Z' });
    await store.recordGap('insolvency-cases', { from: 101, at: '2026-11-25T08:00:00.000Z', resumedAt: 950 });

    expect(await store.gaps('insolvency-cases')).toEqual([{ from: 101, at: '2026-11-25T08:00:00.000Z', resumedAt: 950 }]);
    expect(await store.gaps('companies')).toEqual([]);
  });
});
