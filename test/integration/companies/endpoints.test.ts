import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../../shared/auth/tokens';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { createProfileEndpoint } from '../../../shared/companies/profile-endpoint';
import { createSearchEndpoint } from '../../../shared/companies/search-endpoint';
import { HttpError } from '../../../shared/http/errors';
import { problem } from '../../../shared/http/responses';
import type { HttpRequest, HttpResponse } from '../../../shared/http/types';
import { companiesTable, watchesTable } from '../../../shared/storage/tables';
import { DynamoWatchStore } from '../../../shared/watches/dynamo-watch-store';
import { createWatchesEndpoint } from '../../../shared/watches/watches-endpoint';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { profileContent } from '../../support/profile-fixture';

let tables: TestTables;
let companies: DynamoCompanyStore;
let watches: DynamoWatchStore;
let now = new Date('2024-05-01T12:00:00.000Z');

beforeAll(async () => {
  tables = await createTestTables([{ ...companiesTable, stream: undefined }, watchesTable]);
  companies = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
  watches = new DynamoWatchStore(tables.doc, tables.names.watches as string);
  await companies.saveMany([
    profileContent({ companyNumber: '15380840', name: 'CPA GATES LTD' }),
    profileContent({ companyNumber: '00001234', name: 'Old Mill Bakery Limited' }),
    profileContent({ companyNumber: 'SC000777', name: 'Thistle Ventures Ltd' }),
    profileContent({ jurisdiction: 'IE', companyNumber: '654321', name: 'Cliffside Teoranta' }),
    ...Array.from({ length: 5 }, (_, i) => profileContent({ companyNumber: String(16000000 + i), name: `CPA Gates Fencing ${i}` })),
  ]);
});

const principal = (clientId: string): Principal => ({ clientId, tokenId: 'token-1', expiresAt: 2_000_000_000 });

function request(
  path: string,
  query: Record<string, string | string[]> = {},
  headers: Record<string, string> = {},
  pathParameters: Record<string, string> = {},
): HttpRequest {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) for (const one of [value].flat()) params.append(name, one);
  return { method: 'GET', path, pathParameters, headers, query: params, body: '', sourceIp: '203.0.113.9', requestId: 'req-1' };
}

/** Runs a route as the edge does: a thrown HttpError becomes its problem response. */
async function call(
  handler: (request: HttpRequest, principal: Principal) => Promise<HttpResponse>,
  req: HttpRequest,
  clientId = 'client-1',
) {
  try {
    return await handler(req, principal(clientId));
  } catch (error) {
    if (error instanceof HttpError) return problem(error);
    throw error;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON read by shape in assertions
const body = (response: HttpResponse) => response.body as Record<string, any>;

describe('GET /v1/search', () => {
  const search = () => createSearchEndpoint({ index: companies });

  it('answers ranked results with a null cursor when there are no more', async () => {
    const response = await call(search(), request('/v1/search', { q: 'CPA GATES', jurisdiction: 'GB' }));

    expect(response.status).toBe(200);
    expect(response.headers?.['cache-control']).toBe('private, no-cache');
    expect(body(response).items[0]).toMatchObject({ companyNumber: '15380840', name: 'CPA GATES LTD', match: { type: 'exact' } });
    expect(body(response).items).toHaveLength(6);
    expect(body(response).nextCursor).toBeNull();
  });

  it('accepts the jurisdiction in any letter case and ignores parameters it does not know', async () => {
    const response = await call(search(), request('/v1/search', { q: 'cliffside', jurisdiction: 'ie', sort: 'name' }));

    expect(response.status).toBe(200);
    expect(body(response).items.map((item: { companyNumber: string }) => item.companyNumber)).toEqual(['654321']);
  });

  it('pages with the cursor it returns', async () => {
    const first = await call(search(), request('/v1/search', { q: 'cpa gates', jurisdiction: 'GB', limit: '4' }));
    const second = await call(
      search(),
      request('/v1/search', { q: 'cpa gates', jurisdiction: 'GB', limit: '4', cursor: body(first).nextCursor }),
    );

    expect(body(first).items).toHaveLength(4);
    expect(body(second).items).toHaveLength(2);
    expect(body(second).nextCursor).toBeNull();
  });

  it.each([
    ['q is missing', { jurisdiction: 'GB' }, 'invalid_query', 'q'],
    ['q is one character after trimming', { q: '  a ', jurisdiction: 'GB' }, 'invalid_query', 'q'],
    ['q is longer than 200 characters', { q: 'x'.repeat(201), jurisdiction: 'GB' }, 'invalid_query', 'q'],
    ['q is given twice', { q: ['cpa', 'gates'], jurisdiction: 'GB' }, 'invalid_query', 'q'],
    ['q has nothing to search for', { q: '?! --', jurisdiction: 'GB' }, 'invalid_query', 'q'],
    ['jurisdiction is missing', { q: 'cpa' }, 'invalid_jurisdiction', 'jurisdiction'],
    ['jurisdiction is not GB or IE', { q: 'cpa', jurisdiction: 'FR' }, 'invalid_jurisdiction', 'jurisdiction'],
    ['limit is zero', { q: 'cpa', jurisdiction: 'GB', limit: '0' }, 'invalid_limit', 'limit'],
    ['limit is above 100', { q: 'cpa', jurisdiction: 'GB', limit: '101' }, 'invalid_limit', 'limit'],
    ['limit is not a whole number', { q: 'cpa', jurisdiction: 'GB', limit: '2.5' }, 'invalid_limit', 'limit'],
    ['limit is not a number', { q: 'cpa', jurisdiction: 'GB', limit: 'ten' }, 'invalid_limit', 'limit'],
    ['cursor is not one the API issued', { q: 'cpa', jurisdiction: 'GB', cursor: 'eyJ2IjoxfQ' }, 'invalid_cursor', 'cursor'],
  ])('answers 400 when %s', async (_case, query, code, parameter) => {
    const response = await call(search(), request('/v1/search', query));

    expect(response.status).toBe(400);
    expect(response.headers?.['content-type']).toBe('application/problem+json');
    expect(body(response)).toMatchObject({ status: 400, error: code, parameter });
    expect(body(response).detail).toEqual(expect.any(String));
  });

  it('answers 400 invalid_cursor for a cursor issued for another query', async () => {
    const first = await call(search(), request('/v1/search', { q: 'cpa gates', jurisdiction: 'GB', limit: '2' }));

    const response = await call(search(), request('/v1/search', { q: 'thistle', jurisdiction: 'GB', cursor: body(first).nextCursor }));

    expect(response.status).toBe(400);
    expect(body(response).error).toBe('invalid_cursor');
  });
});

describe('GET /v1/profile/{companyNumber}', () => {
  const profile = () => createProfileEndpoint({ companies, watches, clock: () => now });
  const get = (number: string, query: Record<string, string> = {}, headers: Record<string, string> = {}, clientId = 'client-1') =>
    call(profile(), request(`/v1/profile/${number}`, query, headers, { companyNumber: number }), clientId);
  const watchOf = async (clientId: string, pk: string) =>
    (await tables.doc.send(new GetCommand({ TableName: tables.names.watches, Key: { pk, sk: clientId } }))).Item;

  it('answers the profile with a strong ETag and records the watch', async () => {
    const response = await get('15380840', { jurisdiction: 'GB' }, {}, 'client-p1');

    expect(response.status).toBe(200);
    expect(body(response)).toEqual(await companies.get('GB', '15380840'));
    expect(Object.keys(body(response))).toEqual(
      expect.arrayContaining([
        'overview',
        'tradingStatus',
        'filingBehaviour',
        'riskOfFailure',
        'creditCapacity',
        'earlySignals',
        'version',
      ]),
    );
    expect(response.headers?.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(response.headers?.['cache-control']).toBe('private, no-cache');
    expect(await watchOf('client-p1', 'GB#15380840')).toMatchObject({ createdAt: now.toISOString(), lastFetchedAt: now.toISOString() });
  });

  it('reads the number in its canonical form and infers GB when only GB can hold it', async () => {
    const padded = await get('1234', { jurisdiction: 'gb' });
    const prefixed = await get('sc777');
    const eightDigits = await get('15380840');

    expect(body(padded).companyNumber).toBe('00001234');
    expect(body(prefixed).companyNumber).toBe('SC000777');
    expect(eightDigits.status).toBe(200);
  });

  it.each([
    ['the number is not a company number', 'ABC!', {}, 'invalid_company_number'],
    ['the number has too many digits for IE', '12345678', { jurisdiction: 'IE' }, 'invalid_company_number'],
    ['the number fits both registers and no jurisdiction is given', '654321', {}, 'jurisdiction_required'],
    ['the jurisdiction is unknown', '15380840', { jurisdiction: 'XX' }, 'invalid_jurisdiction'],
  ])('answers 400 when %s', async (_case, number, query, code) => {
    const response = await get(number, query);

    expect(response.status).toBe(400);
    expect(body(response).error).toBe(code);
  });

  it('answers 404 for an unknown company and leaves no watch behind', async () => {
    const response = await get('99999998', { jurisdiction: 'GB' }, {}, 'client-p2');

    expect(response.status).toBe(404);
    expect(body(response)).toMatchObject({ error: 'company_not_found', jurisdiction: 'GB', companyNumber: '99999998' });
    expect(body(response).detail).toContain('99999998');
    expect(await watchOf('client-p2', 'GB#99999998')).toBeUndefined();
  });

  it('keeps a watch that an earlier fetch made when the company is later not found', async () => {
    await watches.recordWatch('client-p3', 'GB', '99999997', '2024-01-01T00:00:00.000Z');

    const response = await get('99999997', { jurisdiction: 'GB' }, {}, 'client-p3');

    expect(response.status).toBe(404);
    expect(await watchOf('client-p3', 'GB#99999997')).toMatchObject({ createdAt: '2024-01-01T00:00:00.000Z' });
  });

  it('answers 304 with the ETag to a matching If-None-Match, in strong, weak, list and wildcard forms', async () => {
    const { etag } = (await get('654321', { jurisdiction: 'IE' })).headers as { etag: string };

    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await get('654321', { jurisdiction: 'IE' }, { 'if-none-match': header });
      expect(response.status, header).toBe(304);
      expect(response.body, header).toBeUndefined();
      expect(response.headers?.etag, header).toBe(etag);
    }
    expect((await get('654321', { jurisdiction: 'IE' }, { 'if-none-match': '"stale"' })).status).toBe(200);
  });

  it('records the watch on a 304 too', async () => {
    const { etag } = (await get('SC000777', {}, {}, 'client-p4')).headers as { etag: string };
    now = new Date('2024-05-02T08:00:00.000Z');

    await get('SC000777', {}, { 'if-none-match': etag }, 'client-p4');

    expect(await watchOf('client-p4', 'GB#SC000777')).toMatchObject({ lastFetchedAt: '2024-05-02T08:00:00.000Z' });
  });

  it('changes the ETag when the profile changes', async () => {
    const before = (await get('00001234', { jurisdiction: 'GB' })).headers?.etag;
    await companies.save(profileContent({ companyNumber: '00001234', name: 'Old Mill Bakery Limited', riskLevel: 'Severe' }));

    const after = await get('00001234', { jurisdiction: 'GB' }, { 'if-none-match': before as string });

    expect(after.status).toBe(200);
    expect(after.headers?.etag).not.toBe(before);
    expect(body(after).version).toBe(2);
  });
});

describe('GET /v1/watches', () => {
  const list = () => createWatchesEndpoint({ watches });

  it("lists the caller's watches page by page", async () => {
    for (const number of ['15380840', '00001234', 'SC000777']) {
      await createProfileEndpoint({ companies, watches, clock: () => now })(
        request(`/v1/profile/${number}`, { jurisdiction: 'GB' }, {}, { companyNumber: number }),
        principal('client-w1'),
      );
    }

    const first = await call(list(), request('/v1/watches', { limit: '2' }), 'client-w1');
    const second = await call(list(), request('/v1/watches', { limit: '2', cursor: body(first).nextCursor }), 'client-w1');

    expect(first.status).toBe(200);
    expect(body(first).items).toHaveLength(2);
    expect(body(second).items).toHaveLength(1);
    expect(body(second).nextCursor).toBeNull();
    expect([...body(first).items, ...body(second).items].map((watch: { companyNumber: string }) => watch.companyNumber).sort()).toEqual([
      '00001234',
      '15380840',
      'SC000777',
    ]);
    expect(body(first).items[0]).toEqual({
      jurisdiction: 'GB',
      companyNumber: expect.any(String),
      watchedSince: now.toISOString(),
      lastFetchedAt: now.toISOString(),
    });
  });

  it.each([
    [{ limit: '0' }, 'invalid_limit'],
    [{ limit: 'all' }, 'invalid_limit'],
    [{ cursor: 'bm90IGEgY3Vyc29y' }, 'invalid_cursor'],
  ])('answers 400 for %j', async (query, code) => {
    const response = await call(list(), request('/v1/watches', query), 'client-w1');

    expect(response.status).toBe(400);
    expect(body(response).error).toBe(code);
  });
});
