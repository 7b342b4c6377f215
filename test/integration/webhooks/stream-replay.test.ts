import { DynamoDBStreamsClient, GetShardIteratorCommand, TrimmedDataAccessException } from '@aws-sdk/client-dynamodb-streams';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { applyDemoChange } from '../../../demo/company-changes';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { BusinessMetric, metrics } from '../../../shared/observability/metrics';
import type { FanoutTask } from '../../../shared/queues/queues';
import { companiesTable, watchesTable } from '../../../shared/storage/tables';
import { DynamoWatchStore } from '../../../shared/watches/dynamo-watch-store';
import { ChangeDetector } from '../../../shared/webhooks/change-detector';
import { DynamoStreamReader } from '../../../shared/webhooks/dynamo-stream-reader';
import { matchesStreamFilter, PROFILE_CHANGE_FILTER } from '../../../shared/webhooks/profile-stream-record';
import { detectRecord } from '../../../shared/webhooks/record-detection';
import { type StreamBatchInfo, streamBatchOf } from '../../../shared/webhooks/stream-failure';
import { StreamReplay } from '../../../shared/webhooks/stream-replay';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { profileContent } from '../../support/profile-fixture';
import { pointerToLatestRecord } from '../../support/stream-pointer';

const endpoint = inject('dynamodbEndpoint');
const streams = new DynamoDBStreamsClient({
  endpoint,
  region: 'eu-west-2',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
let tables: TestTables;
let store: DynamoCompanyStore;
const queued: FanoutTask[] = [];

const replayer = (client = streams) =>
  new StreamReplay({
    reader: new DynamoStreamReader(client, 'eu-west-2', (record) => matchesStreamFilter(PROFILE_CHANGE_FILTER, record)),
    detect: (record) =>
      detectRecord(
        new ChangeDetector({
          watchers: new DynamoWatchStore(tables.doc, tables.names.watches as string),
          tasks: { send: async (tasks) => void queued.push(...tasks) },
        }),
        record,
      ),
  });

/** What a replay counted, by metric: the alarms read these. */
function countedMetrics(): Map<string, number> {
  const counted = new Map<string, number>();
  vi.spyOn(metrics, 'addMetric').mockImplementation((name, _unit, value) => {
    counted.set(name, (counted.get(name) ?? 0) + value);
    return metrics;
  });
  return counted;
}

/** A pointer to the latest stream record of a company, the change a detector gave up on. */
const pointerTo = async (companyNumber: string): Promise<StreamBatchInfo> =>
  streamBatchOf(
    JSON.stringify(await pointerToLatestRecord(tables.client, endpoint, tables.names.companies as string, `GB#${companyNumber}`)),
  ) as StreamBatchInfo;

async function watchedCompany(companyNumber: string): Promise<void> {
  await store.save(profileContent({ companyNumber, name: `Replayed ${companyNumber} Ltd` }));
  await tables.doc.send(
    new PutCommand({
      TableName: tables.names.watches as string,
      Item: { pk: `GB#${companyNumber}`, sk: 'cli_watcher', createdAt: 'x', lastFetchedAt: 'x' },
    }),
  );
}

beforeAll(async () => {
  tables = await createTestTables([companiesTable, watchesTable]);
  store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
  await watchedCompany('19000001');
  await watchedCompany('19000002');
});

afterEach(() => {
  vi.restoreAllMocks();
  queued.length = 0;
});

describe('replaying a stream batch the detector gave up on', () => {
  it('reads the pointed record back and queues the events the detector would have, under the same keys', async () => {
    const changed = await applyDemoChange(store, 'GB', '19000001', 'risk');
    const batch = await pointerTo('19000001');
    const counted = countedMetrics();

    const first = await replayer().replay(batch);
    const again = await replayer().replay(batch);

    expect(first).toEqual({ records: 1, events: 1, lost: 0 });
    expect(again).toEqual(first);
    expect(queued.map((task) => task.event.idempotencyKey)).toEqual([
      `profile.changed:GB:19000001:riskOfFailure:v${changed.version}`,
      `profile.changed:GB:19000001:riskOfFailure:v${changed.version}`,
    ]);
    expect(Object.fromEntries(counted)).toEqual({ [BusinessMetric.streamRecordsReplayed]: 2, [BusinessMetric.changeEventsDetected]: 2 });
  });

  it('counts the records of a shard the stream no longer holds as lost, never as replayed', async () => {
    const batch = await pointerTo('19000001');
    // A stream drops a shard 24 hours after it closed, and with it the records it held.
    const expired = { ...batch, shardId: 'shardId-00000000000000000000-00000000', batchSize: 3 };
    const counted = countedMetrics();

    expect(await replayer().replay(expired)).toEqual({ records: 0, events: 0, lost: 3 });
    expect(counted.get(BusinessMetric.streamRecordsLost)).toBe(3);
    expect(counted.get(BusinessMetric.streamRecordsReplayed)).toBeUndefined();
    expect(queued).toEqual([]);
  });

  it('replays what is left of a batch whose first records aged out, and counts the rest as lost', async () => {
    const changed = await applyDemoChange(store, 'GB', '19000002', 'risk');
    const last = await pointerTo('19000002');
    const first = await pointerTo('19000001');
    expect(first.shardId).toBe(last.shardId);
    // DynamoDB Local keeps every record: the stream's answers once the batch's first record is older
    // than its 24 hours are played here (that sequence number refused, the oldest record the one after
    // it), and every record is read from the stream itself.
    const trimming = new DynamoDBStreamsClient({ endpoint, region: 'eu-west-2', credentials: { accessKeyId: 'l', secretAccessKey: 'l' } });
    const send = trimming.send.bind(trimming);
    vi.spyOn(trimming, 'send').mockImplementation(((command: unknown) => {
      if (!(command instanceof GetShardIteratorCommand)) return send(command as never);
      if (command.input.ShardIteratorType === 'TRIM_HORIZON') {
        return send(
          new GetShardIteratorCommand({
            ...command.input,
            ShardIteratorType: 'AFTER_SEQUENCE_NUMBER',
            SequenceNumber: first.startSequenceNumber,
          }),
        );
      }
      return Promise.reject(new TrimmedDataAccessException({ message: 'trimmed', $metadata: {} }));
    }) as typeof trimming.send);
    const counted = countedMetrics();

    const result = await replayer(trimming).replay({ ...first, endSequenceNumber: last.endSequenceNumber, batchSize: 2 });
    trimming.destroy();

    expect(result).toEqual({ records: 1, events: 1, lost: 1 });
    expect(queued.map((task) => task.event.idempotencyKey)).toEqual([`profile.changed:GB:19000002:riskOfFailure:v${changed.version}`]);
    expect(counted.get(BusinessMetric.streamRecordsLost)).toBe(1);
  });

  it('recognises only a stream failure pointer', () => {
    const info = { shardId: 's', startSequenceNumber: '200', endSequenceNumber: '100', batchSize: 1, streamArn: 'arn' };
    expect(streamBatchOf('not json')).toBeUndefined();
    expect(streamBatchOf(JSON.stringify({ DDBStreamBatchInfo: info }))).toBeUndefined();
    expect(streamBatchOf(JSON.stringify({ DDBStreamBatchInfo: { ...info, startSequenceNumber: '1e3' } }))).toBeUndefined();
    expect(
      streamBatchOf(JSON.stringify({ DDBStreamBatchInfo: { ...info, startSequenceNumber: '100', endSequenceNumber: '200' } })),
    ).toMatchObject({
      startSequenceNumber: '100',
    });
  });
});
