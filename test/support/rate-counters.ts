import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { RATE_KEY_PREFIX } from '../../shared/auth/rate-limit';

/**
 * The counting windows a rate key was charged in, read from the counter table. A burst on a busy
 * machine can outlast the rest of a window, so what a limit lets through is bounded per window the
 * burst really touched, never by a guess at how long it took.
 */
export async function countingWindows(
  doc: DynamoDBDocumentClient,
  table: string,
  key: string,
): Promise<Array<{ readonly start: number; readonly count: number }>> {
  const counters = await doc.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': RATE_KEY_PREFIX + key },
    }),
  );
  return (counters.Items ?? []).map((item) => ({ start: Number(item.sk), count: Number(item.count) }));
}

/**
 * Who judged an answer, read from its headers as a client can: the gateway, when every instance was
 * busy (no rate-limit policy at all); the shared counter (policy and live count); or one instance
 * alone, when the counter did not answer in time and the limiter failed open (policy, no count).
 */
export function judgedBy(response: Response): 'gateway' | 'counter' | 'instance' {
  if (!response.headers.has('ratelimit-policy')) return 'gateway';
  return response.headers.has('ratelimit') ? 'counter' : 'instance';
}
