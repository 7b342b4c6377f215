import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoCompanyStore } from '../../infra/operations/companies/dynamo-company-store';
import { createClient } from '../../packages/client/src/index';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { profileContent } from '../support/profile-fixture';
import type { BenchContext } from './support/context';
import { startRuntimeProcess } from './support/runtime-process';
import type { LatencyStats } from './support/stats';
import { latencyTable } from './support/table';
import { timeInterleaved } from './support/timing';

export const name = 'SDK (@bureau/client) beside a bare fetch of the same routes';

const COMPANIES = 50;
const GOAL = 1.05;

/**
 * What the SDK adds to a call: the same profile and search requests, with the same bearer token,
 * against the same local runtime in a process of its own, timed in alternating chunks so drift lands
 * on both alike. The SDK's profile cache is off for the like-for-like rows (each call a full 200, as
 * the bare fetch), then on beside a bare fetch that sends the same If-None-Match.
 */
export async function run(context: BenchContext): Promise<void> {
  const loop = context.scale === 'small' ? { warmup: 50, iterations: 1000 } : { warmup: 100, iterations: 4000 };
  const dataDir = mkdtempSync(join(tmpdir(), 'bureau-bench-sdk-'));
  const runtime = await startRuntimeProcess({
    ...process.env,
    BUREAU_DATA_DIR: dataDir,
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    // Thousands of calls a minute from one client: the default allowance of 600 would turn them into 429s.
    RATE_LIMIT_PER_MINUTE: '1000000',
  });
  try {
    const store = new DynamoCompanyStore(createDocumentClient(createDynamoClient(runtime.env)), runtime.tables.companies as string);
    const numbers = Array.from({ length: COMPANIES }, (_, index) => String(18_900_000 + index));
    for (const companyNumber of numbers)
      await store.save(profileContent({ companyNumber, name: `Benchmark Sdk ${companyNumber.slice(-2)} Trading Ltd` }));
    const pick = (call: number) => numbers[call % numbers.length] as string;
    const queries = ['benchmark sdk', 'benchmark sdk 1', 'benchmark sdk 2', 'benchmark sdk 3 trading'];
    const query = (call: number) => queries[call % queries.length] as string;

    const options = { baseUrl: runtime.baseUrl, ...runtime.demoClient };
    const sdk = createClient({ ...options, profileCacheSize: 0 });
    const cachingSdk = createClient(options);
    const authorization = `Bearer ${await sdk.accessToken()}`;
    const etags = new Map<string, string>();

    const bare = async (url: string, headers: Record<string, string> = {}) => {
      const response = await fetch(url, { headers: { authorization, ...headers } });
      if (response.status === 304) return undefined;
      if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
      const body = (await response.json()) as unknown;
      return { body, etag: response.headers.get('etag') };
    };
    const profileUrl = (companyNumber: string) => `${runtime.baseUrl}/v1/profile/${companyNumber}?jurisdiction=GB`;
    const searchUrl = (q: string) => `${runtime.baseUrl}/v1/search?${new URLSearchParams({ q, jurisdiction: 'GB' })}`;

    const [bareProfile, sdkProfile, bareConditional, sdkConditional] = await timeInterleaved(
      [
        (call: number) => bare(profileUrl(pick(call))),
        (call: number) => sdk.profile(pick(call), { jurisdiction: 'GB' }),
        async (call: number) => {
          const companyNumber = pick(call);
          const known = etags.get(companyNumber);
          const answer = await bare(profileUrl(companyNumber), known ? { 'if-none-match': known } : {});
          if (answer?.etag) etags.set(companyNumber, answer.etag);
        },
        (call: number) => cachingSdk.profile(pick(call), { jurisdiction: 'GB' }),
      ],
      loop,
    );
    const [bareSearch, sdkSearch] = await timeInterleaved(
      [(call: number) => bare(searchUrl(query(call))), (call: number) => sdk.search({ q: query(call), jurisdiction: 'GB' })],
      loop,
    );

    context.report(
      latencyTable(`Profile over HTTP, ${COMPANIES} companies, one call at a time`, [
        { label: 'baseline: bare fetch, 200', stats: bareProfile },
        { label: 'SDK profile(), cache off, 200', stats: sdkProfile },
        { label: 'bare fetch with If-None-Match, 304', stats: bareConditional },
        { label: 'SDK profile(), ETag cache, 304', stats: sdkConditional },
      ]),
    );
    context.report(
      latencyTable('Search over HTTP, one call at a time', [
        { label: 'baseline: bare fetch', stats: bareSearch },
        { label: 'SDK search()', stats: sdkSearch },
      ]),
    );
    const ratio = (sdkStats: LatencyStats, bareStats: LatencyStats) =>
      `p50 ${(sdkStats.p50 / bareStats.p50).toFixed(3)}x, mean ${(sdkStats.mean / bareStats.mean).toFixed(3)}x`;
    context.report(
      [
        `SDK / bare fetch (goal <= ${GOAL}x):`,
        `  profile, 200:   ${ratio(sdkProfile, bareProfile)}`,
        `  profile, 304:   ${ratio(sdkConditional, bareConditional)}`,
        `  search:         ${ratio(sdkSearch, bareSearch)}`,
      ].join('\n'),
    );
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
