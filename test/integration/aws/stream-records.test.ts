import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { toLambdaAttributeValue, toLambdaRecord, UnconvertibleAttributeError } from '../../../shared/aws/stream-records';
import { companiesTable } from '../../../shared/storage/tables';
import { matchesStreamFilter, PROFILE_CHANGE_FILTER } from '../../../shared/webhooks/profile-stream-record';
import { createTestTables, type TestTables } from '../../support/dynamo';

const streams = new DynamoDBStreamsClient({
  endpoint: inject('dynamodbEndpoint'),
  region: 'eu-west-2',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

/** Every shape an attribute can take, empty collections and nesting included. */
const everyShape = {
  pk: 'SHAPES#1',
  sk: 'PROFILE',
  text: 'Acme',
  number: 42.5,
  bytes: new Uint8Array([0, 1, 254, 255]),
  flag: false,
  nothing: null,
  strings: new Set(['a', 'b']),
  numbers: new Set([1, 2]),
  byteSet: new Set([new Uint8Array([1]), new Uint8Array([2, 3])]),
  emptyMap: {},
  emptyList: [],
  nested: { emptyMap: {}, emptyList: [], list: [{}, [], [[]], { deeper: {} }], text: 'x' },
};

let tables: TestTables;
let streamArn: string;

/** The stream records DynamoDB Local wrote for the table, as the Streams API returns them. */
async function streamRecords(): Promise<_Record[]> {
  const shards = (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription?.Shards ?? [];
  const records: _Record[] = [];
  for (const shard of shards) {
    let iterator = (
      await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }))
    ).ShardIterator;
    for (let page = 0; iterator && page < 5; page++) {
      const answer = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      records.push(...(answer.Records ?? []));
      iterator = answer.Records?.length ? answer.NextShardIterator : undefined;
    }
  }
  return records;
}

beforeAll(async () => {
  tables = await createTestTables([companiesTable]);
  const table = tables.names.companies as string;
  streamArn = (await tables.client.send(new DescribeTableCommand({ TableName: table }))).Table?.LatestStreamArn as string;
  await tables.doc.send(new PutCommand({ TableName: table, Item: everyShape }));
  await tables.doc.send(new PutCommand({ TableName: table, Item: { ...everyShape, text: 'Acme 2' } }));
  await tables.doc.send(new PutCommand({ TableName: table, Item: { pk: 'META#SEED', sk: 'dataset', changes: {}, unknownValues: {} } }));
});

describe("stream records converted to Lambda's shape", () => {
  it('keeps every attribute shape DynamoDB Local streams, empty maps and lists included', async () => {
    const [inserted, modified] = await streamRecords();
    // DynamoDB Local's own quirk, which is why the conversion must know it: an empty map has no type.
    expect(inserted?.dynamodb?.NewImage?.emptyMap).toEqual({});

    const converted = toLambdaRecord(modified as _Record, streamArn, 'eu-west-2');
    const image = (name: 'NewImage' | 'OldImage') => unmarshall(converted.dynamodb?.[name] as never);
    expect(converted.eventName).toBe('MODIFY');
    expect(image('OldImage')).toEqual({ ...everyShape, bytes: expect.anything(), byteSet: expect.anything() });
    expect(image('NewImage')).toMatchObject({ text: 'Acme 2', emptyMap: {}, emptyList: [], nested: everyShape.nested });
    // Binary attributes travel as base64 text in a Lambda event.
    expect(converted.dynamodb?.NewImage?.bytes).toEqual({ B: Buffer.from(everyShape.bytes).toString('base64') });
    expect(converted.dynamodb?.NewImage?.byteSet?.BS).toEqual(['AQ==', 'AgM=']);
  });

  it('filters a record by its keys as the Streams API returns it, before any image is converted', async () => {
    const records = await streamRecords();
    const marker = records.find((record) => record.dynamodb?.Keys?.pk?.S === 'META#SEED') as _Record;
    const profileRewrite = records.find((record) => record.eventName === 'MODIFY') as _Record;

    expect(matchesStreamFilter(PROFILE_CHANGE_FILTER, marker)).toBe(false);
    expect(matchesStreamFilter(PROFILE_CHANGE_FILTER, profileRewrite)).toBe(true);
    expect(matchesStreamFilter(PROFILE_CHANGE_FILTER, toLambdaRecord(profileRewrite, streamArn, 'eu-west-2'))).toBe(true);
  });

  it('refuses, by name, a type the SDK does not know, instead of inventing a value', () => {
    const unknown = { $unknown: ['VECTOR', [1, 2]] } as never;
    expect(() => toLambdaAttributeValue(unknown)).toThrow(UnconvertibleAttributeError);
    expect(() => toLambdaAttributeValue(unknown)).toThrow(/VECTOR/);
  });
});
