import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { protection } from '../../functions/protection';
import { createClient } from '../../packages/client/src/index';
import { protectedRoute } from '../../shared/auth/protect';
import { clientRateKey } from '../../shared/auth/rate-limit';
import { DynamoNameIndex } from '../../shared/companies/dynamo-name-index';
import { DynamoProfileReader } from '../../shared/companies/dynamo-profile-reader';
import { createProfileEndpoint } from '../../shared/companies/profile-endpoint';
import { createSearchEndpoint } from '../../shared/companies/search-endpoint';
import { keyOf } from '../../shared/companies/stored-profile';
import type { HttpRequest } from '../../shared/http/types';
import { DynamoWatchStore } from '../../shared/watches/dynamo-watch-store';
import type { BenchContext } from './support/context';
import { SEEDED_COMPANIES, withSeededRuntime } from './support/seeded-runtime';
import type { LatencyStats } from './support/stats';
import { latencyTable } from './support/table';
import { timeInterleaved } from './support/timing';

export const name = 'API calls over HTTP beside a bare GetItem of the same item';

const GOALS = { profile: 2.5, search: 4 };

/** The request a route sees once the gateway has turned an HTTP call into it. */
function routeRequest(path: string, pathParameters: Record<string, string>, query: URLSearchParams, authorization: string): HttpRequest {
  return { method: 'GET', path, pathParameters, headers: { authorization }, query, body: '', sourceIp: '127.0.0.1', requestId: 'bench' };
}

/**
 * What a call costs as a user meets it, runtime overhead included, measured in round trips to the
 * database: a bare GetItem of the same profile item against the same DynamoDB Local is the unit,
 * timed in alternating chunks with bare fetches of the profile and search routes. Where the time
 * goes: each route also called in this process, and the profile call's DynamoDB requests alone.
 */
export async function run(context: BenchContext): Promise<void> {
  const loop = context.scale === 'small' ? { warmup: 50, iterations: 1000, chunk: 10 } : { warmup: 100, iterations: 4000, chunk: 10 };
  await withSeededRuntime('Calls', 18_800_000, async ({ runtime, documents, pick, query }) => {
    const companiesTable = runtime.tables.companies as string;
    const authorization = `Bearer ${await createClient({ baseUrl: runtime.baseUrl, ...runtime.demoClient }).accessToken()}`;
    const bare = async (url: string) => {
      const response = await fetch(url, { headers: { authorization } });
      if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
      return response.json();
    };
    const getItem = async (companyNumber: string) => {
      const { Item } = await documents.send(
        new GetCommand({ TableName: companiesTable, Key: keyOf({ jurisdiction: 'GB', companyNumber }) }),
      );
      if (!Item) throw new Error(`no item for ${companyNumber}`);
    };

    // The profile and search functions' own composition, called in this process: what a call costs
    // without HTTP, the gateway and the function instance's thread (functions/*/handler.ts).
    let requests = 0;
    documents.middlewareStack.add(
      (next) => (args) => {
        requests++;
        return next(args);
      },
      { step: 'initialize', name: 'countRequests' },
    );
    const settings = { ...runtime.env, RATE_LIMIT_PER_MINUTE: '1000000' };
    const guard = protection(documents, settings);
    const reader = new DynamoProfileReader(documents, companiesTable);
    const watches = new DynamoWatchStore(documents, runtime.tables.watches as string);
    const profileRoute = protectedRoute(guard, createProfileEndpoint({ companies: reader, watches, clock: () => new Date() }), {
      startBeforeLimit: true,
    });
    const searchRoute = protectedRoute(guard, createSearchEndpoint({ index: new DynamoNameIndex(documents, companiesTable) }), {
      startBeforeLimit: true,
    });
    const answered = async (response: Promise<{ status: number }>) => {
      const { status } = await response;
      if (status !== 200) throw new Error(`the route answered ${status}`);
    };
    const inProcessProfile = (call: number) =>
      answered(
        profileRoute(
          routeRequest('/v1/profile', { companyNumber: pick(call) }, new URLSearchParams({ jurisdiction: 'GB' }), authorization),
        ),
      );
    const inProcessSearch = (call: number) =>
      answered(searchRoute(routeRequest('/v1/search', {}, new URLSearchParams({ q: query(call), jurisdiction: 'GB' }), authorization)));
    // The profile call's DynamoDB requests alone, sent at once as the route sends them: the floor of
    // any profile call that counts the rate, records the watch and reads the item.
    const clientId = runtime.demoClient.clientId;
    const profileRequests = (call: number) =>
      Promise.all([
        guard.limiter.consume(clientRateKey(clientId), 1_000_000),
        watches.recordWatch(clientId, 'GB', pick(call), new Date().toISOString()),
        reader.getRecord('GB', pick(call)),
      ]);
    const requestsPerCall = async (operation: (call: number) => Promise<unknown>) => {
      const before = requests;
      for (let call = 0; call < 20; call++) await operation(call);
      return (requests - before) / 20;
    };
    await inProcessProfile(0);
    await inProcessSearch(0);
    const perCall = { profile: await requestsPerCall(inProcessProfile), search: await requestsPerCall(inProcessSearch) };

    const [baseline, floor, profileInProcess, profile, searchInProcess, search] = await timeInterleaved(
      [
        (call: number) => getItem(pick(call)),
        profileRequests,
        inProcessProfile,
        (call: number) => bare(`${runtime.baseUrl}/v1/profile/${pick(call)}?jurisdiction=GB`),
        inProcessSearch,
        (call: number) => bare(`${runtime.baseUrl}/v1/search?${new URLSearchParams({ q: query(call), jurisdiction: 'GB' })}`),
      ],
      loop,
    );
    context.report(
      latencyTable(`Calls over HTTP, ${SEEDED_COMPANIES} companies, one call at a time`, [
        { label: 'baseline: bare GetItem of the profile item', stats: baseline },
        { label: "profile's 3 DynamoDB requests at once (floor)", stats: floor },
        { label: 'profile route in process (no HTTP, no runtime)', stats: profileInProcess },
        { label: 'GET /v1/profile/{n}, bare fetch', stats: profile },
        { label: 'search route in process (no HTTP, no runtime)', stats: searchInProcess },
        { label: 'GET /v1/search, bare fetch', stats: search },
      ]),
    );
    const ratio = (stats: LatencyStats) =>
      `p50 ${(stats.p50 / baseline.p50).toFixed(2)}x, mean ${(stats.mean / baseline.mean).toFixed(2)}x`;
    context.report(
      [
        'Call / bare GetItem:',
        `  profile: ${ratio(profile)} (goal <= ${GOALS.profile}x); in process ${ratio(profileInProcess)}; its DynamoDB requests alone ${ratio(floor)}`,
        `  search:  ${ratio(search)} (goal <= ${GOALS.search}x); in process ${ratio(searchInProcess)}`,
        `DynamoDB requests per call: profile ${perCall.profile}, search ${perCall.search}`,
      ].join('\n'),
    );
  });
}
