import { describe, expect, it } from 'vitest';
import type { WebhookEnvelope } from '../../../shared/events/envelope';
import type { DeliveryMessage, FanoutTask, TaskQueue } from '../../../shared/queues/queues';
import type { WatcherLookup } from '../../../shared/watches/watch-store';
import { deliveryIdOf } from '../../../shared/webhooks/events';
import { FanOut } from '../../../shared/webhooks/fan-out';

const event: WebhookEnvelope = {
  type: 'profile.changed',
  apiVersion: 'v1',
  occurredAt: '2026-07-01T09:00:00.000Z',
  idempotencyKey: 'profile.changed:GB:12345678:riskOfFailure:v9',
  block: 'riskOfFailure',
  data: { jurisdiction: 'GB', companyNumber: '12345678' },
};

/** Watchers in client id order, served a page at a time as the watches table does. */
function watchersOf(clientIds: readonly string[]): WatcherLookup & { asked: { after?: string; limit: number }[] } {
  const asked: { after?: string; limit: number }[] = [];
  return {
    asked,
    watchers: async (_jurisdiction, _companyNumber, options) => {
      asked.push(options);
      const start = options.after === undefined ? 0 : clientIds.indexOf(options.after) + 1;
      const page = clientIds.slice(start, start + options.limit);
      const more = start + options.limit < clientIds.length;
      return { clientIds: page, ...(more ? { next: page.at(-1) as string } : {}) };
    },
  };
}

function queue<T>(): TaskQueue<T> & { sent: T[] } {
  const sent: T[] = [];
  return { sent, send: async (messages) => void sent.push(...messages) };
}

const fanOutOver = (clientIds: readonly string[], active: Record<string, string[]>, pageSize: number) => {
  const watchers = watchersOf(clientIds);
  const deliveries = queue<DeliveryMessage>();
  const tasks = queue<FanoutTask>();
  const fanOut = new FanOut({
    watchers,
    subscriptions: {
      activeSubscriptions: async (ids) =>
        new Map(ids.map((id) => [id, (active[id] ?? []).map((subscriptionId) => ({ id: subscriptionId }))])),
    },
    deliveries,
    tasks,
    events: { recordFor: async () => {} },
    pageSize,
  });
  return { fanOut, watchers, deliveries, tasks };
};

describe('one fan-out step', () => {
  it("queues one delivery per active subscription of a page's watchers, and the next page as a task", async () => {
    const { fanOut, deliveries, tasks } = fanOutOver(['a', 'b', 'c'], { a: ['wh_a1', 'wh_a2'], c: ['wh_c1'] }, 2);

    const result = await fanOut.run({ event });

    expect(result).toEqual({ watchers: 2, deliveries: 2, continued: true });
    expect(deliveries.sent).toEqual([
      { deliveryId: deliveryIdOf(event.idempotencyKey, 'wh_a1'), clientId: 'a', subscriptionId: 'wh_a1', envelope: event },
      { deliveryId: deliveryIdOf(event.idempotencyKey, 'wh_a2'), clientId: 'a', subscriptionId: 'wh_a2', envelope: event },
    ]);
    expect(tasks.sent).toEqual([{ event, after: 'b' }]);
  });

  it('takes up after the watcher a task names, and queues no task after the last page', async () => {
    const { fanOut, watchers, deliveries, tasks } = fanOutOver(['a', 'b', 'c'], { c: ['wh_c1'] }, 2);

    const result = await fanOut.run({ event, after: 'b' });

    expect(watchers.asked).toEqual([{ after: 'b', limit: 2 }]);
    expect(result).toEqual({ watchers: 1, deliveries: 1, continued: false });
    expect(deliveries.sent.map((message) => message.subscriptionId)).toEqual(['wh_c1']);
    expect(tasks.sent).toEqual([]);
  });

  it('queues the same delivery ids when a step runs twice, so the sender can recognise a repeat', async () => {
    const { fanOut, deliveries } = fanOutOver(['a'], { a: ['wh_a1'] }, 10);

    await fanOut.run({ event });
    await fanOut.run({ event });

    expect(deliveries.sent).toHaveLength(2);
    expect(deliveries.sent[0]?.deliveryId).toBe(deliveries.sent[1]?.deliveryId);
  });

  it('refuses an event that names no company, rather than telling nobody', async () => {
    const { fanOut, deliveries } = fanOutOver(['a'], { a: ['wh_a1'] }, 10);
    const test = { ...event, data: { jurisdiction: null, companyNumber: null } } as unknown as WebhookEnvelope;

    await expect(fanOut.run({ event: test })).rejects.toThrow(/names no company/);
    expect(deliveries.sent).toEqual([]);
  });
});
