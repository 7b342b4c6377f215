import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqsClient, type LocalSqs, startLocalSqs } from '../../../local/fauxqs';
import { LocalFunction } from '../../../local/functions';
import { LOCAL_WEBHOOK_SECRETS_KEY_ID, LocalDataKeys, type LocalKms, LocalKmsKey, startLocalKms } from '../../../local/kms';
import { repositoryRoot } from '../../../local/paths';
import { ensureQueue } from '../../../local/queues';
import { createSqsPoller, type SqsPoller } from '../../../local/sqs-poller';
import { EnvelopeSealer, type SecretSealer } from '../../../shared/crypto/secret-sealer';
import type { WebhookEnvelope } from '../../../shared/events/envelope';
import type { DeliveryMessage } from '../../../shared/queues/queues';
import { JsonQueue } from '../../../shared/queues/sqs';
import { deliveriesTable, webhooksTable } from '../../../shared/storage/tables';
import { DynamoDeliveryLog } from '../../../shared/webhooks/dynamo-delivery-log';
import { DynamoSubscriptionStore } from '../../../shared/webhooks/dynamo-subscription-store';
import { deliveryIdOf } from '../../../shared/webhooks/events';
import type { Subscription } from '../../../shared/webhooks/subscription';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { subscriptionFixture } from '../../support/subscription-fixture';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver';

let tables: TestTables;
let local: LocalSqs;
let sqs: SQSClient;
let receiver: WebhookReceiver;
let sender: LocalFunction;
let poller: SqsPoller;
let queueUrl: string;
let store: DynamoSubscriptionStore;
let kms: LocalKms;
let sealer: SecretSealer;

async function subscription(path: string): Promise<Subscription> {
  const created = await subscriptionFixture({ clientId: 'client-crash', name: path, url: `${receiver.url}${path}`, sealer });
  await store.create(created);
  return created;
}

const envelope = (n: number): WebhookEnvelope => ({
  type: 'profile.changed',
  apiVersion: 'v1',
  occurredAt: new Date().toISOString(),
  idempotencyKey: `profile.changed:GB:0000000${n}:overview:v2`,
  block: 'overview',
  data: { jurisdiction: 'GB', companyNumber: `0000000${n}` },
});

beforeAll(async () => {
  tables = await createTestTables([webhooksTable, deliveriesTable]);
  local = await startLocalSqs();
  sqs = createSqsClient(local.endpoint);
  receiver = await startWebhookReceiver();
  // The sender opens the secrets through the KMS stand-in, under the key the fixtures seal with.
  const keyFile = join(mkdtempSync(join(tmpdir(), 'bureau-kms-')), 'key');
  kms = await startLocalKms({ keyFile });
  sealer = new EnvelopeSealer(new LocalDataKeys(new LocalKmsKey(keyFile)));
  store = new DynamoSubscriptionStore(tables.doc, tables.names.webhooks as string);
  const queue = await ensureQueue(sqs, { name: `deliveries-${randomUUID().slice(0, 8)}`, visibilityTimeoutSeconds: 2 });
  queueUrl = queue.queueUrl;
  // The real sender handler in an instance of its own, with a one-second timeout: a receiver that
  // holds its answer longer makes the instance die mid-batch, as a Lambda that times out does.
  sender = new LocalFunction({
    functionName: 'bureau-sender',
    entry: 'functions/sender/handler.ts',
    root: repositoryRoot,
    timeoutSeconds: 1,
    environment: {
      AWS_REGION: 'eu-west-2',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      DYNAMODB_ENDPOINT: tables.env.DYNAMODB_ENDPOINT as string,
      SQS_ENDPOINT: local.endpoint,
      KMS_ENDPOINT: kms.endpoint,
      WEBHOOK_SECRETS_KEY_ID: LOCAL_WEBHOOK_SECRETS_KEY_ID,
      WEBHOOKS_TABLE: tables.names.webhooks as string,
      DELIVERIES_TABLE: tables.names.deliveries as string,
      DELIVERIES_QUEUE_URL: queueUrl,
      BUREAU_LOOPBACK_RECEIVERS: 'allow',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
  });
  poller = createSqsPoller({
    sqs,
    queueUrl,
    queueArn: queue.queueArn,
    invoke: (event) => sender.invoke(event),
    concurrency: 1,
    waitTimeSeconds: 1,
  });
}, 60_000);

afterAll(async () => {
  await poller?.stop();
  await sender?.stop();
  await receiver?.stop();
  sqs?.destroy();
  await local?.stop();
  await kms?.stop();
});

describe('a sender that dies mid-batch', () => {
  it('loses nothing: the batch comes back, what was delivered is not sent again, the rest is delivered', async () => {
    const healthy = await subscription('/ok');
    const stuck = await subscription('/stuck');
    receiver.respondWith((delivery) =>
      delivery.path === '/stuck' && receiver.deliveries.filter((seen) => seen.path === '/stuck').length === 1
        ? { status: 200, delayMs: 4000 }
        : { status: 200 },
    );
    const messages: DeliveryMessage[] = [
      ...Array.from({ length: 9 }, (_, n) => ({ envelope: envelope(n), subscription: healthy })),
      { envelope: envelope(9), subscription: stuck },
    ].map(({ envelope: event, subscription: target }) => ({
      deliveryId: deliveryIdOf(event.idempotencyKey, target.id),
      clientId: target.clientId,
      subscriptionId: target.id,
      envelope: event,
    }));
    await new JsonQueue<DeliveryMessage>(sqs, queueUrl).send(messages);
    poller.start();

    const stuckAttempts = await receiver.waitFor((delivery) => delivery.path === '/stuck', 2, 20_000);
    const log = new DynamoDeliveryLog(tables.doc, tables.names.deliveries as string);
    await expect
      .poll(async () => (await log.read(stuck.id, messages[9]?.deliveryId as string))?.status, { timeout: 5000 })
      .toBe('delivered');

    const healthyIds = receiver.deliveries.filter((delivery) => delivery.path === '/ok').map((delivery) => delivery.headers['webhook-id']);
    expect(healthyIds).toHaveLength(9);
    expect(new Set(healthyIds)).toEqual(new Set(messages.slice(0, 9).map((message) => message.deliveryId)));
    expect(stuckAttempts.map((delivery) => delivery.headers['webhook-id'])).toEqual([messages[9]?.deliveryId, messages[9]?.deliveryId]);
  }, 40_000);
});
