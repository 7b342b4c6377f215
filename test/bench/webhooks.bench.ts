import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import { applyDemoChange } from '../../demo/company-changes';
import { createSqsClient, startLocalSqs } from '../../local/fauxqs';
import { ensureQueue } from '../../local/queues';
import { startLocalRuntime } from '../../local/runtime';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { DynamoClientEventStore } from '../../shared/events/dynamo-client-events';
import type { WebhookEnvelope } from '../../shared/events/envelope';
import type { DeliveryMessage, FanoutTask } from '../../shared/queues/queues';
import { JsonQueue } from '../../shared/queues/sqs';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { deliveriesTable, eventsTable, watchesTable, webhooksTable } from '../../shared/storage/tables';
import { DynamoWatchStore } from '../../shared/watches/dynamo-watch-store';
import { DeliveryClient } from '../../shared/webhooks/delivery-client';
import { DynamoDeliveryLog } from '../../shared/webhooks/dynamo-delivery-log';
import { DynamoSubscriptionStore } from '../../shared/webhooks/dynamo-subscription-store';
import { deliveryIdOf } from '../../shared/webhooks/events';
import { FanOut } from '../../shared/webhooks/fan-out';
import { RETRY_DELAYS_SECONDS } from '../../shared/webhooks/retry-schedule';
import { WebhookSender } from '../../shared/webhooks/sender';
import { secretKey, sign, signedHeaders } from '../../shared/webhooks/signature';
import { openSecretsInForce } from '../../shared/webhooks/signing-secrets';
import { generateSigningSecret } from '../../shared/webhooks/subscription';
import { profileContent } from '../support/profile-fixture';
import { fixtureSealer, subscriptionFixture } from '../support/subscription-fixture';
import { type ReceivedDelivery, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import type { BenchContext } from './support/context';
import { summarize } from './support/stats';
import { latencyTable, renderTable } from './support/table';
import { timeInterleaved, timeThroughput } from './support/timing';

export const name = 'Webhooks: signing, sending, change-to-delivery latency, fan-out';

const body = JSON.stringify({
  type: 'profile.changed',
  apiVersion: 'v1',
  occurredAt: '2026-07-01T09:00:00.000Z',
  idempotencyKey: 'profile.changed:GB:15380840:riskOfFailure:v7',
  block: 'riskOfFailure',
  data: { jurisdiction: 'GB', companyNumber: '15380840' },
});

/** The sender as the function builds it, reaching the loopback receiver. */
function benchSender(subscriptions: DynamoSubscriptionStore, log: DynamoDeliveryLog) {
  const client = new DeliveryClient({ allowLoopback: true });
  const sender = new WebhookSender({
    subscriptions,
    log,
    client,
    retry: { delaysSeconds: RETRY_DELAYS_SECONDS },
    clock: () => new Date(),
    sealer: fixtureSealer,
  });
  return { client, sender };
}

async function signing(context: BenchContext): Promise<void> {
  const loop = context.scale === 'full' ? { warmup: 2000, iterations: 50_000 } : { warmup: 1000, iterations: 10_000 };
  const secret = generateSigningSecret();
  const library = new Webhook(secret);
  const key = secretKey(secret);
  const secrets = [{ secret, createdAt: '2026-01-01T00:00:00.000Z' }];
  const at = new Date();
  // What the sender does per delivery: the secret opened under a data key this instance already holds.
  const sealed = await subscriptionFixture({ clientId: 'cli_bench', url: 'https://hooks.example.com/in' });
  await openSecretsInForce(fixtureSealer, sealed, at);
  const [reference, ours, headers, opened] = await timeInterleaved(
    [
      (call: number) => library.sign(`msg_${call}`, at, body),
      (call: number) => sign(key, `msg_${call}`, Math.floor(at.getTime() / 1000), body),
      (call: number) => signedHeaders(secrets, `msg_${call}`, at, body),
      async (call: number) => signedHeaders(await openSecretsInForce(fixtureSealer, sealed, at), `msg_${call}`, at, body),
    ],
    loop,
  );
  context.report(
    latencyTable('Signing one delivery (Standard Webhooks v1, HMAC-SHA256)', [
      { label: 'baseline: standardwebhooks Webhook.sign', stats: reference },
      { label: 'ours: sign (key decoded once)', stats: ours },
      { label: 'ours: signedHeaders (decodes the secret, builds all headers)', stats: headers },
      { label: 'ours: opens the sealed secret (data key cached), then signedHeaders', stats: opened },
    ]),
  );
}

async function sending(context: BenchContext, receiver: WebhookReceiver): Promise<void> {
  const count = context.scale === 'full' ? 5000 : 1500;
  const { doc, names } = await context.createTables([webhooksTable, deliveriesTable]);
  const subscriptions = new DynamoSubscriptionStore(doc, names.webhooks as string);
  const subscription = await subscriptionFixture({ clientId: 'cli_bench', name: 'bench', url: `${receiver.url}/send` });
  await subscriptions.create(subscription);
  const { client, sender } = benchSender(subscriptions, new DynamoDeliveryLog(doc, names.deliveries as string));
  const bare = new Agent({ connections: 16 });
  const envelope = JSON.parse(body) as WebhookEnvelope;
  const message = (n: number): DeliveryMessage => {
    const event = { ...envelope, idempotencyKey: `${envelope.idempotencyKey}:${n}:${randomUUID()}` };
    return {
      deliveryId: deliveryIdOf(event.idempotencyKey, subscription.id),
      clientId: subscription.clientId,
      subscriptionId: subscription.id,
      envelope: event,
    };
  };
  const bareHeaders = signedHeaders(await openSecretsInForce(fixtureSealer, subscription, new Date()), 'msg_bare', new Date(), body);

  // One unit of concurrency is one sender instance handling one SQS batch of 10 at a time, as the
  // Lambda does; the bare baseline POSTs the same 10 at once and waits for all of them.
  const rows: string[][] = [];
  for (const [label, thinkMs] of [
    ['receiver answers at once', 0],
    ['receiver takes 20 ms', 20],
    ['receiver takes 100 ms', 100],
  ] as const) {
    receiver.respondWith(() => ({ status: 200, ...(thinkMs ? { delayMs: thinkMs } : {}) }));
    for (const instances of [1, 4]) {
      const batches = Math.ceil((thinkMs >= 100 ? Math.min(count, 400 * instances) : count) / 10);
      const run = async (job: (batch: number) => Promise<void>) =>
        timeThroughput(batches * 10, async () => {
          let next = 0;
          await Promise.all(
            Array.from({ length: instances }, async () => {
              while (next < batches) await job(next++);
            }),
          );
        });
      const post = await run(async () => {
        await Promise.all(
          Array.from({ length: 10 }, async () => {
            const response = await request(`${receiver.url}/bare`, { method: 'POST', headers: bareHeaders, body, dispatcher: bare });
            await response.body.dump();
          }),
        );
      });
      // The storage floor: the same POSTs, then the one write the sender makes for them (a record and
      // an attempt per delivery), with nothing read, decided or signed.
      const floor = await run(async (batch) => {
        await Promise.all(
          Array.from({ length: 10 }, async () => {
            const response = await request(`${receiver.url}/bare`, { method: 'POST', headers: bareHeaders, body, dispatcher: bare });
            await response.body.dump();
          }),
        );
        const at = new Date().toISOString();
        await doc.send(
          new BatchWriteCommand({
            RequestItems: {
              [names.deliveries as string]: Array.from({ length: 10 }, (_, n) => `msg_floor_${batch}_${n}`).flatMap((deliveryId) => [
                {
                  PutRequest: {
                    Item: {
                      pk: 'WEBHOOK#floor',
                      sk: `DELIVERY#${deliveryId}`,
                      deliveryId,
                      envelope,
                      status: 'delivered',
                      attempts: 1,
                      lastAttemptAt: at,
                    },
                  },
                },
                {
                  PutRequest: {
                    Item: {
                      pk: 'WEBHOOK#floor',
                      sk: `ATTEMPT#${at}#${deliveryId}#000001`,
                      deliveryId,
                      attempt: 1,
                      attemptedAt: at,
                      outcome: 'delivered',
                      httpStatus: 200,
                      durationMs: 1,
                    },
                  },
                },
              ]),
            },
          }),
        );
      });
      const send = await run(async (batch) => {
        const outcomes = await sender.sendBatch(Array.from({ length: 10 }, (_, n) => ({ message: message(batch * 10 + n) })));
        if (outcomes.some((outcome) => outcome.kind !== 'delivered')) throw new Error('a delivery failed');
      });
      rows.push([
        `${label}, ${instances} instance(s)`,
        String(batches * 10),
        Math.round(post.itemsPerSecond).toLocaleString('en-GB'),
        Math.round(floor.itemsPerSecond).toLocaleString('en-GB'),
        Math.round(send.itemsPerSecond).toLocaleString('en-GB'),
        `${(send.itemsPerSecond / post.itemsPerSecond).toFixed(2)}x`,
        `${(send.itemsPerSecond / floor.itemsPerSecond).toFixed(2)}x`,
      ]);
    }
  }
  receiver.respondWith(() => ({ status: 200 }));
  context.report(
    renderTable(
      'Sender throughput, batches of 10 (read states, sign, POST, log every attempt in DynamoDB Local) vs bare signed POSTs to the same receiver, and vs those POSTs followed by the one log write they need',
      ['', 'deliveries', 'bare POST/s', 'POST + log write/s', 'sender/s', 'sender vs bare', 'sender vs POST + write'],
      rows,
    ),
  );
  await client.close();
  await bare.close();
}

async function changeToDelivery(context: BenchContext, receiver: WebhookReceiver): Promise<void> {
  const changes = context.scale === 'full' ? 300 : 100;
  const dataDir = mkdtempSync(join(tmpdir(), 'bureau-bench-runtime-'));
  const runtime = await startLocalRuntime({ port: 0, inMemory: true, dataDir, quiet: true, environment: { POWERTOOLS_LOG_LEVEL: 'WARN' } });
  try {
    const doc = createDocumentClient(createDynamoClient(runtime.env));
    const store = new DynamoCompanyStore(doc, runtime.tables.companies as string);
    await store.save(profileContent({ companyNumber: '15380840', name: 'Latency Bench Ltd' }));
    const tokenResponse = await fetch(`${runtime.baseUrl}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: runtime.demoClient.clientId,
        client_secret: runtime.demoClient.clientSecret,
      }),
    });
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
    const authorization = { authorization: `Bearer ${token}` };
    await fetch(`${runtime.baseUrl}/v1/profile/15380840?jurisdiction=GB`, { headers: authorization });
    await fetch(`${runtime.baseUrl}/v1/webhooks`, {
      method: 'POST',
      headers: { ...authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'latency', url: `${receiver.url}/latency` }),
    });
    const arrived = (version: number) => (delivery: ReceivedDelivery) =>
      delivery.path === '/latency' && delivery.body.includes(`:v${version}"`);
    const latencies: number[] = [];
    const writes: number[] = [];
    for (let change = 0; change < changes + 5; change++) {
      // Wall-clock time on both sides: the receiver stamps arrivals with Date.now().
      const started = Date.now();
      const profile = await applyDemoChange(store, 'GB', '15380840', 'risk');
      const written = Date.now();
      const [delivery] = await receiver.waitFor(arrived(profile.version), 1, 30_000);
      // The first changes start each function's instances: Lambda's cold starts, not the steady state.
      if (change < 5) continue;
      writes.push(written - started);
      latencies.push((delivery as ReceivedDelivery).receivedAt - started);
    }
    context.report(
      latencyTable('Change to delivery through the local pipeline (stream poller, detector, fan-out, sender), one change at a time', [
        { label: 'baseline: the profile write itself', stats: summarize(writes) },
        { label: 'write → webhook received', stats: summarize(latencies) },
      ]),
    );
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function fanOutAtScale(context: BenchContext, receiver: WebhookReceiver): Promise<void> {
  const watchers = context.scale === 'full' ? 100_000 : 20_000;
  const { doc, names } = await context.createTables([watchesTable, webhooksTable, deliveriesTable, eventsTable]);
  const sqsServer = await startLocalSqs();
  const sqs: SQSClient = createSqsClient(sqsServer.endpoint);
  try {
    const suffix = randomUUID().slice(0, 8);
    const taskQueue = (await ensureQueue(sqs, { name: `fanout-${suffix}`, visibilityTimeoutSeconds: 60 })).queueUrl;
    const deliveryQueue = (await ensureQueue(sqs, { name: `deliveries-${suffix}`, visibilityTimeoutSeconds: 60 })).queueUrl;
    context.log(`writing ${watchers.toLocaleString('en-GB')} watchers, each with one subscription…`);
    const at = new Date().toISOString();
    const secret = generateSigningSecret();
    const writes: Array<() => Promise<unknown>> = [];
    for (let start = 0; start < watchers; start += 8) {
      const items = Array.from({ length: Math.min(8, watchers - start) }, (_, offset) => {
        const clientId = `cli_${String(start + offset).padStart(16, '0')}`;
        const id = `wh_${String(start + offset).padStart(16, '0')}`;
        return [
          { table: names.watches as string, item: { pk: 'GB#15380840', sk: clientId, createdAt: at, lastFetchedAt: at } },
          { table: names.webhooks as string, item: { pk: `CLIENT#${clientId}`, sk: 'COUNT', subscriptions: 1, activeIds: new Set([id]) } },
          {
            table: names.webhooks as string,
            item: {
              pk: `CLIENT#${clientId}`,
              sk: `WEBHOOK#${id}`,
              id,
              clientId,
              name: 'fan-out',
              url: `${receiver.url}/fanout`,
              status: 'ACTIVE',
              signingSecrets: [{ secret, createdAt: at }],
              createdAt: at,
              updatedAt: at,
            },
          },
        ];
      }).flat();
      writes.push(() =>
        doc.send(
          new BatchWriteCommand({
            RequestItems: Object.fromEntries(
              [names.watches as string, names.webhooks as string].map((table) => [
                table,
                items.filter((entry) => entry.table === table).map((entry) => ({ PutRequest: { Item: entry.item } })),
              ]),
            ),
          }),
        ),
      );
    }
    let nextWrite = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (nextWrite < writes.length) await (writes[nextWrite++] as () => Promise<unknown>)();
      }),
    );
    await doc.send(
      new PutCommand({
        TableName: names.watches as string,
        Item: { pk: 'GB#00000000', sk: 'cli_other', createdAt: at, lastFetchedAt: at },
      }),
    );

    const subscriptions = new DynamoSubscriptionStore(doc, names.webhooks as string);
    const fanOut = new FanOut({
      watchers: new DynamoWatchStore(doc, names.watches as string),
      subscriptions,
      deliveries: new JsonQueue<DeliveryMessage>(sqs, deliveryQueue),
      tasks: new JsonQueue<FanoutTask>(sqs, taskQueue),
      events: new DynamoClientEventStore(doc, names.events as string),
    });
    const { client, sender } = benchSender(subscriptions, new DynamoDeliveryLog(doc, names.deliveries as string));
    const event = { ...(JSON.parse(body) as WebhookEnvelope), idempotencyKey: `profile.changed:GB:15380840:riskOfFailure:v${Date.now()}` };
    receiver.respondWith(() => ({ status: 200 }));
    const before = receiver.deliveries.length;

    let steps = 0;
    let queued = 0;
    let fannedOut = 0;
    const drainTasks = async () => {
      let result = await fanOut.run({ event });
      steps++;
      queued += result.deliveries;
      while (result.continued) {
        const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: taskQueue, MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }));
        for (const task of received.Messages ?? []) {
          result = await fanOut.run(JSON.parse(task.Body as string) as FanoutTask);
          steps++;
          queued += result.deliveries;
          await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: taskQueue, Entries: [{ Id: '0', ReceiptHandle: task.ReceiptHandle }] }));
        }
      }
      fannedOut = performance.now();
    };
    let done = false;
    const senders = async () => {
      for (let idle = 0; !done || idle < 2; ) {
        const received = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: deliveryQueue, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
        );
        const messages = received.Messages ?? [];
        if (messages.length === 0) {
          idle++;
          continue;
        }
        idle = 0;
        await sender.sendBatch(messages.map((message) => ({ message: JSON.parse(message.Body as string) as DeliveryMessage })));
        await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: deliveryQueue,
            Entries: messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
          }),
        );
      }
    };
    context.log('fanning out one change and delivering it (10 sender loops of 10)…');
    const started = performance.now();
    const sending = Array.from({ length: 10 }, senders);
    await drainTasks();
    done = true;
    await Promise.all(sending);
    const finished = performance.now();
    const received = receiver.deliveries.slice(before).filter((delivery) => delivery.path === '/fanout');
    const unique = new Set(received.map((delivery) => delivery.headers['webhook-id'])).size;
    context.report(
      renderTable(
        `One change fanned out to ${watchers.toLocaleString('en-GB')} watchers and delivered`,
        ['', 'value'],
        [
          ['fan-out steps (1,000 watchers each)', String(steps)],
          ['delivery messages queued', queued.toLocaleString('en-GB')],
          ['fan-out done after', `${((fannedOut - started) / 1000).toFixed(1)} s`],
          ['every delivery received after', `${((finished - started) / 1000).toFixed(1)} s`],
          ['deliveries received', received.length.toLocaleString('en-GB')],
          ['distinct webhook-ids received', unique.toLocaleString('en-GB')],
          ['lost (watchers − distinct)', String(watchers - unique)],
          ['duplicates (received − distinct)', String(received.length - unique)],
        ],
      ),
    );
    await client.close();
  } finally {
    sqs.destroy();
    await sqsServer.stop();
  }
}

export async function run(context: BenchContext): Promise<void> {
  const receiver = await startWebhookReceiver();
  try {
    await signing(context);
    await sending(context, receiver);
    await changeToDelivery(context, receiver);
    await fanOutAtScale(context, receiver);
  } finally {
    await receiver.stop();
  }
}
