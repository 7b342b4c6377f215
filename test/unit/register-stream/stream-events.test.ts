import { describe, expect, it } from 'vitest';
import {
  companyNumberOf,
  isHeartbeat,
  parseStreamLine,
  publishedAtMillis,
  STREAM_NAMES,
} from '../../../shared/register/stream/stream-events';

const line = (overrides: Record<string, unknown> = {}, event: Record<string, unknown> = {}) =>
  JSON.stringify({
    resource_kind: 'company-profile',
    resource_uri: '/company/15380840',
    resource_id: '15380840',
    data: { company_status: 'active' },
    event: { timepoint: 4211, published_at: '2026-11-25T08:30:12', type: 'changed', ...event },
    ...overrides,
  });

describe('parseStreamLine', () => {
  it('reads an event as the register publishes it', () => {
    const parsed = parseStreamLine('companies', line());

    expect(parsed).toEqual({
      ok: true,
      event: {
        stream: 'companies',
        resourceKind: 'company-profile',
        resourceUri: '/company/15380840',
        resourceId: '15380840',
        data: { company_status: 'active' },
        timepoint: 4211,
        publishedAt: '2026-11-25T08:30:12',
        type: 'changed',
      },
    });
  });

  it('names the nine streams', () => {
    expect(STREAM_NAMES).toHaveLength(9);
  });

  it.each([
    ['{"resource_kind":', 'malformed-json', undefined],
    ['[1,2]', 'not-an-object', undefined],
    [line({ event: { published_at: 'x', type: 'changed' } }), 'missing-timepoint', undefined],
    [line({}, { timepoint: -3 }), 'invalid-timepoint', undefined],
    [line({}, { timepoint: 1.5 }), 'invalid-timepoint', undefined],
    [line({ resource_kind: 'filing-history' }), 'unknown-resource-kind', 4211],
    [line({ resource_kind: undefined }), 'missing-resource-kind', 4211],
    [line({ resource_uri: '' }), 'missing-resource-uri', 4211],
    [line({ resource_id: 7 }), 'missing-resource-id', 4211],
    [line({}, { type: 'created' }), 'invalid-event-type', 4211],
    [line({}, { published_at: undefined }), 'missing-published-at', 4211],
    [line({ data: 'x' }), 'missing-data', 4211],
  ])('refuses %s as %s, keeping the timepoint where there is one', (text, reason, timepoint) => {
    const parsed = parseStreamLine('companies', text);

    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.reason).toBe(reason);
    expect(parsed.timepoint).toBe(timepoint);
    expect(parsed.detail).not.toBe('');
  });

  it('takes a deletion without data, and a timepoint sent as text', () => {
    const parsed = parseStreamLine('companies', line({ data: undefined }, { type: 'deleted', timepoint: '12' }));

    expect(parsed).toMatchObject({ ok: true, event: { type: 'deleted', data: {}, timepoint: 12 } });
  });

  it('tells a heartbeat from a line', () => {
    expect(isHeartbeat('')).toBe(true);
    expect(isHeartbeat(' \r')).toBe(true);
    expect(isHeartbeat('{}')).toBe(false);
  });
});

describe('companyNumberOf and publishedAtMillis', () => {
  it('finds the company a resource belongs to', () => {
    expect(companyNumberOf('/company/sc123456/charges/abc')).toBe('SC123456');
    expect(companyNumberOf('/company/15380840')).toBe('15380840');
    expect(companyNumberOf('/disqualified-officers/natural/xyz')).toBeUndefined();
  });

  it('reads a zoneless published_at as UTC, and a zoned one as written', () => {
    expect(publishedAtMillis('2026-11-25T08:30:12')).toBe(Date.UTC(2026, 10, 25, 8, 30, 12));
    expect(publishedAtMillis('2026-11-25T08:30:12+01:00')).toBe(Date.UTC(2026, 10, 25, 7, 30, 12));
    expect(publishedAtMillis('soon')).toBeUndefined();
  });
});
