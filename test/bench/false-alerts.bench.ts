import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReplaySummary } from '../../cli/operations/stream-replay';
import { streamOfLine } from '../../cli/operations/stream-replay';
import { resolveLocalTarget } from '../../cli/target';
import { startLocalRuntime } from '../../local/runtime';
import { requestToken } from '../../packages/client/src/index';
import { profileKey } from '../../shared/companies/search-index';
import { createEventApplier } from '../../shared/register/stream/apply-events';
import { parseStreamLine, type StreamEvent } from '../../shared/register/stream/stream-events';
import { batchGet } from '../../shared/storage/batch';
import { companiesTable } from '../../shared/storage/tables';
import { runCli } from '../support/cli';
import { type ReceivedDelivery, startWebhookReceiver, untilQuiet, verifiedEvent } from '../support/webhook-receiver';
import { batchWriteItems } from './support/companies';
import type { BenchContext } from './support/context';
import { DAY, DAY_MIX, type DayKind, registerDay } from './support/register-day';
import { renderTable, throughputTable } from './support/table';
import { timeThroughput } from './support/timing';

export const name =
  'False alerts: a day of the Companies House streams replayed through `bureau streams replay`, webhooks counted against what truly happened';

const SIZES = {
  small: { watched: 200, perCompany: 6 },
  full: { watched: 2_000, perCompany: 6 },
  million: { watched: 2_000, perCompany: 6 },
} as const;
const QUIET_MS = 4_000;
const BATCH = 500;

const cli = (dataDir: string, ...argv: string[]) => runCli(argv, () => resolveLocalTarget(dataDir));

export async function run(context: BenchContext): Promise<void> {
  const size = SIZES[context.scale];
  const { before, day, truth, counts, companies } = registerDay(size.watched, size.perCompany);
  const dataDir = mkdtempSync(join(tmpdir(), 'bureau-false-alerts-'));
  const receiver = await startWebhookReceiver();
  const runtime = await startLocalRuntime({
    port: 0,
    inMemory: true,
    dataDir,
    quiet: true,
    environment: {},
    sharedDynamoDb: { endpoint: context.env.DYNAMODB_ENDPOINT as string, tablePrefix: `fa-${randomUUID().slice(0, 8)}-` },
  });
  try {
    // Before: what the register told of the companies, their officers, PSCs, charges and open cases.
    const beforeFile = join(dataDir, 'before.jsonl');
    writeFileSync(beforeFile, `${before.join('\n')}\n`);
    const told = await cli(dataDir, 'streams', 'replay', beforeFile, '--json');
    if (told.code !== 0)
      throw new Error(
        `the replay of what came before failed: ${told.stderr} ${JSON.stringify((JSON.parse(told.stdout) as ReplaySummary).lines.filter((line) => line.outcome === 'not-applied-in-time'))}`,
      );

    // The client watches every company (by fetching it) and listens.
    const token = (
      await requestToken({
        baseUrl: runtime.baseUrl,
        clientId: runtime.demoClient.clientId,
        clientSecret: runtime.demoClient.clientSecret,
        timeoutMs: 60_000,
      })
    ).accessToken;
    const call = (path: string, init: RequestInit = {}) =>
      fetch(`${runtime.baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    for (const company of companies) {
      const response = await call(`/v1/profile/${company}?jurisdiction=GB`);
      if (response.status !== 200) throw new Error(`GB ${company} is not held: ${response.status}`);
      await response.arrayBuffer();
    }
    const subscribed = await call('/v1/webhooks', { method: 'POST', body: JSON.stringify({ name: 'Bench', url: `${receiver.url}/day` }) });
    const { signingSecret } = (await subscribed.json()) as { signingSecret: string };
    context.log(`${companies.length} companies watched; replaying ${day.length.toLocaleString('en-GB')} events of ${DAY}`);

    // The day, through the CLI against the running runtime, as an operator would replay a recording.
    const dayFile = join(dataDir, 'day.jsonl');
    writeFileSync(dayFile, `${day.join('\n')}\n`);
    const started = performance.now();
    const replayed = await cli(dataDir, 'streams', 'replay', dayFile, '--json');
    const replaySeconds = (performance.now() - started) / 1000;
    if (replayed.code !== 0) throw new Error(`the replay of the day failed: ${replayed.stderr}`);
    const summary = JSON.parse(replayed.stdout) as ReplaySummary;
    await untilQuiet(receiver.deliveries, QUIET_MS, 180_000);

    // What the webhooks said, against what truly happened to each company.
    let falseDetected = 0;
    let falseUpdated = 0;
    let changesWithoutNews = 0;
    let justified = 0;
    const falseExamples: string[] = [];
    const detectedBy = new Map<string, Set<string>>();
    for (const delivery of receiver.deliveries as readonly ReceivedDelivery[]) {
      const event = await verifiedEvent(delivery, signingSecret);
      const company = String(event.data.companyNumber);
      const expected = truth.get(company);
      if (event.type === 'profile.changed') {
        // A case that closed is news too: it settles what its opening raised.
        if (!expected?.news && !expected?.updates) {
          changesWithoutNews++;
          if (falseExamples.length < 5) falseExamples.push(`${company} ${event.block} changed (no news)`);
        }
        continue;
      }
      const [, , , id = '', state] = event.idempotencyKey.split(':');
      // Signal ids are the kind and a date; an insolvency id names the status too (insolvency-liquidation-<date>).
      const kind = id.startsWith('insolvency-') ? 'insolvency' : id.replace(/-\d{4}-\d{2}-\d{2}$/, '');
      if (event.type === 'profile.early_signal.detected') {
        if (expected?.detected.includes(kind)) {
          justified++;
          detectedBy.set(company, (detectedBy.get(company) ?? new Set()).add(kind));
        } else {
          falseDetected++;
          if (falseExamples.length < 5) falseExamples.push(`${company} ${kind} detected (${expected?.news ?? 'no news'})`);
        }
      } else if (!expected?.updates) {
        falseUpdated++;
        if (falseExamples.length < 5) falseExamples.push(`${company} ${kind} ${state} (${expected?.news ?? 'no news'})`);
      } else justified++;
    }
    const withNews = [...truth.values()].filter((entry) => entry.detected.length > 0);
    const missed = [...truth.entries()].filter(
      ([company, entry]) => entry.detected.length > 0 && !entry.detected.some((kind) => detectedBy.get(company)?.has(kind)),
    );

    context.report(
      renderTable(
        `The day's events about ${companies.length} watched companies (proportions: Bureau's estimate, test/bench/support/register-day.ts)`,
        ['', 'events', 'per 1,000 (mix)'],
        (Object.keys(DAY_MIX) as DayKind[]).map((kind) => [kind, String(counts[kind]), String(DAY_MIX[kind])]),
      ),
    );
    context.report(
      renderTable(
        'What the webhooks said',
        ['', 'count'],
        [
          ['events replayed (lines)', String(summary.published)],
          ['  applied (a fact changed)', String(summary.applied)],
          ['  unchanged (nothing new)', String(summary.unchanged)],
          ['  skipped (deleted, not held)', String(summary.skipped)],
          ['  set aside', String(summary.setAside)],
          ['companies with news', String(withNews.length)],
          ['webhooks received', String(receiver.deliveries.length)],
          ['  early signals a real change justifies', String(justified)],
          ['  FALSE early signals detected (goal 0)', String(falseDetected)],
          ['  FALSE early-signal updates (goal 0)', String(falseUpdated)],
          ['  profile.changed for a company with no news (goal 0)', String(changesWithoutNews)],
          ['news with no early signal delivered (missed)', String(missed.length)],
          ['replay through the CLI, events/s (incl. waits across streams)', (summary.published / replaySeconds).toFixed(0)],
        ],
      ),
    );
    for (const example of falseExamples) context.log(`false: ${example}`);
    for (const [company, entry] of missed.slice(0, 5)) context.log(`missed: ${company} ${entry.news}`);

    // The applier alone over the same day, against a bare BatchWriteItem of as many profile items.
    const tables = await context.createTables([companiesTable]);
    const table = tables.names[companiesTable.id] as string;
    const apply = createEventApplier({ doc: tables.doc, companiesTable: table });
    const parse = (lines: readonly string[]): StreamEvent[] =>
      lines.flatMap((line, index) => {
        const routed = streamOfLine(line);
        if (!routed.ok) return [];
        // Renumbered as the replay does: a repeated event takes its stream's next position.
        const parsed = parseStreamLine(routed.stream, line);
        return parsed.ok ? [{ ...parsed.event, timepoint: 10_000_000 + index }] : [];
      });
    const applyAll = async (events: readonly StreamEvent[]) => {
      for (let start = 0; start < events.length; start += BATCH) {
        const batch = events.slice(start, start + BATCH);
        // Batches of one stream, as the consumer hands them over.
        for (const stream of new Set(batch.map((event) => event.stream)))
          await apply(
            stream,
            batch.filter((event) => event.stream === stream),
          );
      }
    };
    await applyAll(parse(before));
    const dayEvents = parse(day);
    const applied = await timeThroughput(dayEvents.length, () => applyAll(dayEvents));
    const sample = await batchGet<Record<string, unknown>>(
      tables.doc,
      table,
      companies.slice(0, 50).map((company) => profileKey('GB', company)),
    );
    const baselineTables = await context.createTables([companiesTable]);
    const items = function* () {
      for (let index = 0; index < dayEvents.length; index++) {
        yield { ...(sample[index % sample.length] as Record<string, unknown>), ...profileKey('GB', String(30_000_000 + index)) };
      }
    };
    const baseline = await timeThroughput(dayEvents.length, () =>
      batchWriteItems(baselineTables.doc, baselineTables.names[companiesTable.id] as string, items(), 8),
    );
    context.report(
      throughputTable(`The applier over the same ${dayEvents.length.toLocaleString('en-GB')} events (goal >= 1,000 events/s)`, 'events', [
        { label: 'baseline: as many profile items, BatchWriteItem 8 in flight', result: baseline },
        { label: `createEventApplier, batches of up to ${BATCH} per stream`, result: applied },
      ]),
    );
  } finally {
    await runtime.stop();
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
