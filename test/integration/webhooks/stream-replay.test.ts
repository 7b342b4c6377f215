import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoCompanyStore } from '../../../infra/operations/companies/dynamo-company-store';
import { applyDemoChange } from '../../../infra/operations/demo/company-changes';
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

const replayer = () =>
  new StreamReplay({
    reader: new DynamoStreamReader(streams, 'eu-west-2'),
    detect: (record) =>
      detectRecord(
        new ChangeDetector({
          watchers: new DynamoWatchStore(tables.doc, tables.names.watches as string),
          tasks: { send: async (tasks) => void queued.push(...tasks) },
        }),
        record,
      ),
    filter: (record) => matchesStreamFilter(PROFILE_CHANGE_FILTER, record),
  });

beforeAll(async () => {
  tables = await createTestTables([companiesTable, watchesTable]);
  store = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
  await store.save(profileContent({ companyNumber: '19000001', name: 'Replayed Ltd' }));
  await tables.doc.send(
    new PutCommand({
      TableName: tables.names.watches as string,
      Item: { pk: 'GB#19000001', sk: 'cli_watcher', createdAt: 'x', lastFetchedAt: 'x' },
    }),
  );
});

describe('replaying a stream batch the detector gave up on', () => {
  it('reads the pointed record back and queues the events the detector would have, under the same keys', async () => {
    const changed = await applyDemoChange(store, 'GB', '19000001', 'risk');
    const pointer = await pointerToLatestRecord(tables.client, endpoint, tables.names.companies as string, 'GB#19000001');
    const batch = streamBatchOf(JSON.stringify(pointer)) as StreamBatchInfo;

    const first = await replayer().replay(batch);
    const again = await replayer().replay(batch);

    expect(first).toEqual({ records: 1, events: 1, lost: false });
    expect(again).toEqual(first);
    expect(queued.map((task) => task.event.idempotencyKey)).toEqual([
      `profile.changed:GB:19000001:riskOfFailure:v${changed.version}`,
      `profile.changed:GB:19000001:riskOfFailure:v${changed.version}`,
    ]);
  });

  it('reports records whose shard the stream no longer holds as lost, never as replayed', async () => {
    const pointer = await pointerToLatestRecord(tables.client, endpoint, tables.names.companies as string, 'GB#19000001');
    // A stream drops a shard 24 hours after it closed, and with it the records it held.
    const expired = { ...pointer.DDBStreamBatchInfo, shardId: 'shardId-00000000000000000000-00000000' };

    expect(await replayer().replay(expired)).toEqual({ records: 0, events: 0, lost: true });
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
