import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { applyDemoChange } from '../../../demo/company-changes';
import { type FunctionSpec, functions } from '../../../infra/catalogue';
import { type LocalEventSources, startLocalEventSources } from '../../../local/event-sources';
import { createSqsClient, type LocalSqs, startLocalSqs } from '../../../local/fauxqs';
import { localFunctionEnvironment } from '../../../local/function-environment';
import { type LocalFunction, localFunctionFromSpec } from '../../../local/functions';
import type { LoggedCall } from '../../../local/grants';
import { repositoryRoot } from '../../../local/paths';
import { ensureQueue, localQueueSpec } from '../../../local/queues';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { type FanoutTask, fanoutQueue, streamFailuresQueue } from '../../../shared/queues/queues';
import { companiesTable, watchesTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { profileContent } from '../../support/profile-fixture';
import { pointerToLatestRecord } from '../../support/stream-pointer';

/**
 * The stream failure path as the local runtime plays it, on DynamoDB Local's stream and fauxqs: the
 * catalogue's event sources drive a detector whose every read of the watches table is refused, and
 * the stream replayer as the catalogue declares it, each in its own function instance with its grants.
 */
const spec = (id: string) => functions.find((candidate) => candidate.id === id) as FunctionSpec;
const catalogueDetector = spec('changeDetector');
const failingDetector: FunctionSpec = {
  ...catalogueDetector,
  // Its watches grant without Query: the local IAM refuses every attempt, as a broken role would.
  tables: [{ table: watchesTable, access: { actions: [] } }],
  // One retry rather than ten, so the batch reaches the failure queue in a test's time.
  eventSources: catalogueDetector.eventSources?.map((source) => ({ ...source, maxRetryAttempts: 1 })),
};
const replayer = spec('streamReplay');

let tables: TestTables;
let store: DynamoCompanyStore;
let local: LocalSqs;
let sqs: SQSClient;
let queues: Record<string, { queueUrl: string; queueArn: string }>;
let eventSources: LocalEventSources;
let dataDir: string;
const targets = new Map<string, LocalFunction>();

beforeAll(async () => {
  tables = await createTestTables([companiesTable, watchesTable]);
  store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
  local = await startLocalSqs();
  sqs = createSqsClient(local.endpoint);
  queues = {};
  for (const definition of [fanoutQueue, streamFailuresQueue]) {
    const queue = await ensureQueue(sqs, localQueueSpec(definition));
    queues[definition.id] = queue;
    if (queue.dlq) queues[`${definition.id}-dlq`] = queue.dlq;
  }
  dataDir = mkdtempSync(join(tmpdir(), 'bureau-stream-failures-'));
  const base = {
    AWS_REGION: 'eu-west-2',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    DYNAMODB_ENDPOINT: tables.env.DYNAMODB_ENDPOINT as string,
    SQS_ENDPOINT: local.endpoint,
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'CRITICAL',
  };
  for (const fn of [failingDetector, replayer]) {
    const environment = localFunctionEnvironment(fn, {
      base,
      tables: tables.names,
      queues: Object.fromEntries(Object.entries(queues).map(([id, queue]) => [id, queue.queueUrl])),
      // Neither function signs tokens or seals secrets.
      secretsManagerEndpoint: 'unused',
      kmsEndpoint: 'unused',
      settings: {},
      callLog: join(dataDir, 'calls'),
    });
    targets.set(fn.id, localFunctionFromSpec(fn, { root: repositoryRoot, environment }));
  }
  eventSources = await startLocalEventSources({
    specs: [failingDetector, replayer],
    targets,
    dynamo: tables.client,
    dynamodbEndpoint: tables.env.DYNAMODB_ENDPOINT as string,
    sqs,
    tables: tables.names,
    queues,
    streamCheckpointsDir: join(dataDir, 'checkpoints'),
    region: 'eu-west-2',
    log: () => {},
    queueWaitSeconds: 1,
  });
});

afterAll(async () => {
  await eventSources?.stop();
  await Promise.all([...targets.values()].map((fn) => fn.stop()));
  sqs?.destroy();
  await local?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Messages in a queue, visible or in flight: zero only once a consumer has deleted them. */
async function held(queueId: string): Promise<number> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queues[queueId]?.queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible);
}

async function takeFanoutTasks(): Promise<FanoutTask[]> {
  const received = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queues.fanout?.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
  );
  for (const message of received.Messages ?? []) {
    await sqs.send(new DeleteMessageCommand({ QueueUrl: queues.fanout?.queueUrl, ReceiptHandle: message.ReceiptHandle }));
  }
  return (received.Messages ?? []).map((message) => JSON.parse(message.Body as string) as FanoutTask);
}

/** Each distinct call a function made, as `resource action` with `(refused)` where its grants refused it. */
function callsOf(functionId: string): string[] {
  const dir = join(dataDir, 'calls');
  const lines = readdirSync(dir)
    .filter((file) => file.startsWith(`${functionId}.`))
    .flatMap((file) => readFileSync(join(dir, file), 'utf8').trim().split('\n'));
  return lines.map((line) => {
    const call = JSON.parse(line) as LoggedCall;
    return `${call.resource} ${call.action}${call.allowed ? '' : ' (refused)'}`;
  });
}

describe('a change the detector keeps failing on', () => {
  it('is pointed to on the failure queue, read back from the stream by the replayer, and queued for fan-out under its own key', async () => {
    const companyNumber = '19100001';
    await store.save(profileContent({ companyNumber, name: 'Unlucky Ltd' }));
    await tables.doc.send(
      new PutCommand({
        TableName: tables.names.watches as string,
        Item: { pk: `GB#${companyNumber}`, sk: 'cli_watcher', createdAt: 'x', lastFetchedAt: 'x' },
      }),
    );

    const changed = await applyDemoChange(store, 'GB', companyNumber, 'risk');

    const tasks = await vi.waitFor(
      async () => {
        const taken = await takeFanoutTasks();
        if (taken.length === 0) throw new Error('no fan-out task yet');
        return taken;
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(tasks.map((task) => task.event.idempotencyKey)).toEqual([
      `profile.changed:GB:${companyNumber}:riskOfFailure:v${changed.version}`,
    ]);
    expect(callsOf('changeDetector')).toEqual(['watches Query (refused)']);
    expect(callsOf('streamReplay')).toEqual(
      expect.arrayContaining(['companies GetShardIterator', 'companies GetRecords', 'watches Query', 'fanout SendMessage']),
    );
    await vi.waitFor(async () => expect(await held(streamFailuresQueue.id)).toBe(0));
    expect(await held(`${streamFailuresQueue.id}-dlq`)).toBe(0);
  });

  it('whose records the stream no longer holds is taken off the queue, not retried: nothing is left to replay', async () => {
    const companyNumber = '19100002';
    await store.save(profileContent({ companyNumber, name: 'Late Ltd' }));
    const pointer = await pointerToLatestRecord(
      tables.client,
      tables.env.DYNAMODB_ENDPOINT as string,
      tables.names.companies as string,
      `GB#${companyNumber}`,
    );
    const expired = {
      ...pointer,
      DDBStreamBatchInfo: { ...pointer.DDBStreamBatchInfo, shardId: `shardId-00000000000000000000-${randomUUID().slice(0, 8)}` },
    };

    await sqs.send(new SendMessageCommand({ QueueUrl: queues[streamFailuresQueue.id]?.queueUrl, MessageBody: JSON.stringify(expired) }));

    await vi.waitFor(async () => expect(await held(streamFailuresQueue.id)).toBe(0), { timeout: 20_000, interval: 100 });
    expect(await held(`${streamFailuresQueue.id}-dlq`)).toBe(0);
    expect(await takeFanoutTasks()).toEqual([]);
  });
});
