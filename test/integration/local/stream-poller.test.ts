import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { createStreamPoller, type StreamPoller, type StreamPollerOptions } from '../../../local/stream-poller';
import { companiesTable } from '../../../shared/storage/tables';
import { DynamoStreamReader } from '../../../shared/webhooks/dynamo-stream-reader';
import { type StreamBatchInfo, type StreamFailurePointer, streamBatchOf } from '../../../shared/webhooks/stream-failure';
import { createTestTables, type TestTables } from '../../support/dynamo';

const streams = new DynamoDBStreamsClient({
  endpoint: inject('dynamodbEndpoint'),
  region: 'eu-west-2',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

const running: StreamPoller[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((poller) => poller.stop()));
});

interface StreamFixture {
  readonly tables: TestTables;
  readonly table: string;
  readonly streamArn: string;
  readonly dir: string;
  put(pk: string, sk?: string, extra?: Record<string, unknown>): Promise<void>;
  poller(invoke: StreamPollerOptions['invoke'], overrides?: Partial<StreamPollerOptions>): StreamPoller;
}

async function streamFixture(): Promise<StreamFixture> {
  const tables = await createTestTables([companiesTable]);
  const table = tables.names.companies as string;
  const described = await tables.client.send(new DescribeTableCommand({ TableName: table }));
  const streamArn = described.Table?.LatestStreamArn as string;
  const dir = mkdtempSync(join(tmpdir(), 'bureau-stream-'));
  return {
    tables,
    table,
    streamArn,
    dir,
    put: async (pk, sk = 'PROFILE', extra = {}) => {
      await tables.doc.send(new PutCommand({ TableName: table, Item: { pk, sk, ...extra } }));
    },
    poller: (invoke, overrides = {}) => {
      const poller = createStreamPoller({
        streams,
        streamArn,
        invoke,
        checkpointFile: join(dir, 'checkpoint.json'),
        sendFailure: async () => {
          throw new Error('no batch fails in this test');
        },
        pollIntervalMs: 20,
        retryDelayMs: 10,
        ...overrides,
      });
      running.push(poller);
      return poller;
    },
  };
}

const pkOf = (record: DynamoDBRecord) => record.dynamodb?.Keys?.pk?.S;

describe('local DynamoDB Streams event source mapping', () => {
  it('delivers records in order as Lambda events with keys, new and old images', async () => {
    const stream = await streamFixture();
    await stream.put('GB#1', 'PROFILE', { name: 'Acme' });
    await stream.put('GB#2');
    await stream.tables.doc.send(
      new UpdateCommand({
        TableName: stream.table,
        Key: { pk: 'GB#1', sk: 'PROFILE' },
        UpdateExpression: 'SET #n = :n',
        ExpressionAttributeNames: { '#n': 'name' },
        ExpressionAttributeValues: { ':n': 'Acme Two' },
      }),
    );
    const received: DynamoDBRecord[] = [];

    stream
      .poller(async (event) => {
        received.push(...event.Records);
      })
      .start();

    await vi.waitFor(() => expect(received).toHaveLength(3));
    expect(received.map((record) => [record.eventName, pkOf(record)])).toEqual([
      ['INSERT', 'GB#1'],
      ['INSERT', 'GB#2'],
      ['MODIFY', 'GB#1'],
    ]);
    const modify = received[2] as DynamoDBRecord;
    expect(modify).toMatchObject({
      eventSource: 'aws:dynamodb',
      eventSourceARN: stream.streamArn,
      awsRegion: 'eu-west-2',
      eventVersion: '1.1',
    });
    expect(modify.dynamodb).toMatchObject({
      Keys: { pk: { S: 'GB#1' }, sk: { S: 'PROFILE' } },
      OldImage: { name: { S: 'Acme' } },
      NewImage: { name: { S: 'Acme Two' } },
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    });
    expect(typeof modify.dynamodb?.ApproximateCreationDateTime).toBe('number');
    expect(typeof modify.dynamodb?.SizeBytes).toBe('number');
    expect(modify.eventID).toEqual(expect.any(String));
  });

  it('retries from the first record named in batchItemFailures', async () => {
    const stream = await streamFixture();
    for (const pk of ['GB#1', 'GB#2', 'GB#3']) await stream.put(pk);
    const batches: string[][] = [];

    stream
      .poller(async (event: DynamoDBStreamEvent) => {
        batches.push(event.Records.map((record) => pkOf(record) as string));
        const second = event.Records.find((record) => pkOf(record) === 'GB#2');
        return batches.length === 1 && second ? { batchItemFailures: [{ itemIdentifier: second.dynamodb?.SequenceNumber }] } : undefined;
      })
      .start();

    await vi.waitFor(() => expect(batches).toHaveLength(2));
    expect(batches).toEqual([
      ['GB#1', 'GB#2', 'GB#3'],
      ['GB#2', 'GB#3'],
    ]);
  });

  it('resumes after a restart from the checkpoint, without replaying handled records', async () => {
    const stream = await streamFixture();
    await stream.put('GB#1');
    await stream.put('GB#2');
    const first: string[] = [];
    const firstPoller = stream.poller(async (event) => {
      first.push(...event.Records.map((record) => pkOf(record) as string));
    });
    firstPoller.start();
    await vi.waitFor(() => expect(first).toHaveLength(2));
    await firstPoller.stop();

    await stream.put('GB#3');
    const second: string[] = [];
    stream
      .poller(async (event) => {
        second.push(...event.Records.map((record) => pkOf(record) as string));
      })
      .start();

    await vi.waitFor(() => expect(second).toEqual(['GB#3']));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(second).toEqual(['GB#3']);
  });

  it('hands over only the records the filter accepts', async () => {
    const stream = await streamFixture();
    await stream.put('GB#1', 'PROFILE');
    await stream.put('W#GB#ac#1', 'acme#GB#1');
    await stream.put('GB#2', 'PROFILE');
    const received: string[] = [];

    stream
      .poller(
        async (event) => {
          received.push(...event.Records.map((record) => `${pkOf(record)}/${record.dynamodb?.Keys?.sk?.S}`));
        },
        { filter: (record) => record.dynamodb?.Keys?.sk?.S === 'PROFILE' },
      )
      .start();

    await vi.waitFor(() => expect(received).toHaveLength(2));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received).toEqual(['GB#1/PROFILE', 'GB#2/PROFILE']);
  });

  it('points to a batch that exhausted its retries on the failure queue, as Lambda does, and moves on; the records read back from the pointer', async () => {
    const stream = await streamFixture();
    await stream.put('GB#poison');
    const attempts: string[] = [];
    const pointers: StreamFailurePointer[] = [];
    const poller = stream.poller(
      async (event) => {
        const keys = event.Records.map((record) => pkOf(record) as string);
        attempts.push(keys.join(','));
        if (keys.includes('GB#poison')) throw new Error('cannot digest');
      },
      { maxRetryAttempts: 2, functionName: 'bureau-changeDetector', sendFailure: async (pointer) => void pointers.push(pointer) },
    );
    poller.start();

    await vi.waitFor(() => expect(pointers).toHaveLength(1));
    await stream.put('GB#after');
    await vi.waitFor(() => expect(attempts.at(-1)).toBe('GB#after'));

    expect(attempts).toEqual(['GB#poison', 'GB#poison', 'GB#poison', 'GB#after']);
    const pointer = pointers[0] as StreamFailurePointer;
    expect(pointer).toMatchObject({
      version: '1.0',
      requestContext: {
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: 3,
        functionArn: 'arn:aws:lambda:eu-west-2:000000000000:function:bureau-changeDetector',
      },
      DDBStreamBatchInfo: { streamArn: stream.streamArn, batchSize: 1 },
    });
    const batch = streamBatchOf(JSON.stringify(pointer));
    expect(batch).toBeDefined();
    const read = await new DynamoStreamReader(streams, 'eu-west-2').read(batch as StreamBatchInfo);
    expect(read.whole).toBe(true);
    expect(read.records.map(pkOf)).toEqual(['GB#poison']);
  });

  it("sets aside a record its own steps cannot handle, as it does the function's errors: retried, bisected, logged at ERROR, counted, passed over", async () => {
    const stream = await streamFixture();
    await stream.put('GB#1');
    await stream.put('GB#poison');
    await stream.put('GB#2');
    const handed: string[] = [];
    const pointers: StreamFailurePointer[] = [];
    const logged: string[] = [];
    const poller = stream.poller(async (event) => void handed.push(...event.Records.map((record) => pkOf(record) as string)), {
      maxRetryAttempts: 1,
      bisectBatchOnFunctionError: true,
      // A step before the function fails on one record, as a conversion or filter error would.
      filter: (record) => {
        if (record.dynamodb?.Keys?.pk?.S === 'GB#poison') throw new Error('cannot read this record');
        return true;
      },
      sendFailure: async (pointer) => void pointers.push(pointer),
      log: (line) => logged.push(line),
    });
    poller.start();

    await vi.waitFor(() => expect(pointers).toHaveLength(1));
    await stream.put('GB#after');
    await vi.waitFor(() => expect(handed).toContain('GB#after'));
    expect(handed).toEqual(['GB#1', 'GB#2', 'GB#after']);
    const { startSequenceNumber } = (pointers[0] as StreamFailurePointer).DDBStreamBatchInfo;
    expect(logged.filter((line) => line.startsWith('ERROR'))).toEqual([expect.stringContaining(startSequenceNumber)]);
    expect(logged.some((line) => line.includes('polling failed'))).toBe(false);
    expect(poller.recordsSetAside()).toBe(1);
  });

  it("names in a pointer only the records the function was handed, as Lambda's filter leaves them, with arrival times to the second", async () => {
    const stream = await streamFixture();
    await stream.put('W#GB#ac#1', 'acme#GB#1');
    await stream.put('GB#1');
    await stream.put('W#GB#ac#2', 'acme#GB#2');
    await stream.put('GB#2');
    await stream.put('W#GB#ac#3', 'acme#GB#3');
    const handed: string[][] = [];
    const pointers: StreamFailurePointer[] = [];
    stream
      .poller(
        async (event) => {
          handed.push(event.Records.map((record) => pkOf(record) as string));
          throw new Error('cannot digest');
        },
        {
          maxRetryAttempts: 0,
          filter: (record) => record.dynamodb?.Keys?.sk?.S === 'PROFILE',
          sendFailure: async (pointer) => void pointers.push(pointer),
        },
      )
      .start();

    await vi.waitFor(() => expect(pointers).toHaveLength(1));
    const info = (pointers[0] as StreamFailurePointer).DDBStreamBatchInfo;
    const read = await new DynamoStreamReader(streams, 'eu-west-2').read(info);
    expect(handed).toEqual([['GB#1', 'GB#2']]);
    expect(info.batchSize).toBe(2);
    expect(read.records.map(pkOf)).toEqual(['GB#1', 'W#GB#ac#2', 'GB#2']);
    expect(info.approximateArrivalOfFirstRecord).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('holds its position at a failed batch until its pointer is sent', async () => {
    const stream = await streamFixture();
    await stream.put('GB#poison');
    let refusals = 2;
    const pointers: StreamFailurePointer[] = [];
    const poller = stream.poller(
      async (event) => {
        if (event.Records.some((record) => pkOf(record) === 'GB#poison')) throw new Error('cannot digest');
      },
      {
        maxRetryAttempts: 0,
        sendFailure: async (pointer) => {
          if (refusals-- > 0) throw new Error('the failure queue is unavailable');
          pointers.push(pointer);
        },
      },
    );
    poller.start();

    await vi.waitFor(() => expect(pointers).toHaveLength(1));
    expect(refusals).toBe(-1);
  });

  it('isolates a poisoned record by bisecting a failing batch when asked to', async () => {
    const stream = await streamFixture();
    for (const pk of ['GB#1', 'GB#2', 'GB#poison', 'GB#4']) await stream.put(pk);
    const delivered: string[] = [];
    const pointed: StreamBatchInfo[] = [];

    stream
      .poller(
        async (event) => {
          const keys = event.Records.map((record) => pkOf(record) as string);
          if (keys.includes('GB#poison')) throw new Error('cannot digest');
          delivered.push(...keys);
        },
        {
          maxRetryAttempts: 0,
          bisectBatchOnFunctionError: true,
          sendFailure: async (pointer) => void pointed.push(pointer.DDBStreamBatchInfo),
        },
      )
      .start();

    await vi.waitFor(() => expect(delivered).toHaveLength(3));
    expect(delivered).toEqual(['GB#1', 'GB#2', 'GB#4']);
    expect(pointed).toHaveLength(1);
    const read = await new DynamoStreamReader(streams, 'eu-west-2').read(pointed[0] as StreamBatchInfo);
    expect(read.records.map(pkOf)).toEqual(['GB#poison']);
  });

  it('lets the batch in flight finish when stopped', async () => {
    const stream = await streamFixture();
    await stream.put('GB#1');
    let started = false;
    let finished = false;
    const poller = stream.poller(async () => {
      started = true;
      await new Promise((resolve) => setTimeout(resolve, 300));
      finished = true;
    });
    poller.start();
    await vi.waitFor(() => expect(started).toBe(true));

    await poller.stop();

    expect(finished).toBe(true);
    expect(existsSync(join(stream.dir, 'checkpoint.json'))).toBe(true);
  });
});
