import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { IndexDefinition, KeyAttribute, TableDefinition } from './tables';

function projectionOf(index: IndexDefinition) {
  if (index.projection === 'ALL' || index.projection === 'KEYS_ONLY') return { ProjectionType: index.projection };
  return { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.projection] };
}

export function createTableInput(def: TableDefinition, name: string): CreateTableCommandInput {
  const attributes = new Map<string, KeyAttribute>();
  const keys = [def.partitionKey, def.sortKey, ...(def.globalSecondaryIndexes ?? []).flatMap((i) => [i.partitionKey, i.sortKey])];
  for (const key of keys) if (key) attributes.set(key.name, key);
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes.values()].map((a) => ({ AttributeName: a.name, AttributeType: a.type })),
    KeySchema: [
      { AttributeName: def.partitionKey.name, KeyType: 'HASH' },
      ...(def.sortKey ? [{ AttributeName: def.sortKey.name, KeyType: 'RANGE' as const }] : []),
    ],
    GlobalSecondaryIndexes: def.globalSecondaryIndexes?.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
        ...(index.sortKey ? [{ AttributeName: index.sortKey.name, KeyType: 'RANGE' as const }] : []),
      ],
      Projection: projectionOf(index),
    })),
    StreamSpecification: def.stream ? { StreamEnabled: true, StreamViewType: def.stream } : undefined,
  };
}

/** Creates the table when missing (idempotent), the way the local runtime and the tests need it. */
export async function ensureTable(client: DynamoDBClient, def: TableDefinition, name: string): Promise<void> {
  try {
    await client.send(new CreateTableCommand(createTableInput(def, name)));
    if (def.timeToLiveAttribute) {
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: name,
          TimeToLiveSpecification: { AttributeName: def.timeToLiveAttribute, Enabled: true },
        }),
      );
    }
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  await client.send(new DescribeTableCommand({ TableName: name }));
}
