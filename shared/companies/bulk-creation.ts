import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { BATCH_WRITE_LIMIT, batchWrite } from '../storage/batch';
import type { SaveOutcome } from './company-store';
import type { ProfileContent } from './profile';

/** BatchWriteItem requests of new companies in flight per call. */
const CREATE_REQUESTS_IN_FLIGHT = 4;

export interface BulkCreation {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  /** A new company's items: its profile and its index items, written together. */
  readonly itemsOf: (content: ProfileContent, position: number) => object[];
  /** A company whose items do not fit one request, written on its own. */
  readonly writeAlone: (content: ProfileContent, position: number) => Promise<SaveOutcome>;
}

/**
 * New companies in BatchWriteItem requests of up to 25 items, a company's items never split across
 * two requests; a company with more items than one request carries (a name of more than 23 words)
 * goes through its own transaction. A request that fails rejects the companies it carried, and only
 * those. Returns the positions created by the batched requests.
 */
export async function createNewProfiles(
  bulk: BulkCreation,
  contents: readonly ProfileContent[],
  settle: (position: number, result: PromiseSettledResult<SaveOutcome>) => void,
): Promise<number[]> {
  const requests: Array<{ positions: number[]; items: object[] }> = [];
  const oversize: number[] = [];
  const created: number[] = [];
  for (const [position, content] of contents.entries()) {
    const items = bulk.itemsOf(content, position);
    if (items.length > BATCH_WRITE_LIMIT) {
      oversize.push(position);
      continue;
    }
    let last = requests.at(-1);
    if (!last || last.items.length + items.length > BATCH_WRITE_LIMIT) {
      last = { positions: [], items: [] };
      requests.push(last);
    }
    last.positions.push(position);
    last.items.push(...items);
  }
  const limit = pLimit(CREATE_REQUESTS_IN_FLIGHT);
  const transactions = oversize.map((position) =>
    limit(async () => {
      try {
        settle(position, { status: 'fulfilled', value: await bulk.writeAlone(contents[position] as ProfileContent, position) });
      } catch (reason) {
        settle(position, { status: 'rejected', reason });
      }
    }),
  );
  const batches = requests.map((request) =>
    limit(async () => {
      try {
        await batchWrite(
          bulk.doc,
          bulk.tableName,
          request.items.map((Item) => ({ PutRequest: { Item } })),
        );
        for (const position of request.positions) settle(position, { status: 'fulfilled', value: 'created' });
        created.push(...request.positions);
      } catch (reason) {
        for (const position of request.positions) settle(position, { status: 'rejected', reason });
      }
    }),
  );
  await Promise.all([...transactions, ...batches]);
  return created;
}
