import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '../../packages/client/src/index';
import type { BenchContext } from './support/context';
import { SEEDED_COMPANIES, withSeededRuntime } from './support/seeded-runtime';
import type { LatencyStats } from './support/stats';
import { latencyTable } from './support/table';
import { timeInterleaved } from './support/timing';

export const name = 'SDK (@bureau/client) beside a bare fetch of the same routes';

const GOAL = 1.05;

/**
 * What the SDK adds to a call: the same profile and search requests, with the same bearer token,
 * against the same local runtime in a process of its own, timed in alternating chunks so drift lands
 * on both alike. The SDK's profile cache is off for the like-for-like rows (each call a full 200, as
 * the bare fetch), then on beside a bare fetch that sends the same If-None-Match.
 */
export async function run(context: BenchContext): Promise<void> {
  const loop = context.scale === 'small' ? { warmup: 50, iterations: 1000, chunk: 10 } : { warmup: 100, iterations: 4000, chunk: 10 };
  await withSeededRuntime('Sdk', 18_900_000, async ({ runtime, pick, query }) => {
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
      latencyTable(`Profile over HTTP, ${SEEDED_COMPANIES} companies, one call at a time`, [
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
    const sample = await fetch(profileUrl(pick(0)), { headers: { authorization } });
    const [bareFixed, sdkFixed] = await againstFixedAnswer(await sample.text(), sample.headers.get('etag') ?? '"1"', loop);
    context.report(
      latencyTable('Profile from a loopback server answering a fixed body: what the client alone costs', [
        { label: 'baseline: bare fetch, 200', stats: bareFixed },
        { label: 'SDK profile(), cache off, 200', stats: sdkFixed },
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
        `  fixed answer:   ${ratio(sdkFixed, bareFixed)} (${((sdkFixed.mean - bareFixed.mean) * 1000).toFixed(0)} µs a call)`,
      ].join('\n'),
    );
  });
}

/**
 * The same profile call against a server that does no work (a fixed body with its ETag, and a token):
 * the runtime's own time and its variance drop out, leaving what the SDK adds to fetch.
 */
async function againstFixedAnswer(
  body: string,
  etag: string,
  loop: { warmup: number; iterations: number },
): Promise<readonly [LatencyStats, LatencyStats]> {
  const token = JSON.stringify({ access_token: 'fixed', token_type: 'Bearer', expires_in: 3600 });
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const isToken = request.url === '/v1/oauth/token';
      response.writeHead(200, { 'content-type': 'application/json', ...(isToken ? {} : { etag }) }).end(isToken ? token : body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const sdk = createClient({ baseUrl, clientId: 'cli_fixed', clientSecret: 'bsk_fixed', profileCacheSize: 0 });
    const bare = async () => {
      const response = await fetch(`${baseUrl}/v1/profile/18900000?jurisdiction=GB`, { headers: { authorization: 'Bearer fixed' } });
      return response.json();
    };
    return await timeInterleaved([bare, () => sdk.profile('18900000', { jurisdiction: 'GB' })], loop);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
