import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { batchGet, batchWrite, UnprocessedItemsError } from '../../../shared/storage/batch';

interface Sent {
  readonly command: string;
  readonly count: number;
}

/**
 * A document client that leaves the first `stubborn` requests' items unprocessed, or all of them for
 * ever, as DynamoDB does when a partition is throttled.
 */
function fakeDoc(options: { stubborn?: number } = {}) {
  const sent: Sent[] = [];
  let refusals = options.stubborn ?? 0;
  const doc = {
    send: async (command: { constructor: { name: string }; input: { RequestItems: Record<string, Loose> } }) => {
      const [table, request] = Object.entries(command.input.RequestItems)[0] as [string, Loose];
      const refuse = refusals === Number.POSITIVE_INFINITY || refusals-- > 0;
      if (command.constructor.name === 'BatchGetCommand') {
        sent.push({ command: 'get', count: request.Keys.length });
        return refuse
          ? { Responses: { [table]: [] }, UnprocessedKeys: { [table]: { Keys: request.Keys } } }
          : { Responses: { [table]: request.Keys.map((key: Loose) => ({ ...key, found: true })) } };
      }
      sent.push({ command: 'write', count: request.length });
      return refuse ? { UnprocessedItems: { [table]: request } } : {};
    },
  };
  return { doc: doc as unknown as DynamoDBDocumentClient, sent };
}

// biome-ignore lint/suspicious/noExplicitAny: the fake reads commands loosely
type Loose = any;
const instantly = { random: () => 0, sleep: async () => {} };
const keys = (n: number) => Array.from({ length: n }, (_, i) => ({ pk: `K#${i}`, sk: 'S' }));

describe('batch reads and writes', () => {
  it('read in requests of 100 and write in requests of 25', async () => {
    const { doc, sent } = fakeDoc();

    const found = await batchGet(doc, 'table', keys(250), undefined, instantly);
    await batchWrite(
      doc,
      'table',
      keys(60).map((Item) => ({ PutRequest: { Item } })),
      instantly,
    );

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

    await batchWrite(
      doc,
      'table',
      keys(5).map((Item) => ({ PutRequest: { Item } })),
      instantly,
    );

    expect(sent).toHaveLength(4);
  });

  it('stop after a bounded number of rounds, naming the table and the items left', async () => {
    const { doc, sent } = fakeDoc({ stubborn: Number.POSITIVE_INFINITY });

    const failed = batchWrite(
      doc,
      'companies',
      keys(3).map((Item) => ({ PutRequest: { Item } })),
      instantly,
    );

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

  it('wait between rounds a jittered share of an exponential cap of at most a second', async () => {
    const waits: number[] = [];
    const { doc } = fakeDoc({ stubborn: 7 });

    await batchWrite(
      doc,
      'table',
      keys(1).map((Item) => ({ PutRequest: { Item } })),
      {
        random: () => 0.5,
        sleep: async (ms) => void waits.push(ms),
      },
    );

    expect(waits).toEqual([25, 50, 100, 200, 400, 500, 500]);
  });
});
