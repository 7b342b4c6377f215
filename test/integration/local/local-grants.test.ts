import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functions } from '../../../infra/catalogue';
import { localGrants } from '../../../local/function-environment';
import { CALL_LOG_VARIABLE, LOCAL_GRANTS_VARIABLE, type LocalGrants, type LoggedCall, withLocalGrants } from '../../../local/grants';
import { createSqsClient } from '../../../shared/queues/sqs';
import { createDocumentClient, createDynamoClient } from '../../../shared/storage/dynamo';
import { createTestTables, type TestTables } from '../../support/dynamo';

let tables: TestTables;
let callLog: string;

beforeAll(async () => {
  tables = await createTestTables();
  callLog = mkdtempSync(join(tmpdir(), 'bureau-call-log-'));
});

afterAll(() => {
  rmSync(callLog, { recursive: true, force: true });
});

const QUEUE_URL = 'http://sqs.eu-west-2.localhost:9/000000000000/deliveries';
const spec = (id: string) => functions.find((candidate) => candidate.id === id) ?? expect.unreachable(`no ${id} in the catalogue`);

/** A document client as the function's own would be built under the local runtime. */
function clientOf(grants: LocalGrants, options: { log?: boolean } = {}) {
  const env = { ...tables.env, [LOCAL_GRANTS_VARIABLE]: JSON.stringify(grants), ...(options.log ? { [CALL_LOG_VARIABLE]: callLog } : {}) };
  return createDocumentClient(withLocalGrants(createDynamoClient(env), 'dynamodb', env));
}
const grantsOf = (id: string) =>
  localGrants(spec(id), { tables: tables.names, queues: { fanout: QUEUE_URL, deliveries: QUEUE_URL, streamFailures: QUEUE_URL } });

const refusal = (fn: string, action: string, resource: string) =>
  `User: arn:aws:sts::000000000000:assumed-role/bureau-${fn}/bureau-${fn} is not authorized to perform: ${action} on resource: ${resource} because no identity-based policy allows the ${action} action`;
const tableArn = (id: string) => `arn:aws:dynamodb:eu-west-2:000000000000:table/${tables.names[id]}`;

describe("a function's DynamoDB client under the local runtime", () => {
  it('sends the calls its catalogue entry grants', async () => {
    const profile = clientOf(grantsOf('profile'));
    const key = { pk: 'GB#00000001', sk: 'cli_granted' };

    await profile.send(
      new UpdateCommand({
        TableName: tables.names.watches,
        Key: key,
        UpdateExpression: 'SET lastFetchedAt = :at',
        ExpressionAttributeValues: { ':at': 'now' },
      }),
    );
    await profile.send(new DeleteCommand({ TableName: tables.names.watches, Key: key }));
  });

  it('refuses a call it is not granted, as AWS does: AccessDeniedException naming the action and the table', async () => {
    const profile = clientOf(grantsOf('profile'));

    const refused = profile.send(new PutCommand({ TableName: tables.names.watches, Item: { pk: 'GB#00000001', sk: 'cli_refused' } }));

    await expect(refused).rejects.toMatchObject({
      name: 'AccessDeniedException',
      $fault: 'client',
      message: refusal('profile', 'dynamodb:PutItem', tableArn('watches')),
    });
    const written = await tables.doc.send(
      new GetCommand({ TableName: tables.names.watches, Key: { pk: 'GB#00000001', sk: 'cli_refused' } }),
    );
    expect(written.Item).toBeUndefined();
  });

  it('refuses every table the function is not granted', async () => {
    const profile = clientOf(grantsOf('profile'));

    await expect(
      profile.send(new GetCommand({ TableName: tables.names.workspace, Key: { pk: 'PERSON#x', sk: 'PERSON' } })),
    ).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: refusal('profile', 'dynamodb:GetItem', tableArn('workspace')),
    });
  });

  it('confines writes to the granted partition-key prefixes (dynamodb:LeadingKeys)', async () => {
    const token = clientOf(grantsOf('token'));
    const counter = (pk: string) =>
      new UpdateCommand({
        TableName: tables.names.clients,
        Key: { pk, sk: '0' },
        UpdateExpression: 'ADD #c :one',
        ExpressionAttributeNames: { '#c': 'count' },
        ExpressionAttributeValues: { ':one': 1 },
      });

    await token.send(counter('RATE#client#cli_x'));
    await expect(token.send(counter('CLIENT#cli_x'))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: refusal('token', 'dynamodb:UpdateItem', tableArn('clients')),
    });
  });

  it('allows Query on a granted index only, and on the table only when the table itself is granted Query', async () => {
    const watches = clientOf(grantsOf('watches'));
    const byClient = new QueryCommand({
      TableName: tables.names.watches,
      IndexName: 'byClient',
      KeyConditionExpression: 'sk = :client',
      ExpressionAttributeValues: { ':client': 'cli_x' },
    });
    const byCompany = new QueryCommand({
      TableName: tables.names.watches,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'GB#00000001' },
    });

    await watches.send(byClient);
    await expect(watches.send(byCompany)).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: refusal('watches', 'dynamodb:Query', tableArn('watches')),
    });
    await clientOf(grantsOf('fanout')).send(byCompany);
    await expect(clientOf(grantsOf('fanout')).send(byClient)).rejects.toMatchObject({
      message: refusal('fanout', 'dynamodb:Query', `${tableArn('watches')}/index/byClient`),
    });
  });

  it("authorises a transaction by each entry's item action, and a batch write as BatchWriteItem on every item's key", async () => {
    const grants: LocalGrants = {
      functionId: 'probe',
      functionName: 'bureau-probe',
      accountId: '000000000000',
      tables: [
        { id: 'workspace', name: tables.names.workspace as string, partitionKey: 'pk', actions: ['PutItem'] },
        {
          id: 'clients',
          name: tables.names.clients as string,
          partitionKey: 'pk',
          actions: ['BatchWriteItem'],
          writeKeyPrefixes: ['RATE#'],
        },
      ],
      queues: [],
    };
    const probe = clientOf(grants);
    const put = (pk: string) => ({ Put: { TableName: tables.names.workspace, Item: { pk, sk: 'x' } } });

    await probe.send(new TransactWriteCommand({ TransactItems: [put('A'), put('B')] }));
    await expect(
      probe.send(
        new TransactWriteCommand({
          TransactItems: [
            put('C'),
            {
              ConditionCheck: { TableName: tables.names.workspace, Key: { pk: 'A', sk: 'x' }, ConditionExpression: 'attribute_exists(pk)' },
            },
          ],
        }),
      ),
    ).rejects.toMatchObject({ message: refusal('probe', 'dynamodb:ConditionCheckItem', tableArn('workspace')) });
    const batch = (...pks: string[]) =>
      new BatchWriteCommand({
        RequestItems: { [tables.names.clients as string]: pks.map((pk) => ({ PutRequest: { Item: { pk, sk: '0' } } })) },
      });
    await probe.send(batch('RATE#a', 'RATE#b'));
    await expect(probe.send(batch('RATE#c', 'CLIENT#d'))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: refusal('probe', 'dynamodb:BatchWriteItem', tableArn('clients')),
    });
  });

  it('logs each distinct call once, allowed or refused, where BUREAU_CALL_LOG says', async () => {
    const watches = clientOf(grantsOf('watches'), { log: true });
    const list = () =>
      watches.send(
        new QueryCommand({
          TableName: tables.names.watches,
          IndexName: 'byClient',
          KeyConditionExpression: 'sk = :c',
          ExpressionAttributeValues: { ':c': 'cli_log' },
        }),
      );

    await list();
    await list();
    await watches.send(new GetCommand({ TableName: tables.names.watches, Key: { pk: 'GB#1', sk: 'cli_log' } })).catch(() => undefined);

    const lines = readdirSync(callLog).flatMap((file) =>
      readFileSync(join(callLog, file), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as LoggedCall),
    );
    expect(lines).toEqual([
      { function: 'watches', service: 'dynamodb', resource: 'watches', index: 'byClient', action: 'Query', allowed: true },
      { function: 'watches', service: 'dynamodb', resource: 'watches', action: 'GetItem', allowed: false },
    ]);
  });

  it('enforces nothing without grants: the runtime, the tests and the CLI use their own clients', async () => {
    const unrestricted = createDocumentClient(createDynamoClient(tables.env));

    await unrestricted.send(new PutCommand({ TableName: tables.names.watches, Item: { pk: 'GB#00000002', sk: 'cli_any' } }));

    const written = await tables.doc.send(new GetCommand({ TableName: tables.names.watches, Key: { pk: 'GB#00000002', sk: 'cli_any' } }));
    expect(written.Item).toEqual({ pk: 'GB#00000002', sk: 'cli_any' });
  });
});

describe("a function's DynamoDB Streams client under the local runtime", () => {
  it("reads the stream of a table whose stream it is granted, only as granted, and names the stream's ARN in a refusal", async () => {
    await tables.doc.send(new PutCommand({ TableName: tables.names.companies, Item: { pk: 'GB#00000003', sk: 'PROFILE' } }));
    const streamArn = (await tables.client.send(new DescribeTableCommand({ TableName: tables.names.companies }))).Table
      ?.LatestStreamArn as string;
    const streamsOf = (grants?: LocalGrants) => {
      const env = { ...tables.env, ...(grants ? { [LOCAL_GRANTS_VARIABLE]: JSON.stringify(grants) } : {}) };
      const config = {
        endpoint: tables.env.DYNAMODB_ENDPOINT,
        region: 'eu-west-2',
        credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
      };
      return withLocalGrants(new DynamoDBStreamsClient(config), 'dynamodb', env);
    };
    const shardId = (await streamsOf().send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription?.Shards?.[0]?.ShardId;
    const iteratorRequest = new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' });
    const stream = `${tableArn('companies')}/stream/${streamArn.split('/stream/')[1]}`;
    const replayer = streamsOf(grantsOf('streamReplay'));

    const { ShardIterator } = await replayer.send(iteratorRequest);
    const { Records } = await replayer.send(new GetRecordsCommand({ ShardIterator }));

    expect(Records?.map((record) => record.dynamodb?.Keys?.pk?.S)).toEqual(['GB#00000003']);
    await expect(replayer.send(new DescribeStreamCommand({ StreamArn: streamArn }))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: refusal('streamReplay', 'dynamodb:DescribeStream', stream),
    });
    // Reading the companies table is no grant to read its stream.
    await expect(streamsOf(grantsOf('search')).send(iteratorRequest)).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: refusal('search', 'dynamodb:GetShardIterator', stream),
    });
  });
});

describe("a function's SQS client under the local runtime", () => {
  it('refuses a call it is not granted as SQS does, before anything is sent', async () => {
    const env = {
      SQS_ENDPOINT: 'http://127.0.0.1:9',
      AWS_REGION: 'eu-west-2',
      [LOCAL_GRANTS_VARIABLE]: JSON.stringify(grantsOf('sender')),
    };
    const sender = withLocalGrants(createSqsClient(env), 'sqs', env);

    const refused = sender.send(new SendMessageBatchCommand({ QueueUrl: QUEUE_URL, Entries: [{ Id: '0', MessageBody: '{}' }] }));

    await expect(refused).rejects.toMatchObject({
      name: 'AccessDenied',
      message: refusal('sender', 'sqs:sendmessage', 'arn:aws:sqs:eu-west-2:000000000000:deliveries'),
    });
  });
});
