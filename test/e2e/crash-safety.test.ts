import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localPaths, repositoryRoot } from '../../infra/local/paths';
import { readRuntimeInfo } from '../../infra/local/runtime-file';
import { DynamoCompanyStore } from '../../infra/operations/companies/dynamo-company-store';
import { applyDemoChange } from '../../infra/operations/demo/company-changes';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { deliveryIdOf } from '../../shared/webhooks/events';
import { generateSigningSecret } from '../../shared/webhooks/subscription';
import { profileContent } from '../support/profile-fixture';
import { type ReceivedDelivery, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * The local runtime killed with SIGKILL at each stage of the webhook pipeline, then started again on
 * the same data folder: every (event, subscription) is delivered, always under its one webhook-id.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'bureau-crash-'));
const WATCHERS = 1200;
const COMPANY = '16400001';
let runtime: ChildProcess | undefined;
let receiver: WebhookReceiver;

async function start(): Promise<{ baseUrl: string; dynamodbEndpoint: string; tables: Readonly<Record<string, string>> }> {
  const previous = readRuntimeInfo(dataDir)?.pid;
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
    cwd: repositoryRoot,
    env: {
      ...process.env,
      PORT: '0',
      BUREAU_DATA_DIR: dataDir,
      DELIVERY_RETRY_DELAYS: Array(11).fill('3').join(','),
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  runtime = child;
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 180_000;
  while (!output.includes('Press Ctrl-C to stop.')) {
    if (child.exitCode !== null) throw new Error(`the runtime exited:\n${output}`);
    if (Date.now() > deadline) throw new Error(`the runtime did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const info = readRuntimeInfo(dataDir);
  if (!info || info.pid === previous) throw new Error('no runtime.json from the new runtime');
  return info;
}

async function kill(): Promise<void> {
  const child = runtime;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** Every subscription the test expects to hear from, by its receiver path. */
const expected: string[] = [];
let demoSubscription = '';

const key = (delivery: ReceivedDelivery) => `${delivery.path} ${(JSON.parse(delivery.body) as { idempotencyKey: string }).idempotencyKey}`;

/** Waits until every subscription has the event, then checks each got it under one webhook-id only. */
async function everyoneHas(idempotencyKey: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const accepted = () => new Set(receiver.deliveries.filter((delivery) => delivery.body.includes(`"${idempotencyKey}"`)).map(key));
  while (accepted().size < expected.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
  const missing = expected.filter((path) => !accepted().has(`${path} ${idempotencyKey}`));
  expect(missing.slice(0, 5), `${missing.length} subscriptions never got ${idempotencyKey}`).toEqual([]);
  const ids = new Map<string, Set<string>>();
  for (const delivery of receiver.deliveries.filter((each) => each.body.includes(`"${idempotencyKey}"`))) {
    const seen = ids.get(delivery.path) ?? new Set<string>();
    seen.add(delivery.headers['webhook-id'] as string);
    ids.set(delivery.path, seen);
  }
  expect([...ids.values()].filter((seen) => seen.size > 1)).toEqual([]);
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  const info = await start();
  const doc = createDocumentClient(createDynamoClient({ DYNAMODB_ENDPOINT: info.dynamodbEndpoint, AWS_REGION: 'eu-west-2' }));
  await new DynamoCompanyStore(doc, info.tables.companies as string).save(
    profileContent({ companyNumber: COMPANY, name: 'Crash Test Ltd' }),
  );
  const demo = JSON.parse(readFileSync(localPaths(dataDir).demoClient, 'utf8')) as { clientId: string; clientSecret: string };
  const token = (
    (await (
      await fetch(`${info.baseUrl}/v1/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: demo.clientId, client_secret: demo.clientSecret }),
      })
    ).json()) as { access_token: string }
  ).access_token;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  await (await fetch(`${info.baseUrl}/v1/profile/${COMPANY}?jurisdiction=GB`, { headers })).arrayBuffer();
  const created = (await (
    await fetch(`${info.baseUrl}/v1/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'demo', url: `${receiver.url}/demo` }),
    })
  ).json()) as { id: string };
  demoSubscription = created.id;
  expected.push('/demo');
  // Thousands more watchers, each with an endpoint, written as the store keeps them: fan-out takes several steps.
  const at = new Date().toISOString();
  const secret = generateSigningSecret();
  const items = Array.from({ length: WATCHERS }, (_, n) => {
    const clientId = `cli_crash${String(n).padStart(11, '0')}`;
    const id = `wh_crash${String(n).padStart(11, '0')}`;
    expected.push(`/w/${id}`);
    return [
      { table: info.tables.watches as string, item: { pk: `GB#${COMPANY}`, sk: clientId, createdAt: at, lastFetchedAt: at } },
      {
        table: info.tables.webhooks as string,
        item: { pk: `CLIENT#${clientId}`, sk: 'COUNT', subscriptions: 1, activeIds: new Set([id]) },
      },
      {
        table: info.tables.webhooks as string,
        item: {
          pk: `CLIENT#${clientId}`,
          sk: `WEBHOOK#${id}`,
          id,
          clientId,
          name: 'crash',
          url: `${receiver.url}/w/${id}`,
          status: 'ACTIVE',
          signingSecrets: [{ secret, createdAt: at }],
          createdAt: at,
          updatedAt: at,
        },
      },
    ];
  }).flat();
  for (let start = 0; start < items.length; start += 25) {
    const chunk = items.slice(start, start + 25);
    const byTable: Record<string, Array<{ PutRequest: { Item: Record<string, unknown> } }>> = {};
    for (const { table, item } of chunk) {
      byTable[table] = [...(byTable[table] ?? []), { PutRequest: { Item: item } }];
    }
    await doc.send(new BatchWriteCommand({ RequestItems: byTable }));
  }
}, 420_000);

/** SIGTERM lets the runtime stop its Java process; SIGKILL only if it does not exit soon. */
afterAll(async () => {
  const child = runtime;
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
  await receiver?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

async function change(): Promise<string> {
  const info = readRuntimeInfo(dataDir);
  if (!info) throw new Error('no runtime');
  const doc = createDocumentClient(createDynamoClient({ DYNAMODB_ENDPOINT: info.dynamodbEndpoint, AWS_REGION: 'eu-west-2' }));
  const profile = await applyDemoChange(new DynamoCompanyStore(doc, info.tables.companies as string), 'GB', COMPANY, 'risk');
  return `profile.changed:GB:${COMPANY}:riskOfFailure:v${profile.version}`;
}

describe('the local runtime killed with SIGKILL', () => {
  it('right after a change is written (detector and fan-out pending): every subscription still gets it, once per webhook-id', async () => {
    receiver.respondWith(() => ({ status: 200 }));
    const event = await change();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await kill();
    await start();

    await everyoneHas(event, 120_000);
  }, 300_000);

  it('in the middle of sending to thousands of endpoints: the rest are sent after the restart', async () => {
    receiver.respondWith(() => ({ status: 200, delayMs: 50 }));
    const event = await change();
    await receiver.waitFor((delivery) => delivery.body.includes(`"${event}"`), 300, 60_000);
    await kill();
    await start();

    await everyoneHas(event, 120_000);
  }, 300_000);

  it('with a retry scheduled: it is attempted at its time after the restart, under the same webhook-id', async () => {
    let refused = 0;
    receiver.respondWith((delivery) => (delivery.path === '/demo' && refused++ === 0 ? { status: 503 } : { status: 200 }));
    const event = await change();
    await receiver.waitFor((delivery) => delivery.path === '/demo' && delivery.body.includes(`"${event}"`), 1, 60_000);
    await kill();
    await start();

    const attempts = await receiver.waitFor((delivery) => delivery.path === '/demo' && delivery.body.includes(`"${event}"`), 2, 90_000);
    expect(new Set(attempts.map((delivery) => delivery.headers['webhook-id']))).toEqual(new Set([deliveryIdOf(event, demoSubscription)]));
    await everyoneHas(event, 120_000);
  }, 300_000);

  it('DynamoDB Local killed under the running runtime: started again on its data, the API answers again and nothing is lost', async () => {
    receiver.respondWith(() => ({ status: 200 }));
    const info = readRuntimeInfo(dataDir);
    const port = new URL(info?.dynamodbEndpoint as string).port;
    expect(spawnSync('pkill', ['-9', '-f', `LoopbackDynamoDbLocal.java -port ${port} `]).status).toBe(0);
    const demo = JSON.parse(readFileSync(localPaths(dataDir).demoClient, 'utf8')) as { clientId: string; clientSecret: string };
    const tokenStatus = async () =>
      (
        await fetch(`${info?.baseUrl}/v1/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ grant_type: 'client_credentials', client_id: demo.clientId, client_secret: demo.clientSecret }),
        })
      ).status;
    const deadline = Date.now() + 60_000;
    while ((await tokenStatus()) !== 200 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 500));

    expect(await tokenStatus()).toBe(200);
    await everyoneHas(await change(), 120_000);
  }, 300_000);
});
