import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../cli/main';
import { resolveLocalTarget } from '../../cli/target';
import { type LocalRuntime, startLocalRuntime } from '../../local/runtime';
import { demoDataset } from '../../local/seed';
import { requestToken } from '../../packages/client/src/index';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { startWebhookReceiver, verifiedEvent, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * A newcomer's first minutes: `npm start` on a fresh data folder, the demo load left to finish (its
 * bookkeeping item written last), then the README's walk-through. A smaller cut of the same GB sample
 * keeps the load to seconds; everything else is what `npm start` runs.
 */
const GB_ROWS = 300;
const IE_COUNT = 100;

let dataDir: string;
let runtime: LocalRuntime;
let receiver: WebhookReceiver;
const lines: string[] = [];

async function firstLinesOf(file: string, count: number): Promise<string> {
  const kept: string[] = [];
  const reader = createInterface({ input: createReadStream(file) });
  for await (const line of reader) {
    kept.push(line);
    if (kept.length > count) break;
  }
  reader.close();
  return `${kept.join('\n')}\n`;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'bureau-first-start-'));
  const gbFile = join(dataDir, 'gb-sample.csv');
  writeFileSync(gbFile, await firstLinesOf(demoDataset.gbFile, GB_ROWS));
  runtime = await startLocalRuntime({
    port: 0,
    // A fresh data folder (keys, demo client, checkpoints); the database in memory, as the other
    // end-to-end files keep it, since what is tested does not depend on DynamoDB Local's disk.
    dataDir: join(dataDir, 'data'),
    inMemory: true,
    seedDemoData: true,
    demoDataset: { id: `first-start-test+${demoDataset.id}`, gbFile, gbRows: GB_ROWS, ieCount: IE_COUNT },
    queueWaitSeconds: 1,
    environment: { POWERTOOLS_LOG_LEVEL: 'WARN' },
    log: (line) => lines.push(line),
    logError: (message, error) => lines.push(`${message}: ${String(error)}`),
  });
  receiver = await startWebhookReceiver();
}, 120_000);

afterAll(async () => {
  await receiver?.stop();
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function cli(argv: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const code = await run(argv, {
    io: { out: (line) => out.push(line), err: (line) => out.push(line) },
    resolveTarget: () => resolveLocalTarget(join(dataDir, 'data')),
    env: {},
  });
  return { code, out: out.join('\n') };
}

describe('a fresh start', () => {
  it('finishes the demo load, then delivers the README walk-through webhook, signed', async () => {
    expect(await runtime.seeding).toBe('loaded');
    const { clientId, clientSecret } = runtime.demoClient;
    const { accessToken } = await requestToken({ baseUrl: runtime.baseUrl, clientId, clientSecret, maxRetries: 0 });
    const api = (path: string, body?: unknown) =>
      fetch(`${runtime.baseUrl}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${accessToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });

    const profile = await api('/v1/profile/15380840?jurisdiction=GB');
    expect(profile.status).toBe(200);
    expect(((await profile.json()) as { name: string }).name).toBe('CPA GATES LTD');
    const created = await api('/v1/webhooks', { name: 'Local', url: `${receiver.url}/webhooks` });
    expect(created.status).toBe(201);
    const { signingSecret } = (await created.json()) as { signingSecret: string };
    const changed = await cli(['companies', 'change', '15380840', '--kind', 'risk']);
    expect(changed.code, changed.out).toBe(0);

    const [delivery] = await receiver.waitFor(
      (candidate) => candidate.body.includes('"block":"riskOfFailure"') && candidate.body.includes('15380840'),
      1,
      30_000,
    );
    const event = await verifiedEvent(delivery as NonNullable<typeof delivery>, signingSecret);
    expect(event).toMatchObject({ type: 'profile.changed', block: 'riskOfFailure', data: { companyNumber: '15380840' } });
    expect(lines.filter((line) => line.includes('polling failed'))).toEqual([]);
    expect(lines.filter((line) => line.includes('ERROR stream'))).toEqual([]);
  }, 180_000);

  it('goes on delivering changes written after items whose attributes are empty maps and lists', async () => {
    const client = createDocumentClient(createDynamoClient({ DYNAMODB_ENDPOINT: runtime.dynamodbEndpoint, AWS_REGION: 'eu-west-2' }));
    const companies = runtime.tables.companies as string;
    // A bookkeeping item and a profile rewrite, each holding the shapes DynamoDB Local streams oddly.
    await client.send(
      new PutCommand({ TableName: companies, Item: { pk: 'META#TEST', sk: 'x', counts: {}, items: [], nested: { a: {} } } }),
    );
    await client.send(
      new UpdateCommand({
        TableName: companies,
        Key: { pk: 'GB#15380840', sk: 'PROFILE' },
        UpdateExpression: 'SET #extra = :empty',
        ExpressionAttributeNames: { '#extra': 'emptyForTest' },
        ExpressionAttributeValues: { ':empty': {} },
      }),
    );
    const before = receiver.deliveries.length;
    const changed = await cli(['companies', 'change', '15380840', '--kind', 'trading-status']);
    expect(changed.code, changed.out).toBe(0);

    await receiver.waitFor(
      (candidate) => receiver.deliveries.indexOf(candidate) >= before && candidate.body.includes('"block":"tradingStatus"'),
      1,
      30_000,
    );
    expect(lines.filter((line) => line.includes('polling failed'))).toEqual([]);
    client.destroy();
  }, 60_000);
});
