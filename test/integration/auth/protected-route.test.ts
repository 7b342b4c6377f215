import { beforeAll, describe, expect, it } from 'vitest';
import { type ProtectedHandler, protectedRoute } from '../../../shared/auth/protect';
import { RateLimiter } from '../../../shared/auth/rate-limit';
import type { Principal } from '../../../shared/auth/tokens';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { createProfileEndpoint } from '../../../shared/companies/profile-endpoint';
import { HttpError } from '../../../shared/http/errors';
import { json } from '../../../shared/http/responses';
import { clientsTable, companiesTable, watchesTable } from '../../../shared/storage/tables';
import { DynamoWatchStore } from '../../../shared/watches/dynamo-watch-store';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { activeClient, clientLookup } from '../../support/fakes';
import { httpRequest } from '../../support/http-fixtures';
import { profileContent } from '../../support/profile-fixture';

let tables: TestTables;
let limiter: RateLimiter;
let watches: DynamoWatchStore;
let companies: DynamoCompanyStore;

beforeAll(async () => {
  tables = await createTestTables([clientsTable, { ...companiesTable, stream: undefined }, watchesTable]);
  limiter = new RateLimiter(tables.doc, tables.names.clients as string);
  watches = new DynamoWatchStore(tables.doc, tables.names.watches as string);
  companies = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
  await companies.save(profileContent({ companyNumber: '15380840', name: 'CPA GATES LTD' }));
});

/** Protection whose bearer check accepts "Bearer <clientId>", with a real rate counter allowing `limit` a minute. */
function protection(limit: number) {
  return {
    verifier: { verify: async (token: string): Promise<Principal> => ({ clientId: token, tokenId: 't', expiresAt: 2_000_000_000 }) },
    limiter,
    clients: clientLookup(activeClient('unused')),
    defaultRateLimitPerMinute: limit,
  };
}

const call = (handler: ReturnType<typeof protectedRoute>, clientId: string, path = '/v1/anything', pathParameters = {}) =>
  handler(httpRequest({ path, pathParameters, headers: { authorization: `Bearer ${clientId}` } }));

describe('a route that starts before the rate limit answers', () => {
  it('runs alongside the counter, and its answer goes out only when the call is admitted', async () => {
    const order: string[] = [];
    const route: ProtectedHandler = async (_request, principal, admitted) => {
      order.push('route started');
      const allowed = await admitted;
      order.push(`admission known: ${allowed}`);
      return json(200, { clientId: principal.clientId });
    };
    const handler = protectedRoute(protection(1), route, { startBeforeLimit: true });
    const first = await call(handler, 'cli-alongside');
    const second = await call(handler, 'cli-alongside');

    expect(first.status).toBe(200);
    expect(first.headers?.ratelimit).toMatch(/r=0/);
    expect(second.status).toBe(429);
    expect(order).toEqual(['route started', 'admission known: true', 'route started', 'admission known: false']);
  });

  it('answers 429, not the route’s error, when a refused call’s route fails', async () => {
    const failing: ProtectedHandler = async () => {
      throw new HttpError(404, 'company_not_found', 'No such company.');
    };
    const handler = protectedRoute(protection(1), failing, { startBeforeLimit: true });
    expect((await call(handler, 'cli-failing')).status).toBe(404);
    expect((await call(handler, 'cli-failing')).status).toBe(429);
  });

  it('without the option, never starts a refused call’s route', async () => {
    let started = 0;
    const handler = protectedRoute(protection(1), async () => {
      started++;
      return json(200, {});
    });
    await call(handler, 'cli-serial');
    expect((await call(handler, 'cli-serial')).status).toBe(429);
    expect(started).toBe(1);
  });
});

describe('a profile fetch refused by the rate limit', () => {
  const handler = (limit: number) =>
    protectedRoute(protection(limit), createProfileEndpoint({ companies, watches, clock: () => new Date() }), { startBeforeLimit: true });
  const fetchProfile = (limit: number, clientId: string) =>
    call(handler(limit), clientId, '/v1/profile/15380840', { companyNumber: '15380840' });
  const watchOf = async (clientId: string) => (await watches.listWatches(clientId, { limit: 10 })).items[0];

  it('leaves no watch behind when it would have created one', async () => {
    const response = await fetchProfile(0, 'cli-new');

    expect(response.status).toBe(429);
    expect(await watchOf('cli-new')).toBeUndefined();
  });

  it('puts back the lastFetchedAt of a watch an earlier fetch made', async () => {
    const admitted = await fetchProfile(1, 'cli-old');
    const before = await watchOf('cli-old');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const refused = await fetchProfile(1, 'cli-old');

    expect(admitted.status).toBe(200);
    expect(refused.status).toBe(429);
    expect(await watchOf('cli-old')).toEqual(before);
  });
});
