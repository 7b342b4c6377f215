import type { Deliveries } from '../webhooks/deliveries';
import { DELIVERY_LOG_DAYS, type DeliveryAttempt } from '../webhooks/delivery-log';
import type { DayOfDeliveries } from './wire';

/** The chart reads at most this many attempts: a bounded request whatever the traffic. */
const MAX_ATTEMPTS_READ = 5_000;
const PAGE = 100;

/**
 * Attempts per UTC day by outcome over the log's 30 days, oldest day first, every day present.
 * `truncated` says the subscription made more attempts than are counted, the oldest being left out.
 */
export async function deliveriesPerDay(
  deliveries: Pick<Deliveries, 'attempts'>,
  clientId: string,
  subscriptionId: string,
  now: Date,
): Promise<{ days: DayOfDeliveries[]; truncated: boolean }> {
  const counts = new Map<string, { delivered: number; failed: number; dropped: number }>();
  for (let i = DELIVERY_LOG_DAYS - 1; i >= 0; i--) {
    counts.set(new Date(now.getTime() - i * 86_400_000).toISOString().slice(0, 10), { delivered: 0, failed: 0, dropped: 0 });
  }
  let cursor: string | undefined;
  let read = 0;
  do {
    const page = await deliveries.attempts(clientId, subscriptionId, { limit: PAGE, ...(cursor === undefined ? {} : { cursor }) });
    for (const attempt of page.items) count(counts, attempt);
    read += page.items.length;
    cursor = page.nextCursor;
  } while (cursor !== undefined && read < MAX_ATTEMPTS_READ);
  return { days: [...counts].map(([date, day]) => ({ date, ...day })), truncated: cursor !== undefined };
}

function count(counts: Map<string, { delivered: number; failed: number; dropped: number }>, attempt: DeliveryAttempt): void {
  const day = counts.get(attempt.attemptedAt.slice(0, 10));
  if (day) day[attempt.outcome]++;
}
