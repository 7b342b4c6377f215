import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyDemoChange } from '../../demo/company-changes';
import { repositoryRoot } from '../../local/paths';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import type { CompanyProfile } from '../../shared/companies/profile';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { changeEvents } from '../../shared/webhooks/events';
import { profileContent } from '../support/profile-fixture';
import { startWebhookReceiver } from '../support/webhook-receiver';
import { writeLineChart } from './support/charts';
import type { BenchContext } from './support/context';
import { startRuntimeProcess } from './support/runtime-process';
import { percentile } from './support/stats';

export const name = 'Soak: mixed API traffic and a steady stream of changes for SOAK_MINUTES (default 30)';

const COMPANIES = 20;
const CHANGE_EVERY_MS = 2000;
const API_EVERY_MS = 200;
/** The schedule compressed so a failed delivery is retried within the run: 1 s, 2 s, 4 s, … */
const RETRY_DELAYS = '1,2,4,8,15,30,30,30,30,30,30';
/** After the last change: long enough for a delivery failed three times in a row to get its fourth attempt. */
const DRAIN_MS = 120_000;
/** Memory sampled this often; the table shows each minute's peak. */
const SAMPLE_EVERY_MS = 5000;
/**
 * Verdicts compare the first and second halves of the run after its warm-up (JIT, connection pools,
 * caches): memory is flat when RSS grows by at most 10 % and the heap by at most 10 MB, p99 stable when
 * the second half's is at most 1.5 times the first's, or within 250 ms of it (a short run's halves
 * hold few samples, so their p99 is close to their slowest one).
 */
const MAX_RSS_GROWTH = 0.1;
const MAX_HEAP_GROWTH_MB = 10;
const MAX_P99_RATIO = 1.5;
const P99_SLACK_MS = 250;
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
  anonMb: number;
  heapMb: number;
}

/** Timed values: when each was seen, to split a run into halves. */
interface Sample {
  readonly at: number;
  readonly value: number;
}

interface MemorySample {
  readonly at: number;
  readonly rssMb: number;
  readonly anonMb: number;
  readonly heapMb: number;
}

const stats = (values: readonly number[], fraction: number) =>
  values.length === 0
    ? 0
    : percentile(
        [...values].sort((a, b) => a - b),
        fraction,
      );
const round = (value: number) => Math.round(value * 10) / 10;
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function run(context: BenchContext): Promise<void> {
  const minutes = Number(process.env.SOAK_MINUTES ?? 30);
  if (!(minutes > 0)) throw new Error('SOAK_MINUTES must be a positive number of minutes');
  const setupStarted = performance.now();
  const receiver = await startWebhookReceiver();
  const dataDir = mkdtempSync(join(tmpdir(), 'bureau-soak-'));
  // A process of its own, on disk as npm start runs it (DynamoDB Local's file, the queues' journal):
  // the memory measured is the runtime's, not this load generator's with its record of every delivery.
  const runtime = await startRuntimeProcess({
    ...process.env,
    BUREAU_DATA_DIR: dataDir,
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    DELIVERY_RETRY_DELAYS: RETRY_DELAYS,
  }).catch(async (error: unknown) => {
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  const runtimeStartSeconds = (performance.now() - setupStarted) / 1000;
  try {
    const doc = createDocumentClient(createDynamoClient(runtime.env));
    const store = new DynamoCompanyStore(doc, runtime.tables.companies as string);
    const numbers = Array.from({ length: COMPANIES }, (_, index) => String(17_000_001 + index));
    for (const [index, number] of numbers.entries())
      await store.save(profileContent({ companyNumber: number, name: `Soak Company ${index} Ltd` }));

    const tokenRequest = () =>
      fetch(`${runtime.baseUrl}/v1/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: runtime.demoClient.clientId,
          client_secret: runtime.demoClient.clientSecret,
        }),
      });
    let token = ((await (await tokenRequest()).json()) as { access_token: string }).access_token;
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${runtime.baseUrl}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
      });
    // A profile read is what makes the demo client watch the company.
    for (const number of numbers) await (await api(`/v1/profile/${number}?jurisdiction=GB`)).arrayBuffer();
    for (const endpoint of ENDPOINTS) {
      const created = await api('/v1/webhooks', {
        method: 'POST',
        body: JSON.stringify({ name: endpoint.path, url: `${receiver.url}${endpoint.path}` }),
      });
      if (created.status !== 201) throw new Error(`subscribing ${endpoint.path} answered ${created.status}: ${await created.text()}`);
      await created.arrayBuffer();
    }
    // One change delivered everywhere before the clock starts: the functions' first instances start
    // here, not in the first minute's numbers, and the time it takes is reported.
    const warmUpStarted = performance.now();
    const warmBefore = (await store.get('GB', numbers[0] as string)) as CompanyProfile;
    const warmAfter = await applyDemoChange(store, 'GB', numbers[0] as string, 'risk');
    const warmKeys = new Set(changeEvents(warmBefore, warmAfter).map((event) => event.idempotencyKey));
    await receiver.waitFor(
      (delivery) => warmKeys.has((JSON.parse(delivery.body) as { idempotencyKey: string }).idempotencyKey),
      warmKeys.size * ENDPOINTS.length,
      DRAIN_MS,
    );
    const firstDeliverySeconds = (performance.now() - warmUpStarted) / 1000;
    const warmUpDeliveries = receiver.deliveries.length;
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    const started = Date.now();
    const ends = started + minutes * 60_000;
    const warmUpEnds = started + Math.min(2 * 60_000, (minutes * 60_000) / 2);
    const byMinute: Minute[] = [];
    const minuteOf = (at: number) => {
      const index = Math.max(0, Math.floor((at - started) / 60_000));
      while (byMinute.length <= index)
        byMinute.push({ minute: byMinute.length + 1, deliveries: 0, latencies: [], api: [], apiErrors: 0, rssMb: 0, anonMb: 0, heapMb: 0 });
      return byMinute[index] as Minute;
    };
    const latencies: Sample[] = [];
    const memory: MemorySample[] = [];

    // What must arrive: each (endpoint, event) pair, from the events each change makes and from the
    // client's event list; `missing` empties as they are accepted, and the drain awaits that.
    const expected = new Set<string>();
    const accepted = new Set<string>();
    const missing = new Set<string>();
    let drained: (() => void) | undefined;
    const expectEvent = (key: string) => {
      for (const endpoint of ENDPOINTS) {
        const pair = `${endpoint.path} ${key}`;
        expected.add(pair);
        if (!accepted.has(pair)) missing.add(pair);
      }
    };
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
      minuteOf(delivery.receivedAt).deliveries += 1;
      if (!failed) {
        const pair = `${delivery.path} ${key}`;
        accepted.add(pair);
        missing.delete(pair);
        if (missing.size === 0) drained?.();
      }
      // Keys name the company (kind:GB:number:…); each company changes only every 40 s, far apart from its deliveries.
      const changed = changedAt.get(key.split(':').slice(1, 3).join(':'));
      if (delivery.path === '/instant' && !arrived.has(key) && changed !== undefined) {
        arrived.add(key);
        minuteOf(delivery.receivedAt).latencies.push(delivery.receivedAt - changed);
        latencies.push({ at: delivery.receivedAt, value: delivery.receivedAt - changed });
      }
      return { status: failed ? 500 : 200, ...(endpoint?.delayMs ? { delayMs: endpoint.delayMs } : {}) };
    });

    context.log(
      `ready after ${setupSeconds.toFixed(1)} s (runtime ${runtimeStartSeconds.toFixed(1)} s, first change delivered in ${firstDeliverySeconds.toFixed(1)} s); soaking for ${minutes} minute(s): a change every ${CHANGE_EVERY_MS / 1000} s, an API call every ${API_EVERY_MS} ms…`,
    );

    let changesMade = 0;
    const changes = (async () => {
      // A fixed rate: the next change is due CHANGE_EVERY_MS after the previous one was due, however long a change takes.
      for (let n = 0; started + n * CHANGE_EVERY_MS < ends; n++) {
        await pause(Math.max(0, started + n * CHANGE_EVERY_MS - Date.now()));
        const number = numbers[n % numbers.length] as string;
        const before = await store.get('GB', number);
        changedAt.set(`GB:${number}`, Date.now());
        const after = await applyDemoChange(store, 'GB', number, n % 5 === 4 ? 'new-signal' : 'risk');
        if (before) for (const event of changeEvents(before, after)) expectEvent(event.idempotencyKey);
        changesMade += 1;
      }
    })();
    const calls = [
      async () => {
        const response = await tokenRequest();
        if (response.ok) token = ((await response.clone().json()) as { access_token: string }).access_token;
        return response;
      },
      () => api(`/v1/search?jurisdiction=GB&q=${encodeURIComponent('soak company')}`),
      () => api(`/v1/profile/${numbers[Math.floor(nextRandom() * numbers.length)]}?jurisdiction=GB`),
      () => api('/v1/watches'),
      () => api('/v1/webhooks'),
      () => api('/v1/events?limit=20'),
    ];
    const traffic = (async () => {
      for (let n = 0; Date.now() < ends; n++) {
        const at = Date.now();
        const response = await (calls[n % calls.length] as () => Promise<Response>)();
        await response.arrayBuffer();
        const minute = minuteOf(at);
        minute.api.push(Date.now() - at);
        if (response.status >= 500) minute.apiErrors += 1;
        await pause(Math.max(0, API_EVERY_MS - (Date.now() - at)));
      }
    })();
    const sample = async () => {
      const at = Date.now();
      const { rssMb, anonMb, heapMb } = await runtime.memory();
      memory.push({ at, rssMb, anonMb, heapMb });
      const minute = minuteOf(at - 1);
      minute.rssMb = Math.max(minute.rssMb, rssMb);
      minute.anonMb = Math.max(minute.anonMb, anonMb);
      minute.heapMb = Math.max(minute.heapMb, heapMb);
    };
    const sampling = (async () => {
      for (let n = 1; started + n * SAMPLE_EVERY_MS <= ends; n++) {
        await pause(Math.max(0, started + n * SAMPLE_EVERY_MS - Date.now()));
        await sample();
      }
    })();
    await Promise.all([changes, traffic, sampling]);

    // Every event the client's list has since the start, too: an event made but never listed is counted, as is one listed but never made here.
    let listed = 0;
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page = (await (await api(`/v1/events?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).json()) as {
        items: Array<{ idempotencyKey: string; occurredAt: string }>;
        nextCursor: string | null;
      };
      for (const item of page.items)
        if (Date.parse(item.occurredAt) >= started) {
          listed += 1;
          expectEvent(item.idempotencyKey);
        }
      cursor = page.nextCursor;
    }
    const made = expected.size / ENDPOINTS.length;
    const drainStarted = Date.now();
    if (missing.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => {
          drained = resolve;
        }),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, DRAIN_MS);
        }),
      ]);
      clearTimeout(timer);
    }
    const drainSeconds = (Date.now() - drainStarted) / 1000;
    const lost = [...missing];

    writeReport(context, {
      minutes,
      started,
      setupSeconds,
      runtimeStartSeconds,
      firstDeliverySeconds,
      drainSeconds,
      byMinute,
      latencies,
      memory,
      warmUpEnds,
      changes: changesMade,
      events: made,
      listed,
      expected: expected.size,
      lost: lost.length,
      received: receiver.deliveries.length - warmUpDeliveries,
    });
    if (lost.length > 0) throw new Error(`${lost.length} deliveries lost, e.g. ${lost.slice(0, 10).join(', ')}`);
  } finally {
    await runtime.stop();
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface SoakResult {
  minutes: number;
  started: number;
  setupSeconds: number;
  runtimeStartSeconds: number;
  firstDeliverySeconds: number;
  drainSeconds: number;
  byMinute: Minute[];
  latencies: Sample[];
  memory: MemorySample[];
  warmUpEnds: number;
  changes: number;
  events: number;
  listed: number;
  expected: number;
  lost: number;
  received: number;
}

/** The samples after the warm-up, split at the middle of that stretch of time. */
function halves<T extends { at: number }>(samples: readonly T[], from: number, to: number): [T[], T[]] {
  const middle = from + (to - from) / 2;
  const steady = samples.filter((sample) => sample.at >= from && sample.at <= to);
  return [steady.filter((sample) => sample.at < middle), steady.filter((sample) => sample.at >= middle)];
}

function writeReport(context: BenchContext, result: SoakResult): void {
  // The drain after the last minute has no traffic of its own: it is in the verdict, not the charts.
  const rows = result.byMinute
    .filter((minute) => minute.api.length > 0)
    .map((minute) => ({
      minute: minute.minute,
      deliveries: minute.deliveries,
      p50: round(stats(minute.latencies, 0.5)),
      p99: round(stats(minute.latencies, 0.99)),
      apiP50: round(stats(minute.api, 0.5)),
      apiP99: round(stats(minute.api, 0.99)),
      apiCalls: minute.api.length,
      apiErrors: minute.apiErrors,
      rssMb: round(minute.rssMb),
      anonMb: round(minute.anonMb),
      heapMb: round(minute.heapMb),
    }));
  const runEnds = Math.max(...result.memory.map((sample) => sample.at));
  const [memoryFirst, memorySecond] = halves(result.memory, result.warmUpEnds, runEnds);
  const rssBefore = mean(memoryFirst.map((sample) => sample.rssMb));
  const rssGrowth = mean(memorySecond.map((sample) => sample.rssMb)) - rssBefore;
  const heapGrowth = mean(memorySecond.map((sample) => sample.heapMb)) - mean(memoryFirst.map((sample) => sample.heapMb));
  const memoryFlat = rssGrowth <= MAX_RSS_GROWTH * rssBefore && heapGrowth <= MAX_HEAP_GROWTH_MB;
  const [latencyFirst, latencySecond] = halves(result.latencies, result.warmUpEnds, runEnds);
  const p99First = stats(
    latencyFirst.map((sample) => sample.value),
    0.99,
  );
  const p99Second = stats(
    latencySecond.map((sample) => sample.value),
    0.99,
  );
  const p99Stable = p99Second <= Math.max(MAX_P99_RATIO * p99First, p99First + P99_SLACK_MS);
  const apiErrors = rows.reduce((sum, row) => sum + row.apiErrors, 0);
  const apiCalls = rows.reduce((sum, row) => sum + row.apiCalls, 0);
  const warmUpMinutes = round((result.warmUpEnds - result.started) / 60_000);
  const signed = (value: number) => `${value >= 0 ? '+' : '−'}${Math.abs(round(value))}`;

  const table = [
    '| minute | deliveries | change→delivery p50 ms | p99 ms | API calls | API p50 ms | API p99 ms | API 5xx | RSS MB | anonymous MB | heap MB |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.minute} | ${row.deliveries} | ${row.p50} | ${row.p99} | ${row.apiCalls} | ${row.apiP50} | ${row.apiP99} | ${row.apiErrors} | ${row.rssMb} | ${row.anonMb} | ${row.heapMb} |`,
    ),
  ].join('\n');
  // A run's report is its own, not documentation: kept beside other local output, out of git.
  const docs = join(repositoryRoot, '.bureau', 'bench');
  mkdirSync(join(docs, 'soak'), { recursive: true });
  writeLineChart(join(docs, 'soak', 'deliveries.png'), 'Deliveries received per minute', 'deliveries', [
    { label: 'all endpoints, retries included', colour: '#1f6feb', points: rows.map((row) => [row.minute, row.deliveries]) },
  ]);
  writeLineChart(join(docs, 'soak', 'latency.png'), 'Latency over time', 'milliseconds', [
    { label: 'change → delivery p50', colour: '#1f6feb', points: rows.map((row) => [row.minute, row.p50]) },
    { label: 'change → delivery p99', colour: '#d1242f', points: rows.map((row) => [row.minute, row.p99]) },
    { label: 'API p50', colour: '#4ac26b', points: rows.map((row) => [row.minute, row.apiP50]) },
    { label: 'API p99', colour: '#1a7f37', points: rows.map((row) => [row.minute, row.apiP99]) },
  ]);
  writeLineChart(join(docs, 'soak', 'memory.png'), 'Runtime process memory (peak per minute)', 'MB', [
    { label: 'RSS', colour: '#8250df', points: rows.map((row) => [row.minute, row.rssMb]) },
    { label: 'RSS, anonymous', colour: '#cf222e', points: rows.map((row) => [row.minute, row.anonMb]) },
    { label: 'heap used (main thread)', colour: '#bf8700', points: rows.map((row) => [row.minute, row.heapMb]) },
  ]);
  const verdict = [
    `- **${result.lost === 0 ? '0 lost' : `${result.lost} LOST`}:** ${result.expected - result.lost} of ${result.expected} expected deliveries accepted (${result.events} events × ${ENDPOINTS.length} endpoints: those the ${result.changes} changes made, and every one the client's \`GET /v1/events\` lists, ${result.listed}), the last ${round(result.drainSeconds)} s after the traffic stopped (at most ${DRAIN_MS / 60_000} minutes allowed); ${result.received} POSTs received in all, retries of the 10 % failures included.`,
    `- **Memory ${memoryFlat ? 'flat' : 'NOT flat'}:** RSS ${signed(rssGrowth)} MB (${signed((100 * rssGrowth) / Math.max(1, rssBefore))} %), heap used ${signed(heapGrowth)} MB, second half of the run against the first after a ${warmUpMinutes}-minute warm-up (means of samples every ${SAMPLE_EVERY_MS / 1000} s; flat is at most +${MAX_RSS_GROWTH * 100} % RSS and +${MAX_HEAP_GROWTH_MB} MB heap).`,
    `- **p99 ${p99Stable ? 'stable' : 'NOT stable'}:** change → delivery p99 ${round(p99First)} ms in the first half, ${round(p99Second)} ms in the second (stable is at most ${MAX_P99_RATIO}× or +${P99_SLACK_MS} ms).`,
    `- **API:** ${apiErrors} answers of 5xx in ${apiCalls} calls.`,
  ].join('\n');
  const report = `# Soak: ${result.minutes} minutes of mixed traffic and changes

Run with \`SOAK_MINUTES=${result.minutes} npm run bench -- soak\` on ${new Date().toISOString().slice(0, 10)}, this ${cpus().length}-core machine (Node ${process.version}); it was
ready to soak ${round(result.setupSeconds)} s after it began (the runtime started in ${round(result.runtimeStartSeconds)} s; a first change,
made before the clock starts, reached all three endpoints ${round(result.firstDeliverySeconds)} s after it was written), and took
${round(result.minutes + (result.setupSeconds + result.drainSeconds) / 60)} minutes in all. The local runtime, as \`npm start\` runs it (DynamoDB Local on
disk, the journaled local queues, the functions in worker threads), in a process of its own whose
memory is read from \`/proc/<pid>/status\` (\`VmRSS\`, its worker threads included, and \`RssAnon\`, the
part that is heaps and buffers rather than code; heap is its main thread's V8 heap; DynamoDB Local's
Java process aside), serves an API call every ${API_EVERY_MS} ms (search,
profile, watches, webhooks, events, and a token request every sixth call) while a watched company changes every
${CHANGE_EVERY_MS / 1000} s (${COMPANIES} companies, risk changes and new early signals). Three endpoints receive every event: one
answers at once, one after 20 ms, one fails 10 % of attempts with a 500 (retried on a schedule
compressed to \`${RETRY_DELAYS}\` s). Change → delivery is timed at the endpoint that answers at once.

${verdict}

![Deliveries per minute](soak/deliveries.png)
![Latency over time](soak/latency.png)
![Memory over time](soak/memory.png)

${table}
`;
  writeFileSync(join(docs, 'soak.md'), report);
  context.report(`${verdict}\n\n${table}\n`);
}
