import { describe, expect, it } from 'vitest';
import { changedProfile } from '../../../demo/company-changes';
import type { CompanyProfile, EarlySignal } from '../../../shared/companies/profile';
import type { FanoutTask } from '../../../shared/queues/queues';
import { ChangeDetector } from '../../../shared/webhooks/change-detector';
import { changeEvents, DELIVERY_ID, deliveryIdOf } from '../../../shared/webhooks/events';
import { profileContent } from '../../support/profile-fixture';

const at = new Date('2026-05-04T10:00:00.000Z');
const before: CompanyProfile = {
  ...profileContent({ companyNumber: '15380840', name: 'Acme Ltd' }),
  version: 6,
  updatedAt: '2026-05-01T08:00:00.000Z',
};
const next = (content: Omit<CompanyProfile, 'version' | 'updatedAt'>): CompanyProfile => ({
  ...content,
  version: 7,
  updatedAt: at.toISOString(),
});
const signal = (id: string, state: EarlySignal['state']): EarlySignal => ({
  id,
  kind: 'charge_registered',
  state,
  severity: 'warning',
  summary: 'A charge over company assets was registered',
  detectedAt: '2026-04-01T00:00:00.000Z',
  updatedAt: '2026-04-01T00:00:00.000Z',
});

describe('change events of a profile rewrite', () => {
  it('name one profile.changed per changed block, keyed by the new version, at the profile’s updatedAt', () => {
    const after = next({
      ...before,
      riskOfFailure: { ...before.riskOfFailure, level: 'High' },
      creditCapacity: { ...before.creditCapacity, creditLimit: { amountMinor: 1, currency: 'GBP' } },
    });
    expect(changeEvents(before, after)).toEqual([
      {
        type: 'profile.changed',
        apiVersion: 'v1',
        occurredAt: '2026-05-04T10:00:00.000Z',
        idempotencyKey: 'profile.changed:GB:15380840:riskOfFailure:v7',
        block: 'riskOfFailure',
        data: { jurisdiction: 'GB', companyNumber: '15380840' },
      },
      {
        type: 'profile.changed',
        apiVersion: 'v1',
        occurredAt: '2026-05-04T10:00:00.000Z',
        idempotencyKey: 'profile.changed:GB:15380840:creditCapacity:v7',
        block: 'creditCapacity',
        data: { jurisdiction: 'GB', companyNumber: '15380840' },
      },
    ]);
  });

  it('are none when only the name, the version or the key order changed', () => {
    const reordered = JSON.parse(JSON.stringify({ ...before, overview: Object.fromEntries(Object.entries(before.overview).reverse()) }));
    expect(changeEvents(before, next({ ...reordered, name: 'Acme Renamed Ltd' }))).toEqual([]);
  });

  it('detect a new signal, update one that expired or was superseded, and ignore a return to active', () => {
    const old = { ...before, earlySignals: { signals: [signal('s-1', 'active'), signal('s-2', 'active'), signal('s-3', 'expired')] } };
    const after = next({
      ...old,
      earlySignals: { signals: [signal('s-1', 'expired'), signal('s-2', 'superseded'), signal('s-3', 'active'), signal('s-4', 'active')] },
    });
    expect(changeEvents(old, after).map((event) => [event.type, event.block, event.idempotencyKey])).toEqual([
      ['profile.early_signal.updated', 'earlySignals', 'early_signal:GB:15380840:s-1:expired'],
      ['profile.early_signal.updated', 'earlySignals', 'early_signal:GB:15380840:s-2:superseded'],
      ['profile.early_signal.detected', 'earlySignals', 'early_signal:GB:15380840:s-4:active'],
    ]);
  });

  it('come out the same, keys included, when the same record is processed twice', async () => {
    const after = next(changedProfile(before, 'trading-status', at));
    const queued: FanoutTask[] = [];
    const detector = new ChangeDetector({
      watchers: { watchers: async () => ({ clientIds: ['client-1'] }) },
      tasks: { send: async (tasks) => void queued.push(...tasks) },
    });
    await detector.detect({ before, after });
    await detector.detect({ before, after });
    expect(queued).toHaveLength(2);
    expect(queued[0]).toEqual(queued[1]);
    expect(deliveryIdOf(queued[0]?.event.idempotencyKey as string, 'wh_x')).toBe(
      deliveryIdOf(queued[1]?.event.idempotencyKey as string, 'wh_x'),
    );
  });

  it('queue nothing for a company nobody watches', async () => {
    const queued: FanoutTask[] = [];
    const detector = new ChangeDetector({
      watchers: { watchers: async () => ({ clientIds: [] }) },
      tasks: { send: async (tasks) => void queued.push(...tasks) },
    });
    expect(await detector.detect({ before, after: next(changedProfile(before, 'risk', at)) })).toEqual([]);
    expect(queued).toEqual([]);
  });
});

describe('delivery ids', () => {
  it('are Standard Webhooks message ids, one per event and subscription', () => {
    const id = deliveryIdOf('profile.changed:GB:1:overview:v2', 'wh_a');
    expect(id).toMatch(DELIVERY_ID);
    expect(deliveryIdOf('profile.changed:GB:1:overview:v2', 'wh_b')).not.toBe(id);
    expect(deliveryIdOf('profile.changed:GB:1:overview:v3', 'wh_a')).not.toBe(id);
  });
});
