import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchWrite } from '../../shared/storage/batch';

/** Keys read per page: four full batch writes. */
const PAGE = 100;

/**
 * Deletes every item of one partition (pk) of a table and says how many it deleted. Each page is
 * deleted before the next is read, so an interrupted run leaves a partition that a second run
 * empties from where it begins.
 */
export async function removePartition(doc: DynamoDBDocumentClient, tableName: string, pk: string): Promise<number> {
  let removed = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
        Limit: PAGE,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    const keys = (page.Items ?? []) as Array<{ pk: string; sk: string }>;
    await batchWrite(
      doc,
      tableName,
      keys.map((key) => ({ DeleteRequest: { Key: { pk: key.pk, sk: key.sk } } })),
    );
    removed += keys.length;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return removed;
}
