import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { protectedRoute } from '../../shared/auth/protect';
import { RATE_KEY_PREFIX, RATE_WINDOW_SECONDS } from '../../shared/auth/rate-limit';
import { json } from '../../shared/http/responses';
import { clientsTable } from '../../shared/storage/tables';
import type { BenchContext } from './support/context';
import { benchRequest } from './support/http';
import { benchProtection } from './support/protection';
import { latencyTable } from './support/table';
import { timeInterleaved } from './support/timing';

export const name = 'Protection of a route (bearer check + rate limit)';

export async function run(context: BenchContext): Promise<void> {
  const loop = context.scale === 'full' ? { warmup: 200, iterations: 3000 } : { warmup: 100, iterations: 1000 };
  const protection = await benchProtection(context);
  try {
    const { doc, names } = protection.tables;
    const table = names[clientsTable.id] as string;
    const route = protectedRoute(protection.deps, async (_, principal) => json(200, { clientId: principal.clientId }));
    const request = benchRequest({ path: '/v1/whoami', headers: { authorization: protection.authorization } });

    // The same atomic counter update the limiter makes, on its own key so neither disturbs the other.
    const bareCounter = () => {
      const windowStart = Math.floor(Date.now() / 1000 / RATE_WINDOW_SECONDS) * RATE_WINDOW_SECONDS;
      return doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: `${RATE_KEY_PREFIX}bench#baseline`, sk: String(windowStart) },
          UpdateExpression: 'ADD #count :one SET expiresAt = if_not_exists(expiresAt, :expiresAt)',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':one': 1, ':expiresAt': windowStart + 2 * RATE_WINDOW_SECONDS },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
    };
    const protectedCall = async () => {
      const response = await route(request);
      if (response.status !== 200) throw new Error(`protected route answered ${response.status}`);
    };
    const [counter, protectedStats] = await timeInterleaved([bareCounter, protectedCall], loop);
    context.report(
      latencyTable('Protected route (trivial handler) vs the bare rate-counter UpdateItem it makes', [
        { label: 'baseline: UpdateItem ADD counter', stats: counter },
        { label: 'protectedRoute(bearer + rate limit)', stats: protectedStats },
      ]),
    );
  } finally {
    protection.dispose();
  }
}
