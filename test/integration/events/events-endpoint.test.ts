import { beforeAll, describe, expect, it } from 'vitest';
import { eventIdOf } from '../../../shared/events/client-events';
import { DynamoClientEventStore } from '../../../shared/events/dynamo-client-events';
import type { WebhookEnvelope } from '../../../shared/events/envelope';
import { createEventsEndpoint } from '../../../shared/events/events-endpoint';
import { HttpError } from '../../../shared/http/errors';
import { problem } from '../../../shared/http/responses';
import type { HttpResponse } from '../../../shared/http/types';
import { eventsTable } from '../../../shared/storage/tables';
import { createTestTables } from '../../support/dynamo';
import { httpRequest } from '../../support/http-fixtures';

const now = new Date();
const ago = (minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString();
let store: DynamoClientEventStore;
let endpoint: ReturnType<typeof createEventsEndpoint>;

const event = (
  minutesAgo: number,
  fields: Partial<WebhookEnvelope> & { company?: string; jurisdiction?: 'GB' | 'IE' } = {},
): WebhookEnvelope => {
  const { company = '01234567', jurisdiction = 'GB', ...rest } = fields;
  return {
    type: 'profile.changed',
    apiVersion: 'v1',
    occurredAt: ago(minutesAgo),
    idempotencyKey: `profile.changed:${jurisdiction}:${company}:overview:v${1000 - minutesAgo}`,
    block: 'overview',
    data: { jurisdiction, companyNumber: company },
    ...rest,
  };
};

const events = [
  event(50),
  event(40, { type: 'profile.early_signal.detected', block: 'earlySignals', idempotencyKey: 'early_signal:GB:01234567:s1:active' }),
  event(30, { company: '123', jurisdiction: 'IE' }),
  event(20, { block: 'riskOfFailure', idempotencyKey: 'profile.changed:GB:01234567:riskOfFailure:v9' }),
  event(10, { company: 'SC123456' }),
];

async function get(query: string, clientId = 'cli_events'): Promise<HttpResponse> {
  try {
    return await endpoint(httpRequest({ path: '/v1/events', query }), { clientId, tokenId: 't', expiresAt: 2_000_000_000 });
  } catch (error) {
    if (error instanceof HttpError) return problem(error);
    throw error;
  }
}
const idsOf = (response: HttpResponse) =>
  (response.body as { items: Array<{ idempotencyKey: string }> }).items.map((item) => item.idempotencyKey);
const keysOf = (...indexes: number[]) => indexes.map((index) => events[index]?.idempotencyKey);

beforeAll(async () => {
  const tables = await createTestTables([eventsTable]);
  store = new DynamoClientEventStore(tables.doc, tables.names.events as string);
  endpoint = createEventsEndpoint({ events: store, clock: () => now });
  for (const each of events) await store.recordFor(['cli_events', 'cli_other'], each);
  await store.recordFor(['cli_events'], events[0] as WebhookEnvelope);
  await store.recordFor(['cli_elsewhere'], event(5, { company: '07654321' }));
});

describe('GET /v1/events', () => {
  it("lists the client's own events newest first, each with the webhook's envelope and a stable id, written once however often recorded", async () => {
    const response = await get('');
    expect(response.status).toBe(200);
    expect(idsOf(response)).toEqual(keysOf(4, 3, 2, 1, 0));
    const body = response.body as { items: unknown[]; nextCursor: string | null };
    expect(body.items[4]).toEqual({ id: eventIdOf(events[0]?.idempotencyKey as string), ...events[0] });
    expect(body.nextCursor).toBeNull();
  });

  it('pages with limit and cursor, and filters by type, block, jurisdiction, company and time', async () => {
    const first = await get('limit=2');
    const next = (first.body as { nextCursor: string }).nextCursor;
    expect(idsOf(first)).toEqual(keysOf(4, 3));
    expect(idsOf(await get(`limit=2&cursor=${encodeURIComponent(next)}`))).toEqual(keysOf(2, 1));
    expect(idsOf(await get('type=profile.early_signal.detected'))).toEqual(keysOf(1));
    expect(idsOf(await get('block=riskOfFailure'))).toEqual(keysOf(3));
    expect(idsOf(await get('jurisdiction=ie'))).toEqual(keysOf(2));
    expect(idsOf(await get('companyNumber=1234567&jurisdiction=GB'))).toEqual(keysOf(3, 1, 0));
    expect(idsOf(await get('companyNumber=sc123456'))).toEqual(keysOf(4));
    expect(idsOf(await get(`since=${ago(35)}&until=${ago(15)}`))).toEqual(keysOf(3, 2));
    expect(idsOf(await get(`until=${ago(20)}`))).toEqual(keysOf(3, 2, 1, 0));
    // "30 days ago" by a client's clock, a little behind the API's, still asks for everything kept.
    expect(idsOf(await get(`since=${ago(30 * 24 * 60 + 30)}`))).toEqual(keysOf(4, 3, 2, 1, 0));
  });

  it('takes a cursor with another window: nothing newer than until, nothing older than since, never a 5xx', async () => {
    const cursor = encodeURIComponent(((await get('limit=2')).body as { nextCursor: string }).nextCursor);
    // The cursor stands after the event of 20 minutes ago.
    expect(idsOf(await get(`cursor=${cursor}&until=${ago(35)}`))).toEqual(keysOf(1, 0));
    expect(idsOf(await get(`cursor=${cursor}&until=${ago(15)}`))).toEqual(keysOf(2, 1, 0));
    const older = await get(`cursor=${cursor}&since=${ago(15)}`);
    expect(older.status).toBe(200);
    expect(older.body).toEqual({ items: [], nextCursor: null });
    expect(idsOf(await get(`cursor=${cursor}&since=${ago(15)}&block=overview`))).toEqual([]);
  });

  it('pages a filter through many events to the end, each match once and in order, though a page may hold fewer than its limit', async () => {
    const clientId = 'cli_many';
    // Every hundredth event is a risk change; one credit change lies beyond the first 1,000 events read.
    const many = Array.from({ length: 1100 }, (_, n) =>
      event(n / 10, {
        company: String(n).padStart(8, '0'),
        block: n % 100 === 0 ? 'riskOfFailure' : n === 1050 ? 'creditCapacity' : 'overview',
        idempotencyKey: `profile.changed:GB:${String(n).padStart(8, '0')}:v1`,
      }),
    );
    for (let start = 0; start < many.length; start += 100) {
      await Promise.all(many.slice(start, start + 100).map((each) => store.recordFor([clientId], each)));
    }
    const all = async (query: string) => {
      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const response = await get(`${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, clientId);
        expect(response.status).toBe(200);
        pages.push(idsOf(response));
        cursor = (response.body as { nextCursor: string | null }).nextCursor;
      } while (cursor);
      return pages;
    };

    const risk = await all('block=riskOfFailure&limit=4');
    expect(risk.flat()).toEqual(many.filter((each) => each.block === 'riskOfFailure').map((each) => each.idempotencyKey));
    expect(risk[0]).toHaveLength(4);
    const credit = await all('block=creditCapacity');
    expect(credit).toEqual([[], [many[1050]?.idempotencyKey]]);
  }, 60_000);

  it('answers any odd value with a 4xx naming its parameter, never a 5xx', async () => {
    const cursorOf = (position: unknown) => Buffer.from(JSON.stringify(position)).toString('base64url');
    for (const [query, parameter] of [
      ['since=', 'since'],
      ['until=', 'until'],
      ['limit=', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=1e2', 'limit'],
      ['cursor=', 'cursor'],
      [`cursor=${cursorOf({ before: 'EVENT#' })}`, 'cursor'],
      [`cursor=${cursorOf({ before: 7 })}`, 'cursor'],
      [`cursor=${cursorOf(['EVENT#2026-11-25T00:00:00.000Z#evt_x'])}`, 'cursor'],
      [`cursor=${cursorOf({ before: `EVENT#2026-11-25T00:00:00.000Z#evt_${'a'.repeat(27)}~` })}`, 'cursor'],
      ['type=', 'type'],
      ['block=__proto__', 'block'],
      ['block=constructor', 'block'],
      ['jurisdiction=', 'jurisdiction'],
      ['companyNumber=', 'companyNumber'],
      ['companyNumber=%00&jurisdiction=GB', 'companyNumber'],
      [`companyNumber=${encodeURIComponent('\u{1F600}')}&jurisdiction=IE`, 'companyNumber'],
      ['since=2026-11-25T06:00:00%2B25:00', 'since'],
      [`since=${encodeURIComponent('\uFF12026-11-25T06:00:00Z')}`, 'since'],
      ['until=9999-12-31T23:59:60Z', 'until'],
    ] as const) {
      const response = await get(query);
      expect(response.status, query).toBeGreaterThanOrEqual(400);
      expect(response.status, query).toBeLessThan(500);
      expect(response.body, query).toMatchObject({ parameter });
    }
    // A well-formed cursor from any time, with any window, is a position and reads as one.
    const far = cursorOf({ before: `EVENT#2099-01-01T00:00:00.000Z#evt_${'a'.repeat(27)}` });
    expect(idsOf(await get(`cursor=${far}&until=${ago(25)}`))).toEqual(keysOf(2, 1, 0));
  });

  it('refuses a bad parameter with a 400 naming it', async () => {
    for (const [query, code, parameter] of [
      ['type=profile.deleted', 'invalid_type', 'type'],
      ['block=secrets', 'invalid_block', 'block'],
      ['jurisdiction=FR', 'invalid_jurisdiction', 'jurisdiction'],
      ['companyNumber=12345', 'jurisdiction_required', 'jurisdiction'],
      ['companyNumber=not-a-number&jurisdiction=GB', 'invalid_company_number', 'companyNumber'],
      ['since=yesterday', 'invalid_since', 'since'],
      [`since=${ago(30 * 24 * 60 + 90)}`, 'invalid_since', 'since'],
      [`since=${ago(30 * 24 * 60 + 30)}&until=${ago(30 * 24 * 60 + 10)}`, 'invalid_until', 'until'],
      [`since=${ago(-60)}`, 'invalid_since', 'since'],
      [`since=${ago(10)}&until=${ago(20)}`, 'invalid_until', 'until'],
      ['until=2026-02-30T00:00:00Z', 'invalid_until', 'until'],
      ['cursor=bm90LW91cnM', 'invalid_cursor', 'cursor'],
      ['limit=0', 'invalid_limit', 'limit'],
      ['type=profile.changed&type=profile.changed', 'invalid_type', 'type'],
    ] as const) {
      const response = await get(query);
      expect(response.status, query).toBe(400);
      expect(response.body, query).toMatchObject({ error: code, parameter });
    }
  });
});
