import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repositoryRoot } from '../../infra/local/paths';
import { startLocalRuntime } from '../../infra/local/runtime';
import { DynamoCompanyStore } from '../../infra/operations/companies/dynamo-company-store';
import { applyDemoChange } from '../../infra/operations/demo/company-changes';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { profileContent } from '../support/profile-fixture';
import { startWebhookReceiver } from '../support/webhook-receiver';
import { writeLineChart } from './support/charts';
import type { BenchContext } from './support/context';
import { percentile } from './support/stats';

export const name = 'Soak: mixed API traffic and a steady stream of changes for SOAK_MINUTES (default 30)';

const COMPANIES = 20;
const CHANGE_EVERY_MS = 2000;
const API_EVERY_MS = 200;
/** The schedule compressed so a failed delivery is retried within the run: 1 s, 2 s, 4 s, … */
const RETRY_DELAYS = '1,2,4,8,15,30,30,30,30,30,30';
const DRAIN_MS = 180_000;
const ENDPOINTS = [
  { path: '/instant', delayMs: 0, failShare: 0 },
  { path: '/slow', delayMs: 20, failShare: 0 },
  { path: '/flaky', delayMs: 0, failShare: 0.1 },
] as const;

interface Minute {
  minute: number;
  deliveries: number;
  latencies: number[];
  api: number[];
  apiErrors: number;
  rssMb: number;
  heapMb: number;
}

const stats = (values: number[], fraction: number) =>
  values.length === 0
    ? 0
    : percentile(
        [...values].sort((a, b) => a - b),
        fraction,
      );
const round = (value: number) => Math.round(value * 10) / 10;

export async function run(context: BenchContext): Promise<void> {
  const minutes = Number(process.env.SOAK_MINUTES ?? 30);
  if (!(minutes > 0)) throw new Error('SOAK_MINUTES must be a positive number of minutes');
  const receiver = await startWebhookReceiver();
  const dataDir = mkdtempSync(join(tmpdir(), 'bureau-soak-'));
  const runtime = await startLocalRuntime({
    port: 0,
    // On disk, as npm start runs: DynamoDB Local's file and the queues' journal.
    dataDir,
    quiet: true,
    queueWaitSeconds: 1,
    environment: { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR', DELIVERY_RETRY_DELAYS: RETRY_DELAYS },
  });
  try {
    const doc = createDocumentClient(createDynamoClient(runtime.env));
    const store = new DynamoCompanyStore(doc, runtime.tables.companies as string);
    const numbers = Array.from({ length: COMPANIES }, (_, index) => String(17_000_001 + index));
    for (const [index, number] of numbers.entries())
      await store.save(profileContent({ companyNumber: number, name: `Soak Company ${index} Ltd` }));

    const fetchToken = async () => {
      const response = await fetch(`${runtime.baseUrl}/v1/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: runtime.demoClient.clientId,
          client_secret: runtime.demoClient.clientSecret,
        }),
      });
      return ((await response.json()) as { access_token: string }).access_token;
    };
    let token = await fetchToken();
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${runtime.baseUrl}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
      });
    for (const number of numbers) await (await api(`/v1/profile/${number}?jurisdiction=GB`)).arrayBuffer();
    for (const endpoint of ENDPOINTS) {
      await (
        await api('/v1/webhooks', { method: 'POST', body: JSON.stringify({ name: endpoint.path, url: `${receiver.url}${endpoint.path}` }) })
      ).arrayBuffer();
    }
    const started = Date.now();
    const ends = started + minutes * 60_000;
    const byMinute: Minute[] = [];
    const minuteOf = (at: number) => {
      const index = Math.floor((at - started) / 60_000);
      while (byMinute.length <= index)
        byMinute.push({ minute: byMinute.length + 1, deliveries: 0, latencies: [], api: [], apiErrors: 0, rssMb: 0, heapMb: 0 });
      return byMinute[index] as Minute;
    };
    // Accepted deliveries by endpoint and event key; the first arrival of each event at the instant endpoint times the pipeline.
    const accepted = new Set<string>();
    const changedAt = new Map<string, number>();
    const arrived = new Set<string>();
    let random = 42;
    const nextRandom = () => {
      random = (random * 1_103_515_245 + 12_345) % 2 ** 31;
      return random / 2 ** 31;
    };
    receiver.respondWith((delivery) => {
      const endpoint = ENDPOINTS.find((candidate) => candidate.path === delivery.path);
      const failed = endpoint !== undefined && nextRandom() < endpoint.failShare;
      const key = (JSON.parse(delivery.body) as { idempotencyKey: string }).idempotencyKey;
      if (!failed) accepted.add(`${delivery.path} ${key}`);
      const changed = changedAt.get(key.split(':').slice(1, 3).join(':'));
      if (delivery.path === '/instant' && !arrived.has(key) && changed !== undefined) {
        arrived.add(key);
        minuteOf(delivery.receivedAt).latencies.push(delivery.receivedAt - changed);
      }
      return { status: failed ? 500 : 200, ...(endpoint?.delayMs ? { delayMs: endpoint.delayMs } : {}) };
    });

    context.log(`soaking for ${minutes} minute(s): a change every ${CHANGE_EVERY_MS / 1000} s, an API call every ${API_EVERY_MS} ms…`);

    const changes = (async () => {
      for (let n = 0; Date.now() < ends; n++) {
        const number = numbers[n % numbers.length] as string;
        changedAt.set(`GB:${number}`, Date.now());
        await applyDemoChange(store, 'GB', number, n % 5 === 4 ? 'new-signal' : 'risk');
        await new Promise((resolve) => setTimeout(resolve, CHANGE_EVERY_MS));
      }
    })();
    const calls = [
      () => api(`/v1/search?jurisdiction=GB&q=${encodeURIComponent('soak company')}`),
      () => api(`/v1/profile/${numbers[Math.floor(nextRandom() * numbers.length)]}?jurisdiction=GB`),
      () => api('/v1/watches'),
      () => api('/v1/webhooks'),
      () => api('/v1/events?limit=20'),
    ];
    const traffic = (async () => {
      for (let n = 0; Date.now() < ends; n++) {
        const at = Date.now();
        if (n % 300 === 299) token = await fetchToken();
        const response = await (calls[n % calls.length] as () => Promise<Response>)();
        await response.arrayBuffer();
        const minute = minuteOf(at);
        minute.api.push(Date.now() - at);
        if (response.status >= 500) minute.apiErrors += 1;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, API_EVERY_MS - (Date.now() - at))));
      }
    })();
    let counted = 0;
    const sampler = setInterval(() => {
      const minute = minuteOf(Date.now() - 1);
      const memory = process.memoryUsage();
      minute.rssMb = Math.max(minute.rssMb, memory.rss / 2 ** 20);
      minute.heapMb = Math.max(minute.heapMb, memory.heapUsed / 2 ** 20);
      const arrived = receiver.deliveries.slice(counted);
      counted += arrived.length;
      for (const delivery of arrived) minuteOf(delivery.receivedAt).deliveries += 1;
    }, 5000);
    await Promise.all([changes, traffic]);

    // Every event the client has, by the API, and every endpoint it should have reached.
    const expected = new Set<string>();
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page = (await (await api(`/v1/events?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).json()) as {
        items: Array<{ idempotencyKey: string; occurredAt: string }>;
        nextCursor: string | null;
      };
      for (const item of page.items)
        if (Date.parse(item.occurredAt) >= started)
          for (const endpoint of ENDPOINTS) expected.add(`${endpoint.path} ${item.idempotencyKey}`);
      cursor = page.nextCursor;
    }
    const drainEnds = Date.now() + DRAIN_MS;
    while ([...expected].some((pair) => !accepted.has(pair)) && Date.now() < drainEnds)
      await new Promise((resolve) => setTimeout(resolve, 1000));
    clearInterval(sampler);
    const lost = [...expected].filter((pair) => !accepted.has(pair));

    writeReport(context, { minutes, byMinute, expected: expected.size, lost: lost.length, received: receiver.deliveries.length });
    if (lost.length > 0) context.log(`lost: ${lost.slice(0, 10).join(', ')}`);
  } finally {
    await runtime.stop();
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function writeReport(
  context: BenchContext,
  result: { minutes: number; byMinute: Minute[]; expected: number; lost: number; received: number },
): void {
  // The drain after the last minute has no traffic of its own: it is in the verdict, not the charts.
  const rows = result.byMinute.filter((minute) => minute.api.length > 0).map((minute) => ({
    minute: minute.minute,
    deliveries: minute.deliveries,
    p50: round(stats(minute.latencies, 0.5)),
    p99: round(stats(minute.latencies, 0.99)),
    apiP50: round(stats(minute.api, 0.5)),
    apiP99: round(stats(minute.api, 0.99)),
    apiCalls: minute.api.length,
    apiErrors: minute.apiErrors,
    rssMb: round(minute.rssMb),
    heapMb: round(minute.heapMb),
  }));
  const steady = rows.slice(1);
  const firstHalf = steady.slice(0, Math.max(1, Math.floor(steady.length / 2)));
  const secondHalf = steady.slice(Math.floor(steady.length / 2));
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  const heapGrowth = round(mean(secondHalf.map((row) => row.heapMb)) - mean(firstHalf.map((row) => row.heapMb)));
  const p99Ratio = round(mean(secondHalf.map((row) => row.p99)) / Math.max(1, mean(firstHalf.map((row) => row.p99))));
  const table = [
    '| minute | deliveries | change→delivery p50 ms | p99 ms | API calls | API p50 ms | API p99 ms | API 5xx | RSS MB | heap MB |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.minute} | ${row.deliveries} | ${row.p50} | ${row.p99} | ${row.apiCalls} | ${row.apiP50} | ${row.apiP99} | ${row.apiErrors} | ${row.rssMb} | ${row.heapMb} |`,
    ),
  ].join('\n');
  const docs = join(repositoryRoot, 'docs');
  mkdirSync(join(docs, 'soak'), { recursive: true });
  writeLineChart(join(docs, 'soak', 'deliveries.png'), 'Deliveries received per minute', 'deliveries', [
    { label: 'all endpoints', colour: '#1f6feb', points: rows.map((row) => [row.minute, row.deliveries]) },
  ]);
  writeLineChart(join(docs, 'soak', 'latency.png'), 'Latency over time', 'milliseconds', [
    { label: 'change → delivery p50', colour: '#1f6feb', points: rows.map((row) => [row.minute, row.p50]) },
    { label: 'change → delivery p99', colour: '#d1242f', points: rows.map((row) => [row.minute, row.p99]) },
    { label: 'API p99', colour: '#1a7f37', points: rows.map((row) => [row.minute, row.apiP99]) },
  ]);
  writeLineChart(join(docs, 'soak', 'memory.png'), 'Runtime memory', 'MB', [
    { label: 'RSS', colour: '#8250df', points: rows.map((row) => [row.minute, row.rssMb]) },
    { label: 'heap used', colour: '#bf8700', points: rows.map((row) => [row.minute, row.heapMb]) },
  ]);
  const verdict = [
    `- **Lost: ${result.lost}** of ${result.expected} expected deliveries (every event the client's \`GET /v1/events\` lists, to each of 3 endpoints), after a drain of at most ${DRAIN_MS / 60_000} minutes; ${result.received} POSTs received in all, retries of the 10 % failures included.`,
    `- **Memory:** heap used ${heapGrowth >= 0 ? 'grew' : 'fell'} by ${Math.abs(heapGrowth)} MB between the first and second half of the run (means of per-minute peaks).`,
    `- **p99 change → delivery:** second half ${p99Ratio}× the first.`,
    `- **API:** ${rows.reduce((sum, row) => sum + row.apiErrors, 0)} answers of 5xx in ${rows.reduce((sum, row) => sum + row.apiCalls, 0)} calls.`,
  ].join('\n');
  const report = `# Soak: ${result.minutes} minutes of mixed traffic and changes

Run with \`SOAK_MINUTES=${result.minutes} npm run bench -- soak\` on ${new Date().toISOString().slice(0, 10)}, this 2-core machine. The local runtime,
as \`npm start\` runs it (DynamoDB Local on disk, the journaled local queues, the functions in worker
threads; memory is this process's, DynamoDB Local's Java process aside), serves an API call every ${API_EVERY_MS} ms (search, profile, watches, webhooks, events; a new token
every 300 calls) while a watched company changes every ${CHANGE_EVERY_MS / 1000} s (${COMPANIES} companies, risk changes and
new early signals). Three endpoints receive every event: one answers at once, one after 20 ms, one
fails 10 % of attempts with a 500 (retried on a schedule compressed to \`${RETRY_DELAYS}\` s).

${verdict}

![Deliveries per minute](soak/deliveries.png)
![Latency over time](soak/latency.png)
![Memory over time](soak/memory.png)

${table}
`;
  writeFileSync(join(docs, 'soak.md'), report);
  context.report(`${verdict}\n\n${table}\n`);
}
