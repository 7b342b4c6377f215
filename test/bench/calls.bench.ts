import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createClient } from '../../packages/client/src/index';
import { keyOf } from '../../shared/companies/stored-profile';
import type { BenchContext } from './support/context';
import { SEEDED_COMPANIES, withSeededRuntime } from './support/seeded-runtime';
import type { LatencyStats } from './support/stats';
import { latencyTable } from './support/table';
import { timeInterleaved } from './support/timing';

export const name = 'API calls over HTTP beside a bare GetItem of the same item';

const GOALS = { profile: 2.5, search: 4 };

/**
 * What a call costs as a user meets it, runtime overhead included, measured in round trips to the
 * database: a bare GetItem of the same profile item against the same DynamoDB Local is the unit,
 * timed in alternating chunks with bare fetches of the profile and search routes.
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

    const [baseline, profile, search] = await timeInterleaved(
      [
        (call: number) => getItem(pick(call)),
        (call: number) => bare(`${runtime.baseUrl}/v1/profile/${pick(call)}?jurisdiction=GB`),
        (call: number) => bare(`${runtime.baseUrl}/v1/search?${new URLSearchParams({ q: query(call), jurisdiction: 'GB' })}`),
      ],
      loop,
    );
    context.report(
      latencyTable(`Calls over HTTP, ${SEEDED_COMPANIES} companies, one call at a time`, [
        { label: 'baseline: bare GetItem of the profile item', stats: baseline },
        { label: 'GET /v1/profile/{n}, bare fetch', stats: profile },
        { label: 'GET /v1/search, bare fetch', stats: search },
      ]),
    );
    const ratio = (stats: LatencyStats) =>
      `p50 ${(stats.p50 / baseline.p50).toFixed(2)}x, mean ${(stats.mean / baseline.mean).toFixed(2)}x`;
    context.report(
      [
        'Call / bare GetItem:',
        `  profile: ${ratio(profile)} (goal <= ${GOALS.profile}x)`,
        `  search:  ${ratio(search)} (goal <= ${GOALS.search}x)`,
      ].join('\n'),
    );
  });
}
