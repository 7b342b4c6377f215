import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** BatchGetItem takes at most 100 keys. */
const BATCH_GET_LIMIT = 100;

/**
 * Every item that exists among the keys, read consistently in requests of 100 sent together; keys
 * DynamoDB leaves unprocessed are asked for again with backoff.
 */
export async function batchGet<T>(
  doc: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly object[],
  projection?: string,
): Promise<T[]> {
  const chunks: object[][] = [];
  for (let start = 0; start < keys.length; start += BATCH_GET_LIMIT) chunks.push(keys.slice(start, start + BATCH_GET_LIMIT));
  const found: T[] = [];
  await Promise.all(
    chunks.map(async (chunk) => {
      let pending = chunk;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)));
        const result = await doc.send(
          new BatchGetCommand({
            RequestItems: {
              [tableName]: { Keys: pending, ConsistentRead: true, ...(projection ? { ProjectionExpression: projection } : {}) },
            },
          }),
        );
        found.push(...((result.Responses?.[tableName] ?? []) as T[]));
        pending = result.UnprocessedKeys?.[tableName]?.Keys ?? [];
      }
    }),
  );
  return found;
}
