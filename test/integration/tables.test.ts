import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { companiesTable, watchesTable } from '../../shared/storage/tables';
import { createTestTables } from '../support/dynamo';

describe('shared table definitions', () => {
  it('create tables in DynamoDB Local with the declared keys, streams and indexes', async () => {
    const { client, names } = await createTestTables([companiesTable, watchesTable]);

    const companies = await client.send(new DescribeTableCommand({ TableName: names.companies }));
    const watches = await client.send(new DescribeTableCommand({ TableName: names.watches }));

    expect(companies.Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(watches.Table?.GlobalSecondaryIndexes?.[0]?.IndexName).toBe('byClient');
    expect(watches.Table?.GlobalSecondaryIndexes?.[0]?.KeySchema).toEqual([
      { AttributeName: 'sk', KeyType: 'HASH' },
      { AttributeName: 'pk', KeyType: 'RANGE' },
    ]);
  });
});
