import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { useTestRuntime } from '../support/runtime';

/** The demo activity of a running runtime tells its demo accounts job what it files: figures follow without anyone asking. */
const bureau = useTestRuntime({ REGISTER_STREAM_EVENTS_PER_SECOND: '50' });

/** Company numbers whose profiles hold figures from the runtime's own demo accounts. */
async function withDemoFigures(): Promise<string[]> {
  const doc = createDocumentClient(createDynamoClient(bureau().runtime.env));
  const found: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: bureau().runtime.tables.companies as string,
        ProjectionExpression: 'companyNumber',
        FilterExpression: 'overview.financials.provenance.#source = :local',
        ExpressionAttributeNames: { '#source': 'source' },
        ExpressionAttributeValues: { ':local': 'bureau-local-accounts' },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    found.push(...(page.Items ?? []).map((item) => String(item.companyNumber)));
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}

describe('demo accounts from the demo register activity', () => {
  it('give figures to companies the local streams say filed accounts, while the runtime runs', async () => {
    await expect.poll(withDemoFigures, { timeout: 120_000, interval: 2_000 }).not.toEqual([]);
  }, 180_000);
});
