import { describe, expect, it } from 'vitest';
import type { WebhookEnvelope } from '../../../shared/events/envelope';
import { filtersOf, InvalidFiltersError, matchesFilters, type SubscriptionFilters } from '../../../shared/webhooks/subscription-filters';

const change = (fields: Partial<WebhookEnvelope> = {}): WebhookEnvelope => ({
  type: 'profile.changed',
  apiVersion: 'v1',
  occurredAt: '2026-07-01T09:00:00.000Z',
  idempotencyKey: 'profile.changed:GB:01234567:riskOfFailure:v9',
  block: 'riskOfFailure',
  data: { jurisdiction: 'GB', companyNumber: '01234567' },
  ...fields,
});
const signal = change({
  type: 'profile.early_signal.detected',
  block: 'earlySignals',
  idempotencyKey: 'early_signal:IE:123456:s1:active',
  data: { jurisdiction: 'IE', companyNumber: '123456' },
});
const testEvent = change({
  type: 'webhook.test',
  block: null,
  idempotencyKey: 'webhook.test:wh_x:n',
  data: { jurisdiction: null, companyNumber: null },
});

const refusal = (value: unknown): string => {
  try {
    filtersOf(value);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidFiltersError);
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(value)} was accepted`);
};

describe('subscription filters', () => {
  it('are normalised: each list without repeats, companies keyed as profile numbers are, nothing given read as none', () => {
    expect(
      filtersOf({
        eventTypes: ['profile.changed', 'profile.changed'],
        blocks: ['earlySignals'],
        jurisdictions: ['IE'],
        companies: [' gb:1234567', 'GB:01234567', 'ie:000123', 'gb:sc123456'],
      }),
    ).toEqual({
      eventTypes: ['profile.changed'],
      blocks: ['earlySignals'],
      jurisdictions: ['IE'],
      companies: ['GB:01234567', 'IE:123', 'GB:SC123456'],
    });
    expect(filtersOf(null)).toBeNull();
    expect(filtersOf(undefined)).toBeNull();
    expect(filtersOf({})).toBeNull();
    expect(filtersOf({ blocks: null })).toBeNull();
  });

  it('take 100 companies, counted once normalised, and no more', () => {
    const hundred = Array.from({ length: 100 }, (_, n) => `GB:${n + 1}`);
    expect(filtersOf({ companies: [...hundred, 'gb:00000001'] })?.companies).toHaveLength(100);
    expect(refusal({ companies: [...hundred, 'GB:101'] })).toContain('101 companies; at most 100');
  });

  it('refuse what they do not know, naming the field and the values', () => {
    expect(refusal({ eventTypes: ['profile.deleted', 'profile.changed'] })).toMatch(/filters\.eventTypes .*"profile\.deleted"/);
    expect(refusal({ blocks: ['secrets'] })).toMatch(/filters\.blocks .*"secrets"/);
    expect(refusal({ jurisdictions: ['FR', 'gb'] })).toMatch(/filters\.jurisdictions .*"FR", "gb"/);
    expect(refusal({ companies: ['01234567'] })).toMatch(/filters\.companies: "01234567" is not JURISDICTION:NUMBER/);
    expect(refusal({ companies: ['IE:12345678'] })).toMatch(/"IE:12345678" is not a valid IE company number/);
    expect(refusal({ blocks: [] })).toContain('filters.blocks must be a non-empty list');
    expect(refusal({ blocks: 'overview' })).toContain('filters.blocks must be a non-empty list');
    expect(refusal({ companies: [7] })).toContain('filters.companies must be a non-empty list');
    expect(refusal({ company: ['GB:1'] })).toContain('filters has fields it does not take: company');
    expect(refusal(['GB:1'])).toContain('filters must be an object');
    expect(refusal('all')).toContain('filters must be an object');
  });

  it('let an event through only when every list given holds its value', () => {
    const cases: Array<[SubscriptionFilters | undefined, WebhookEnvelope, boolean]> = [
      [undefined, change(), true],
      [{ eventTypes: ['profile.changed'] }, change(), true],
      [{ eventTypes: ['profile.changed'] }, signal, false],
      [{ blocks: ['earlySignals'] }, signal, true],
      [{ blocks: ['earlySignals'] }, change(), false],
      [{ jurisdictions: ['GB'] }, signal, false],
      [{ companies: ['IE:123456'] }, signal, true],
      [{ companies: ['GB:01234568'] }, change(), false],
      [{ blocks: ['riskOfFailure'], jurisdictions: ['IE'] }, change(), false],
      [{ blocks: ['riskOfFailure'], jurisdictions: ['GB'], companies: ['GB:01234567'] }, change(), true],
      // A test event names no company, type or block that filters know: it always goes.
      [{ eventTypes: ['profile.changed'], blocks: ['overview'], jurisdictions: ['GB'], companies: ['GB:01234567'] }, testEvent, true],
    ];
    for (const [filters, event, expected] of cases)
      expect(matchesFilters(filters, event), JSON.stringify([filters, event.type])).toBe(expected);
  });
});
