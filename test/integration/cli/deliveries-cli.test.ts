import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Target, TargetFactory } from '../../../cli/context';
import { run } from '../../../cli/main';
import { startWebhookListener } from '../../../cli/webhook-listener';
import { createSqsClient, type LocalSqs, startLocalSqs } from '../../../local/fauxqs';
import { ensureQueue } from '../../../local/queues';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { companiesTable, deliveriesTable, webhooksTable } from '../../../shared/storage/tables';
import { DynamoDeliveryLog } from '../../../shared/webhooks/dynamo-delivery-log';
import { generateSigningSecret } from '../../../shared/webhooks/subscription';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { profileContent } from '../../support/profile-fixture';
import { testSealer } from '../../support/sealer';

const sealer = testSealer();

let tables: TestTables;
let local: LocalSqs;
let sqs: SQSClient;
let queues: { deliveries: string; deliveriesDeadLetter: string; fanout: string; fanoutDeadLetter: string };

beforeAll(async () => {
  tables = await createTestTables([{ ...companiesTable, stream: undefined }, webhooksTable, deliveriesTable]);
  local = await startLocalSqs();
  sqs = createSqsClient(local.endpoint);
  const queue = await ensureQueue(sqs, {
    name: 'deliveries',
    visibilityTimeoutSeconds: 5,
    dlq: { name: 'deliveries-dlq', maxReceiveCount: 3 },
  });
  const fanout = await ensureQueue(sqs, { name: 'fanout', visibilityTimeoutSeconds: 5, dlq: { name: 'fanout-dlq', maxReceiveCount: 3 } });
  queues = {
    deliveries: queue.queueUrl,
    deliveriesDeadLetter: queue.dlq?.queueUrl as string,
    fanout: fanout.queueUrl,
    fanoutDeadLetter: fanout.dlq?.queueUrl as string,
  };
});

afterAll(async () => {
  sqs?.destroy();
  await local?.stop();
});

const target =
  (options: { withQueues: boolean; loopback: boolean }): TargetFactory =>
  async () =>
    ({
      doc: tables.doc,
      tables: {
        clients: 'unused',
        companies: tables.names.companies as string,
        watches: 'unused',
        webhooks: tables.names.webhooks as string,
        deliveries: tables.names.deliveries as string,
        workspace: 'unused',
      },
      ...(options.withQueues ? { queues: { sqs, ...queues } } : {}),
      sealer,
      loopbackReceivers: options.loopback,
      description: 'the test runtime',
      close: async () => {},
    }) satisfies Target;

async function bureau(factory: TargetFactory, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, {
    io: { out: (line) => out.push(line), err: (line) => err.push(line) },
    resolveTarget: factory,
    env: {},
    resolveHost: async () => [],
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

const runtimeTarget = target({ withQueues: true, loopback: true });

describe('bureau webhooks and deliveries', () => {
  it('accepts a loopback receiver locally only, sends it a test event through the queue, and lists attempts', async () => {
    const createLoopback = ['webhooks', 'create', '--client', 'cli-a', '--name', 'L', '--url', 'http://127.0.0.1:4000/webhooks'];
    const refused = await bureau(target({ withQueues: true, loopback: false }), ...createLoopback);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/https/);

    const created = await bureau(runtimeTarget, ...createLoopback, '--json');
    expect(created.code).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    const tested = await bureau(runtimeTarget, 'webhooks', 'test', '--client', 'cli-a', id);
    expect(tested.code).toBe(0);
    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.deliveries, WaitTimeSeconds: 1 }));
    expect(JSON.parse(received.Messages?.[0]?.Body as string)).toMatchObject({
      clientId: 'cli-a',
      subscriptionId: id,
      envelope: { type: 'webhook.test' },
    });

    const listed = await bureau(runtimeTarget, 'webhooks', 'deliveries', '--client', 'cli-a', id);
    expect(listed.stdout).toMatch(/No delivery attempts/);
    const noQueue = await bureau(target({ withQueues: false, loopback: true }), 'webhooks', 'test', '--client', 'cli-a', id);
    expect(noQueue.code).toBe(2);
    expect(noQueue.stderr).toMatch(/npm start/);
  });

  it('recovers the deliveries that ended without success since a time, and says so when there are none', async () => {
    const created = await bureau(
      runtimeTarget,
      ...['webhooks', 'create', '--client', 'cli-r', '--name', 'R', '--url', 'http://127.0.0.1:4001/webhooks', '--json'],
    );
    const { id } = JSON.parse(created.stdout) as { id: string };
    const lastAttemptAt = new Date(Date.now() - 3600_000).toISOString();
    const deliveryId = `msg_${'r'.repeat(27)}`;
    const envelope = {
      type: 'profile.changed' as const,
      apiVersion: 'v1' as const,
      occurredAt: lastAttemptAt,
      idempotencyKey: 'profile.changed:GB:00000009:overview:v3',
      block: 'overview' as const,
      data: { jurisdiction: 'GB' as const, companyNumber: '00000009' },
    };
    await new DynamoDeliveryLog(tables.doc, tables.names.deliveries as string).recordMany([
      {
        delivery: { deliveryId, clientId: 'cli-r', subscriptionId: id, envelope, status: 'failed', attempts: 12, lastAttemptAt },
        attempt: {
          deliveryId,
          eventType: envelope.type,
          idempotencyKey: envelope.idempotencyKey,
          attempt: 12,
          attemptedAt: lastAttemptAt,
          outcome: 'failed',
          httpStatus: 503,
          durationMs: 4,
        },
      },
    ]);

    const none = await bureau(runtimeTarget, 'webhooks', 'recover', '--client', 'cli-r', id, '--since', '30m');
    expect(none.stdout).toMatch(/^No delivery to wh_\S+ ended without success since /);
    const recovered = await bureau(runtimeTarget, 'webhooks', 'recover', '--client', 'cli-r', id, '--since', '2h');
    expect(recovered.code).toBe(0);
    expect(recovered.stdout).toMatch(/^Queued 1 deliveries to wh_\S+ again, each with its original webhook-id/);
    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.deliveries, WaitTimeSeconds: 1 }));
    expect(JSON.parse(received.Messages?.[0]?.Body as string)).toEqual({
      deliveryId,
      clientId: 'cli-r',
      subscriptionId: id,
      envelope,
      recovered: true,
      scheduleFrom: 12,
      dueAt: expect.any(String),
    });
    const bad = await bureau(runtimeTarget, 'webhooks', 'recover', '--client', 'cli-r', id, '--since', 'last week');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/24h/);
    const tooOld = await bureau(runtimeTarget, 'webhooks', 'recover', '--client', 'cli-r', id, '--since', '15d');
    expect(tooOld.code).toBe(1);
    expect(tooOld.stderr).toMatch(/within the last 14 days/);
  });

  it('redrives every parked delivery and fan-out step back to its queue', async () => {
    for (const n of [1, 2, 3]) await sqs.send(new SendMessageCommand({ QueueUrl: queues.deliveriesDeadLetter, MessageBody: `{"n":${n}}` }));
    await sqs.send(new SendMessageCommand({ QueueUrl: queues.fanoutDeadLetter, MessageBody: '{"task":1}' }));
    const result = await bureau(runtimeTarget, 'deliveries', 'redrive');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Moved 3 deliveries back to their queue.\nMoved 1 fan-out steps back to their queue.');
    const depth = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queues.deliveriesDeadLetter, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    expect(depth.Attributes?.ApproximateNumberOfMessages).toBe('0');
  });

  it('changes companies for demos, and says which it could not find', async () => {
    const store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
    await store.save(profileContent({ companyNumber: '15380840', name: 'CPA Gates Ltd', riskLevel: 'Low' }));
    const changed = await bureau(runtimeTarget, 'companies', 'change', '15380840', '--kind', 'risk');
    expect(changed.code).toBe(0);
    expect(changed.stdout).toBe('GB 15380840 CPA Gates Ltd: risk of failure now Moderate (riskOfFailure, version 2)');
    const signal = await bureau(runtimeTarget, 'companies', 'change', '15380840', '--kind', 'new-signal');
    expect(signal.stdout).toMatch(/early signal sig-15380840-\w+ now active \(earlySignals, version 3\)/);
    const missing = await bureau(runtimeTarget, 'companies', 'change', '15380840', '00000001', '--kind', 'trading-status');
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/trading status now liquidation/);
    expect(missing.stderr).toMatch(/No company GB 00000001/);
    expect((await bureau(runtimeTarget, 'companies', 'change', '15380840', '--kind', 'nonsense')).code).toBe(1);
  });
});

describe('the webhook listener', () => {
  it('prints each delivery and whether a known secret verifies it, answering with the status asked for', async () => {
    const secret = generateSigningSecret();
    const lines: string[] = [];
    const listener = await startWebhookListener({
      port: 0,
      status: 503,
      secrets: async () => [{ subscriptionId: 'wh_x', secret }],
      print: (line) => lines.push(line),
    });
    try {
      const body = JSON.stringify({
        type: 'profile.changed',
        block: 'riskOfFailure',
        data: { jurisdiction: 'GB', companyNumber: '15380840' },
      });
      const signed = new Webhook(secret).sign('msg_1', new Date(), body);
      const headers = {
        'content-type': 'application/json',
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      };
      const good = await fetch(`${listener.url}/webhooks`, { method: 'POST', headers: { ...headers, 'webhook-signature': signed }, body });
      const forged = await fetch(`${listener.url}/webhooks`, {
        method: 'POST',
        headers: { ...headers, 'webhook-signature': 'v1,AAAA' },
        body,
      });
      expect(good.status).toBe(503);
      expect(forged.status).toBe(503);
      expect(lines[0]).toMatch(/profile\.changed riskOfFailure GB 15380840 {2}msg_1 {2}signature verified \(wh_x\) {2}→ 503$/);
      expect(lines[1]).toMatch(/signature NOT verified/);
    } finally {
      await listener.stop();
    }
  });
});
