import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { batchGet, batchWrite, UnprocessedItemsError } from '../../../shared/storage/batch';

interface Sent {
  readonly command: string;
  readonly count: number;
}

/**
 * A document client that leaves the items of its first `stubborn` requests unprocessed, or of all
 * of them for ever, as DynamoDB does when a partition is throttled; `keepFirst` leaves only the
 * first items of each refused request unprocessed, so only part of a request comes back.
 */
function fakeDoc(options: { stubborn?: number; keepFirst?: number } = {}) {
  const sent: Sent[] = [];
  let refusals = options.stubborn ?? 0;
  const doc = {
    send: async (command: { constructor: { name: string }; input: { RequestItems: Record<string, Loose> } }) => {
      const [table, request] = Object.entries(command.input.RequestItems)[0] as [string, Loose];
      const refuse = refusals === Number.POSITIVE_INFINITY || refusals-- > 0;
      if (command.constructor.name === 'BatchGetCommand') {
        const left: Loose[] = refuse ? request.Keys.slice(0, options.keepFirst ?? request.Keys.length) : [];
        sent.push({ command: 'get', count: request.Keys.length });
        return {
          Responses: { [table]: request.Keys.slice(left.length).map((key: Loose) => ({ ...key, found: true })) },
          ...(left.length > 0 ? { UnprocessedKeys: { [table]: { Keys: left } } } : {}),
        };
      }
      const left: Loose[] = refuse ? request.slice(0, options.keepFirst ?? request.length) : [];
      sent.push({ command: 'write', count: request.length });
      return left.length > 0 ? { UnprocessedItems: { [table]: left } } : {};
    },
  };
  return { doc: doc as unknown as DynamoDBDocumentClient, sent };
}

// biome-ignore lint/suspicious/noExplicitAny: the fake reads commands loosely
type Loose = any;
const instantly = { random: () => 0, sleep: async () => {} };
const keys = (n: number) => Array.from({ length: n }, (_, i) => ({ pk: `K#${i}`, sk: 'S' }));
const puts = (n: number) => keys(n).map((Item) => ({ PutRequest: { Item } }));

describe('batch reads and writes', () => {
  it('read in requests of 100 and write in requests of 25', async () => {
    const { doc, sent } = fakeDoc();

    const found = await batchGet(doc, 'table', keys(250), undefined, instantly);
    await batchWrite(doc, 'table', puts(60), instantly);

    expect(found).toHaveLength(250);
    expect(sent.filter((s) => s.command === 'get').map((s) => s.count)).toEqual([100, 100, 50]);
    expect(
      sent
        .filter((s) => s.command === 'write')
        .map((s) => s.count)
        .sort(),
    ).toEqual([10, 25, 25]);
  });

  it('send again what DynamoDB left unprocessed, until it is processed', async () => {
    const { doc, sent } = fakeDoc({ stubborn: 3 });

    await batchWrite(doc, 'table', puts(5), instantly);

    expect(sent).toEqual([...Array(4)].map(() => ({ command: 'write', count: 5 })));
  });

  it('send again only the part of a request left unprocessed, and return every item read', async () => {
    const writes = fakeDoc({ stubborn: 2, keepFirst: 2 });
    const reads = fakeDoc({ stubborn: 2, keepFirst: 3 });

    await batchWrite(writes.doc, 'table', puts(5), instantly);
    const found = await batchGet<{ pk: string }>(reads.doc, 'table', keys(5), undefined, instantly);

    expect(writes.sent.map((s) => s.count)).toEqual([5, 2, 2]);
    expect(reads.sent.map((s) => s.count)).toEqual([5, 3, 3]);
    expect(found.map((item) => item.pk).sort()).toEqual(keys(5).map((key) => key.pk));
  });

  it('stop after a bounded number of rounds, naming the table and the items left', async () => {
    const { doc, sent } = fakeDoc({ stubborn: Number.POSITIVE_INFINITY });

    const failed = batchWrite(doc, 'companies', puts(3), instantly);

    await expect(failed).rejects.toThrow(UnprocessedItemsError);
    await expect(failed).rejects.toThrow(
      /BatchWriteItem on companies left 3 item\(s\) unprocessed after 8 rounds: \{"pk":"K#0","sk":"S"\}/,
    );
    expect(sent).toHaveLength(8);
    await expect(
      batchGet(fakeDoc({ stubborn: Number.POSITIVE_INFINITY }).doc, 'watches', keys(2), undefined, instantly),
    ).rejects.toMatchObject({
      operation: 'BatchGetItem',
      tableName: 'watches',
      keys: keys(2),
    });
  });

  it('name the items every request left, once all of them have had their rounds', async () => {
    const { doc, sent } = fakeDoc({ stubborn: Number.POSITIVE_INFINITY, keepFirst: 1 });

    const failed = batchWrite(doc, 'companies', puts(60), instantly);

    // One item left in each of the three requests of 25, 25 and 10.
    await expect(failed).rejects.toMatchObject({ keys: [keys(60)[0], keys(60)[25], keys(60)[50]] });
    expect(sent).toHaveLength(3 * 8);
  });

  it('wait between rounds a jittered share of an exponential cap of at most a second', async () => {
    const waits: number[] = [];
    const { doc } = fakeDoc({ stubborn: 7 });

    await batchWrite(doc, 'table', puts(1), {
      random: () => 0.5,
      sleep: async (ms) => void waits.push(ms),
    });

    expect(waits).toEqual([25, 50, 100, 200, 400, 500, 500]);
  });

  it('draw each wait from zero up to its cap', async () => {
    const caps = [50, 100, 200, 400, 800, 1000, 1000];
    const waits: number[][] = [];
    for (let run = 0; run < 50; run++) {
      const these: number[] = [];
      await batchWrite(fakeDoc({ stubborn: 7 }).doc, 'table', puts(1), { sleep: async (ms) => void these.push(ms) });
      waits.push(these);
    }

    for (const these of waits) {
      expect(these).toHaveLength(caps.length);
      these.forEach((wait, round) => {
        expect(wait).toBeGreaterThanOrEqual(0);
        expect(wait).toBeLessThan(caps[round] as number);
      });
    }
    // Jittered, not fixed: fifty runs do not all wait the same.
    expect(new Set(waits.map((these) => these[0])).size).toBeGreaterThan(1);
  });
});
