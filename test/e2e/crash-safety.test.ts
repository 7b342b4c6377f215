import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DynamoDBDocumentClient, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDemoChange } from '../../demo/company-changes';
import { localPaths, repositoryRoot } from '../../local/paths';
import { type RuntimeInfo, readRuntimeInfo } from '../../local/runtime-file';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { batchGet, batchWrite } from '../../shared/storage/batch';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { deliveryIdOf } from '../../shared/webhooks/events';
import { generateSigningSecret } from '../../shared/webhooks/subscription';
import { profileContent } from '../support/profile-fixture';
import { type ReceivedDelivery, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * The local runtime killed with SIGKILL at each stage of the webhook pipeline, then started again on
 * the same data folder: every subscription gets every event, always under the one webhook-id of
 * that event and subscription (a repeat under it is at-least-once, allowed), and the delivery log
 * ends with each delivered. Then DynamoDB Local killed under the running runtime.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'bureau-crash-'));
/** Waits between attempts: longer than a restart takes, so a retry is due only after one. */
const RETRY_DELAY_SECONDS = 25;
const WAIT_MS = 120_000;

let runtime: ChildProcess | undefined;
let output = '';
let info: RuntimeInfo;
let doc: DynamoDBDocumentClient;
let receiver: WebhookReceiver;

async function start(): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/runtime-process.ts')], {
    cwd: repositoryRoot,
    env: {
      ...process.env,
      BUREAU_DATA_DIR: dataDir,
      DELIVERY_RETRY_DELAYS: Array(11).fill(String(RETRY_DELAY_SECONDS)).join(','),
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  runtime = child;
  await new Promise<void>((resolve, reject) => {
    const onExit = () => reject(new Error(`the runtime exited:\n${output}`));
    child.once('exit', onExit);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready\n')) {
        child.removeListener('exit', onExit);
        resolve();
      }
    });
  });
  info = readRuntimeInfo(dataDir) as RuntimeInfo;
  doc = createDocumentClient(createDynamoClient({ DYNAMODB_ENDPOINT: info.dynamodbEndpoint, AWS_REGION: 'eu-west-2' }));
}

async function kill(): Promise<void> {
  const child = runtime as ChildProcess;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  output = '';
}

async function restart(): Promise<void> {
  await kill();
  await start();
}

const table = (id: string) => info.tables[id] as string;

/** Watchers of one company, seeded straight into the tables; every `subscribedEvery`-th has an endpoint on the receiver. */
async function seedWatchers(company: string, tag: string, watchers: number, subscribedEvery = 1): Promise<string[]> {
  const at = new Date().toISOString();
  const secret = generateSigningSecret();
  const clientId = (n: number) => `cli_${tag}${String(n).padStart(11, '0')}`;
  const subscriptionId = (n: number) => `wh_${tag}${String(n).padStart(11, '0')}`;
  const subscribed = Array.from({ length: watchers }, (_, n) => n).filter((n) => n % subscribedEvery === 0);
  await batchWrite(
    doc,
    table('watches'),
    Array.from({ length: watchers }, (_, n) => ({
      PutRequest: { Item: { pk: `GB#${company}`, sk: clientId(n), createdAt: at, lastFetchedAt: at } },
    })),
  );
  await batchWrite(
    doc,
    table('webhooks'),
    subscribed.flatMap((n) => [
      { PutRequest: { Item: { pk: `CLIENT#${clientId(n)}`, sk: 'COUNT', subscriptions: 1, activeIds: new Set([subscriptionId(n)]) } } },
      {
        PutRequest: {
          Item: {
            pk: `CLIENT#${clientId(n)}`,
            sk: `WEBHOOK#${subscriptionId(n)}`,
            id: subscriptionId(n),
            clientId: clientId(n),
            name: tag,
            url: `${receiver.url}/${tag}/${subscriptionId(n)}`,
            status: 'ACTIVE',
            signingSecrets: [{ secret, createdAt: at }],
            createdAt: at,
            updatedAt: at,
          },
        },
      },
    ]),
  );
  return subscribed.map(subscriptionId);
}

async function newCompany(company: string): Promise<void> {
  await new DynamoCompanyStore(doc, table('companies')).save(profileContent({ companyNumber: company, name: `Crash ${company} Ltd` }));
}

/** A risk change to the company, as a register update writes it; its event's idempotency key. */
async function change(company: string): Promise<string> {
  const profile = await applyDemoChange(new DynamoCompanyStore(doc, table('companies')), 'GB', company, 'risk');
  return `profile.changed:GB:${company}:riskOfFailure:v${profile.version}`;
}

/** The demo client's own endpoint, registered through the API; the seeded ones end with their id. */
const API_PATH = '/api00/demo';
let apiSubscription = '';

const demoCredentialsBody = () => {
  const { clientId, clientSecret } = JSON.parse(readFileSync(localPaths(dataDir).demoClient, 'utf8')) as Record<string, string>;
  return JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
};
const tokenResponse = () =>
  fetch(`${info.baseUrl}/v1/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: demoCredentialsBody() });

/** The demo client reads the company's profile, which makes it a watcher, and registers an endpoint. */
async function watchAndSubscribeThroughApi(company: string): Promise<string> {
  const { access_token } = (await (await tokenResponse()).json()) as { access_token: string };
  const headers = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' };
  expect((await fetch(`${info.baseUrl}/v1/profile/${company}?jurisdiction=GB`, { headers })).status).toBe(200);
  const created = await fetch(`${info.baseUrl}/v1/webhooks`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'demo', url: `${receiver.url}${API_PATH}` }),
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

const subscriptionOf = (delivery: ReceivedDelivery) =>
  delivery.path === API_PATH ? apiSubscription : (delivery.path.split('/').at(-1) as string);
const carries = (event: string) => (delivery: ReceivedDelivery) => delivery.body.includes(`"${event}"`);

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * Every subscription got the event, each only ever under the webhook-id of that event and
 * subscription, and the delivery log ends with every one of them delivered.
 */
async function everyoneGot(event: string, subscriptions: readonly string[]): Promise<void> {
  const received = () => new Set(receiver.deliveries.filter(carries(event)).map(subscriptionOf));
  await eventually(
    async () => received(),
    (got) => subscriptions.every((id) => got.has(id)),
  );
  const got = received();
  expect(subscriptions.filter((id) => !got.has(id)).slice(0, 5), `of ${subscriptions.length}`).toEqual([]);
  const strangers = receiver.deliveries
    .filter(carries(event))
    .filter((delivery) => delivery.headers['webhook-id'] !== deliveryIdOf(event, subscriptionOf(delivery)));
  expect(strangers.map((delivery) => `${delivery.path} ${delivery.headers['webhook-id']}`)).toEqual([]);

  const keys = subscriptions.map((id) => ({ pk: `WEBHOOK#${id}`, sk: `DELIVERY#${deliveryIdOf(event, id)}` }));
  const states = await eventually(
    () => batchGet<{ status: string }>(doc, table('deliveries'), keys),
    (records) => records.length === subscriptions.length && records.every((record) => record.status === 'delivered'),
  );
  expect(states.filter((record) => record.status !== 'delivered')).toEqual([]);
  expect(states).toHaveLength(subscriptions.length);
}

const FEW = '16400001';
const MANY = '16400002';
const SLOW = '16400003';
const RETRIED = '16400004';
const LOADED = '16400005';
const MANY_WATCHERS = 20_000;
let few: string[];
let many: string[];
let slow: string[];
let loaded: string[];

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  receiver.respondWith((delivery) => (delivery.path.startsWith('/slow0/') ? { status: 200, delayMs: 2000 } : { status: 200 }));
  await start();
  for (const company of [FEW, MANY, SLOW, RETRIED, LOADED]) await newCompany(company);
  few = await seedWatchers(FEW, 'few00', 40);
  apiSubscription = await watchAndSubscribeThroughApi(FEW);
  few.push(apiSubscription);
  slow = await seedWatchers(SLOW, 'slow0', 60);
  loaded = await seedWatchers(LOADED, 'load0', 300);
  // Fifty watchers a subscription: the fan-out's pages of 1,000 each queue 20 deliveries.
  many = await seedWatchers(MANY, 'many0', MANY_WATCHERS, 50);
}, 240_000);

/** SIGTERM lets the runtime stop its Java process; SIGKILL only if it does not exit soon. */
afterAll(async () => {
  const child = runtime;
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
  await receiver?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  expect(output).not.toContain('breaks the OpenAPI document');
}, 60_000);

describe('the local runtime killed with SIGKILL', () => {
  it('right after profile changes are written (stream, detector and fan-out queue under way): every subscription gets each', async () => {
    const events = [await change(FEW), await change(FEW), await change(FEW)];
    await restart();

    for (const event of events) await everyoneGot(event, few);
  }, 240_000);

  it('in the middle of a fan-out to 20,000 watchers: every watcher has the event, every subscription gets it', async () => {
    const event = await change(MANY);
    const recorded = async (watcher: number) =>
      (
        await doc.send(
          new QueryCommand({
            TableName: table('events'),
            KeyConditionExpression: 'pk = :pk',
            FilterExpression: 'idempotencyKey = :event',
            ExpressionAttributeValues: { ':pk': `CLIENT#cli_many0${String(watcher).padStart(11, '0')}`, ':event': event },
          }),
        )
      ).Items?.length === 1;
    // The fan-out reads its watchers a page at a time, in order: five pages are done, fifteen remain.
    await eventually(
      () => recorded(MANY_WATCHERS / 4 - 1),
      (done) => done,
    );
    const lastWatcherHadIt = await recorded(MANY_WATCHERS - 1);
    await restart();

    expect(lastWatcherHadIt).toBe(false);
    await everyoneGot(event, many);
    let watchersWithIt = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await doc.send(
        new ScanCommand({
          TableName: table('events'),
          FilterExpression: 'idempotencyKey = :event',
          ExpressionAttributeValues: { ':event': event },
          Select: 'COUNT',
          ExclusiveStartKey: startKey,
        }),
      );
      watchersWithIt += page.Count ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    expect(watchersWithIt).toBe(MANY_WATCHERS);
  }, 240_000);

  it('in the middle of sender batches to a slow receiver: the rest are sent after the restart', async () => {
    const event = await change(SLOW);
    await receiver.waitFor(carries(event), 10, WAIT_MS);
    await restart();

    await everyoneGot(event, slow);
  }, 240_000);

  it('with a retry pending: it is attempted at its nextAttemptAt after the restart, under the same webhook-id', async () => {
    const [subscription] = await seedWatchers(RETRIED, 'retry', 1);
    const id = subscription as string;
    let refused = false;
    receiver.respondWith((delivery) => {
      if (delivery.path.startsWith('/retry/') && !refused) {
        refused = true;
        return { status: 503 };
      }
      return { status: 200 };
    });
    const event = await change(RETRIED);
    const key = { pk: `WEBHOOK#${id}`, sk: `DELIVERY#${deliveryIdOf(event, id)}` };
    const [pending] = await eventually(
      () => batchGet<{ status: string; nextAttemptAt?: string }>(doc, table('deliveries'), [key]),
      ([record]) => record?.nextAttemptAt !== undefined,
    );
    await restart();
    const restartedAt = Date.now();

    const nextAttemptAt = Date.parse(pending?.nextAttemptAt as string);
    const [first, second] = await receiver.waitFor(carries(event), 2, WAIT_MS);
    // Not before its time, which a message merely in flight would not keep; at its time, or at once
    // if the restart took longer than the wait.
    expect(second?.receivedAt).toBeGreaterThanOrEqual(nextAttemptAt - 1000);
    expect(second?.receivedAt).toBeLessThan(Math.max(nextAttemptAt, restartedAt) + 5000);
    expect([first?.headers['webhook-id'], second?.headers['webhook-id']]).toEqual([deliveryIdOf(event, id), deliveryIdOf(event, id)]);
    await everyoneGot(event, [id]);
    const [settled] = await batchGet<{ attempts: number }>(doc, table('deliveries'), [key]);
    expect(settled?.attempts).toBe(2);
  }, 240_000);
});

describe('DynamoDB Local killed with SIGKILL under the running runtime', () => {
  it('is started again on its data: the API answers again within seconds, and nothing being sent is lost', async () => {
    receiver.respondWith(() => ({ status: 200 }));
    const tokenStatus = async () => (await tokenResponse()).status;
    const event = await change(LOADED);
    await receiver.waitFor(carries(event), 50, WAIT_MS);
    const engine = Number(readFileSync(join(localPaths(dataDir).work, 'dynamodb-local.pid'), 'utf8'));

    process.kill(engine, 'SIGKILL');
    const killedAt = Date.now();
    const statuses = await Promise.all(Array.from({ length: 10 }, () => tokenStatus()));
    const answeredAfterMs = Date.now() - killedAt;

    expect(statuses).toEqual(Array(10).fill(200));
    expect(answeredAfterMs).toBeLessThan(20_000);
    expect(output).toMatch(/DynamoDB Local stopped unexpectedly \(signal SIGKILL\); started it again on the same data and port/);
    await everyoneGot(event, loaded);
    await everyoneGot(await change(FEW), few);
  }, 240_000);
});
