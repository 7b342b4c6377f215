import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { PutMetricDataCommand, StandardUnit } from '@aws-sdk/client-cloudwatch';
import cliProgress from 'cli-progress';
import { type Command, InvalidArgumentError } from 'commander';
import { applyDemoChange, CHANGE_KINDS, type ChangeKind, CompanyNotFoundError } from '../../demo/company-changes';
import { demoImportReaders } from '../../demo/search-export';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { parseCompanyNumber } from '../../shared/companies/numbers';
import { type CompanyProfile, JURISDICTIONS, type Jurisdiction } from '../../shared/companies/profile';
import { BusinessMetric, METRICS_NAMESPACE } from '../../shared/observability/metrics';
import { SERVICE_DIMENSION, SERVICE_NAME } from '../../shared/observability/service';
import { isRegisterFormat } from '../../shared/register/formats';
import { countSnapshotCoverage, type SweepResult, sweepGoneCompanies } from '../../shared/register/import/gone-companies';
import {
  DEFAULT_IMPORT_BATCH_SIZE,
  DEFAULT_IMPORT_CONCURRENCY,
  type ImportResult,
  type ImportSource,
  type ImportStats,
  importProfiles,
  openImportFile,
  UnsupportedImportFileError,
} from '../../shared/register/import/import';
import { isWholeSnapshot } from '../../shared/register/import/snapshot-coverage';
import { isIsoDate, snapshotDateOf } from '../../shared/register/import/snapshot-date';
import {
  addCoverage,
  assertNotFutureSnapshot,
  decideSweep,
  RefusedSnapshotError,
  SWEEP_MIN_COVERAGE,
} from '../../shared/register/import/sweep-guard';
import { zipEntries } from '../../shared/register/import/zip-entries';
import type { CliContext, Target } from '../context';
import { changeLines, printRejects, REJECTS_SHOWN, unknownValueLines } from '../import-report';
import type { CliIo } from '../io';
import { printRegisterImportSummary, runRegisterImport } from '../register-import-run';

/** Plain progress lines (no terminal) come at most this often. */
const PROGRESS_LINE_INTERVAL_MS = 2000;
/** Segments of the parallel scan that finds companies gone from a whole snapshot. */
const SWEEP_SEGMENTS = 4;

function wholeNumberOption(minimum: number, maximum: number) {
  return (text: string): number => {
    if (!/^\d{1,6}$/.test(text) || Number(text) < minimum || Number(text) > maximum) {
      throw new InvalidArgumentError(`use a whole number from ${minimum} to ${maximum}`);
    }
    return Number(text);
  };
}

const countsText = (stats: ImportStats) =>
  `${stats.read} rows read: ${stats.created} created, ${stats.updated} updated, ${stats.unchanged} unchanged, ${stats.rejected} rejected`;

interface ProgressReporter {
  update(stats: ImportStats): void;
  stop(): void;
}

/**
 * Records in the file, counted as lines before the import starts (a CSV header is not a record;
 * a quoted CSV field spanning lines makes this an estimate): what the progress is measured against.
 */
async function countRecords(path: string, source: ImportSource): Promise<number> {
  const header = source.format === 'ndjson' ? 0 : 1;
  if (!source.entries) return Math.max(0, (await countLines(createReadStream(path))) - header);
  let records = 0;
  for await (const entry of zipEntries(path)) records += Math.max(0, (await countLines(await entry.open())) - header);
  return records;
}

async function countLines(stream: AsyncIterable<Buffer>): Promise<number> {
  let lines = 0;
  let last = 0x0a;
  for await (const chunk of stream) {
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) lines++;
    if (chunk.length > 0) last = chunk[chunk.length - 1] as number;
  }
  return last === 0x0a ? lines : lines + 1;
}

const rateOf = (done: number, startedMs: number) => Math.round(done / Math.max((Date.now() - startedMs) / 1000, 0.001));

const doneOf = (stats: ImportStats) => stats.created + stats.updated + stats.unchanged + stats.rejected;

/** A bar on a terminal; elsewhere (pipes, CI logs) a plain line every couple of seconds. */
function progressReporter(io: CliIo, records: number, terminal: boolean): ProgressReporter {
  if (terminal) {
    const bar = new cliProgress.SingleBar(
      {
        format:
          'importing [{bar}] {percentage}% | {value}/{total} rows | {rate} rows/s | {created} created, {updated} updated, {unchanged} unchanged, {rejected} rejected | ETA {eta_formatted}',
        hideCursor: true,
        stream: process.stderr,
      },
      cliProgress.Presets.shades_classic,
    );
    const started = Date.now();
    bar.start(records, 0, { created: 0, updated: 0, unchanged: 0, rejected: 0, rate: 0 });
    return {
      update: (stats) => {
        if (doneOf(stats) > records) bar.setTotal(doneOf(stats));
        bar.update(doneOf(stats), { ...stats, rate: rateOf(doneOf(stats), started) });
      },
      stop: () => bar.stop(),
    };
  }
  const started = Date.now();
  let last = started;
  return {
    update: (stats) => {
      if (Date.now() - last < PROGRESS_LINE_INTERVAL_MS) return;
      last = Date.now();
      const done = doneOf(stats);
      const total = Math.max(done, records);
      const rate = rateOf(done, started);
      const eta = rate > 0 ? `, about ${Math.ceil((total - done) / rate)} s left` : '';
      io.err(
        `progress: ${done} of ${total} rows (${Math.floor((100 * done) / Math.max(1, total))}%), ${rate} rows/s${eta}: ` +
          `${stats.created} created, ${stats.updated} updated, ${stats.unchanged} unchanged, ${stats.rejected} rejected`,
      );
    },
    stop: () => {},
  };
}

function printSummary(io: CliIo, file: string, source: ImportSource, where: string, result: ImportResult, seconds: number): void {
  const rate = seconds > 0 ? Math.round(result.read / seconds) : result.read;
  const snapshot = source.asOf ? `, snapshot of ${source.asOf}` : '';
  io.out(`Imported ${basename(file)} (${source.format}${snapshot}) into ${where} in ${seconds.toFixed(1)} s (${rate} rows/s)`);
  io.out(countsText(result));
  for (const line of [...changeLines(result.changes), ...unknownValueLines(result.unknownValues)]) io.out(line);
  printRejects(io, result);
}

/**
 * After a whole snapshot, the register profiles it did not list are gone. Not after rejected rows:
 * a company on a rejected line would be taken as gone when it is only unread.
 */
async function sweepAfter(
  context: CliContext,
  source: ImportSource,
  result: ImportResult,
  options: { wholeSnapshot?: boolean; forceSweep?: string },
  names: readonly string[],
): Promise<SweepResult | undefined> {
  if (!source.asOf || !isRegisterFormat(source.format)) return undefined;
  const jurisdiction = source.format === 'companies-house-bulk' ? 'GB' : 'IE';
  if (!options.wholeSnapshot && !isWholeSnapshot(source.format, names)) {
    context.io.out(
      'Companies missing from this file were not looked for: it is not the whole register. Pass --whole-snapshot when it is, or import every part of the snapshot in one archive.',
    );
    return undefined;
  }
  if (result.rejected > 0) {
    context.io.err(
      `Companies missing from the snapshot were not marked gone: ${result.rejected} row(s) were rejected, and their companies would have been. Fix them and import the snapshot again.`,
    );
    return undefined;
  }
  const target = await context.target();
  const segments = Array.from({ length: SWEEP_SEGMENTS }, (_, segment) => segment);
  const scope = {
    doc: target.doc,
    tableName: target.tables.companies,
    jurisdiction,
    asOf: source.asOf,
    totalSegments: SWEEP_SEGMENTS,
  } as const;
  // The guard first (shared/register/import/sweep-guard.ts): a snapshot that lists too little of the register marks nothing.
  const coverage = addCoverage(await Promise.all(segments.map((segment) => countSnapshotCoverage({ ...scope, segment }))));
  const decision = decideSweep({ jurisdiction, coverage, forceSweep: options.forceSweep });
  if (!decision.sweep) {
    context.io.err(`Sweep refused: ${decision.reason}`);
    await reportSweepRefused(context, target.cloudWatch);
    return undefined;
  }
  if (decision.forced)
    context.io.err(
      `Sweep forced for ${jurisdiction}: ${coverage.listed} of ${coverage.listed + coverage.unlisted} register profiles listed`,
    );
  const results = await Promise.all(
    Array.from({ length: SWEEP_SEGMENTS }, (_, segment) =>
      sweepGoneCompanies({
        doc: target.doc,
        tableName: target.tables.companies,
        jurisdiction,
        asOf: source.asOf as string,
        segment,
        totalSegments: SWEEP_SEGMENTS,
      }),
    ),
  );
  const sweep = results.reduce((sum, next) => ({
    scanned: sum.scanned + next.scanned,
    gone: sum.gone + next.gone,
    failed: sum.failed + next.failed,
  }));
  context.io.out(
    `Companies no longer in the register: ${sweep.gone} marked removed${sweep.failed > 0 ? `, ${sweep.failed} could not be written (run the import again)` : ''}`,
  );
  return sweep;
}

/** SweepRefused, as the summary function counts it on AWS: to the stack's CloudWatch, or printed locally. */
async function reportSweepRefused(context: CliContext, cloudWatch: Target['cloudWatch']): Promise<void> {
  const describe = `${METRICS_NAMESPACE}/${BusinessMetric.sweepRefused} ${SERVICE_DIMENSION}=${SERVICE_NAME}: 1`;
  if (!cloudWatch) {
    context.io.err(`metric (local runtime, not published): ${describe}`);
    return;
  }
  try {
    await cloudWatch.send(
      new PutMetricDataCommand({
        Namespace: METRICS_NAMESPACE,
        MetricData: [
          {
            MetricName: BusinessMetric.sweepRefused,
            Dimensions: [{ Name: SERVICE_DIMENSION, Value: SERVICE_NAME }],
            Value: 1,
            Unit: StandardUnit.Count,
          },
        ],
      }),
    );
  } catch (error) {
    context.io.err(`warning: ${describe} could not be published to CloudWatch (${(error as Error).message})`);
  }
}

/** `bureau companies …`: load company profiles. */
export function registerCompanyCommands(program: Command, context: CliContext): void {
  const companies = program
    .command('companies')
    .description('load and change company profiles')
    .addHelpText(
      'after',
      `
Examples:
  $ bureau companies import BasicCompanyDataAsOneFile-2024-06-01.zip
  $ bureau companies import test/fixtures/register/BasicCompanyData-2024-06-01-part1_1.csv
  $ bureau companies import companies.csv --as-of 2024-06-01
  $ bureau companies import data/gb-companies-2024-01.csv
  $ bureau companies import profiles.ndjson --concurrency 8 --batch-size 50
  $ bureau --stack Bureau --region eu-west-2 companies import profiles.jsonl --json
  $ bureau companies change 00445790 --kind risk`,
    );
  registerCompanyChangeCommand(companies, context);

  companies
    .command('import')
    .description(
      "import a register snapshot (the Companies House bulk file BasicCompanyData, zipped or not, whole or in parts; the CRO companies file): every block derived from the register's facts; or NDJSON profile documents; or the Companies House search export (demo blocks). Unchanged profiles are not rewritten, so the same file twice changes nothing and next month's file writes only what changed",
    )
    .argument('<file>', 'the file to import')
    .option('--concurrency <batches>', 'batches written at once', wholeNumberOption(1, 64), DEFAULT_IMPORT_CONCURRENCY)
    .option('--batch-size <profiles>', 'profiles per batch', wholeNumberOption(1, 100), DEFAULT_IMPORT_BATCH_SIZE)
    .option('--seed <seed>', 'seed of the demo blocks derived for rows of the search export', wholeNumberOption(0, 999_999), 0)
    .option('--as-of <date>', 'date of the register snapshot (YYYY-MM-DD), when the file name does not carry it', (text) => {
      if (!isIsoDate(text)) throw new InvalidArgumentError('a date in the form YYYY-MM-DD');
      return text;
    })
    .option('--whole-snapshot', 'the file is the whole register: mark the register profiles it does not list as gone')
    .option(
      '--force-sweep <jurisdiction>',
      `mark the register profiles the snapshot does not list as gone even when it lists under ${100 * SWEEP_MIN_COVERAGE} % of that jurisdiction's (GB or IE)`,
      (text) => {
        if (!JURISDICTIONS.includes(text as Jurisdiction)) throw new InvalidArgumentError('GB or IE');
        return text as Jurisdiction;
      },
    )
    .option('--no-progress', 'print no progress while importing')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExit status: 0 when every row was imported, 1 when rows were rejected (the others are imported) or the file cannot be read.',
    )
    .action(
      async (
        file: string,
        options: {
          concurrency: number;
          batchSize: number;
          seed: number;
          asOf?: string;
          wholeSnapshot?: boolean;
          forceSweep?: Jurisdiction;
          progress: boolean;
          json?: boolean;
        },
        command: Command,
      ) => {
        let source: ImportSource;
        try {
          source = await openImportFile(file, { seed: options.seed, ...(options.asOf ? { asOf: options.asOf } : {}) }, demoImportReaders);
          // A snapshot from the future is a mistake in its name or --as-of: refused before anything is written.
          assertNotFutureSnapshot(basename(file), source.asOf);
        } catch (error) {
          if (error instanceof RefusedSnapshotError)
            return command.error(`error: ${error.message}`, { exitCode: 1, code: 'bureau.companies.refused' });
          const reason = error instanceof UnsupportedImportFileError ? error.message : `cannot read ${file}: ${(error as Error).message}`;
          return command.error(`error: ${reason}`, { exitCode: 1, code: 'bureau.companies.unreadable' });
        }
        // A register file goes through the register import's state machine where the target has one: a deployed
        // stack's, or the local runtime's (the same definition, run locally). NDJSON and the search export load here.
        const stateMachine = isRegisterFormat(source.format) ? (await context.target()).registerImport : undefined;
        if (stateMachine) {
          const asOf = options.asOf ?? snapshotDateOf(basename(file));
          if (!asOf) {
            return command.error('error: name the snapshot date with --as-of YYYY-MM-DD: the file name carries none', {
              exitCode: 1,
              code: 'bureau.companies.as-of',
            });
          }
          if (options.wholeSnapshot) {
            context.io.err(
              'note: --whole-snapshot is for files imported in process; the state machine takes a file as the whole register by its name (…AsOneFile…, every part, the CRO file)',
            );
          }
          const run = await runRegisterImport(context.io, stateMachine, file, {
            asOf,
            progress: options.progress && !options.json,
            ...(options.forceSweep ? { forceSweep: options.forceSweep } : {}),
          });
          if (options.json) context.io.out(JSON.stringify({ file, status: run.status, states: run.states, ...run.summary }, null, 2));
          else printRegisterImportSummary(context.io, file, run, REJECTS_SHOWN);
          if (run.status !== 'SUCCEEDED') {
            const failed = run.summary?.failedBatches.map((batch) => batch.key).join(', ');
            command.error(
              `error: the import ended ${run.status}${run.error ? ` (${run.error})` : ''}${failed ? `; failed batches: ${failed}` : ''}`,
              { exitCode: 1, code: 'bureau.companies.import-failed' },
            );
          }
          return;
        }
        const target = await context.target();
        const store = new DynamoCompanyStore(target.doc, target.tables.companies);
        const progress =
          options.progress && !options.json
            ? progressReporter(context.io, await countRecords(file, source), process.stderr.isTTY === true)
            : undefined;
        const started = Date.now();
        let result: ImportResult;
        try {
          result = await importProfiles(source.records, store, {
            concurrency: options.concurrency,
            batchSize: options.batchSize,
            onProgress: (stats) => progress?.update(stats),
          });
        } finally {
          progress?.stop();
        }
        const seconds = (Date.now() - started) / 1000;
        if (!options.json) printSummary(context.io, file, source, target.description, result, seconds);
        if (result.read === 0 && isRegisterFormat(source.format)) {
          // No rows is no snapshot: nothing was imported, and no company may be taken as gone from it.
          return command.error(`error: ${basename(file)} holds no rows: refused, nothing was imported or marked removed`, {
            exitCode: 1,
            code: 'bureau.companies.refused',
          });
        }
        const names = [basename(file), ...(source.entries ?? []).map((entry) => entry.name)];
        const sweep = await sweepAfter(options.json ? { ...context, io: quietIo(context.io) } : context, source, result, options, names);
        if (options.json) {
          context.io.out(
            JSON.stringify({ file, format: source.format, asOf: source.asOf ?? null, ...result, sweep: sweep ?? null }, null, 2),
          );
        }
        if (result.rejected > 0) {
          command.error(`error: ${result.rejected} row(s) rejected; every other row was imported`, {
            exitCode: 1,
            code: 'bureau.companies.rejected',
          });
        }
      },
    );
}

const blockOfKind: Record<ChangeKind, 'riskOfFailure' | 'tradingStatus' | 'earlySignals'> = {
  risk: 'riskOfFailure',
  'trading-status': 'tradingStatus',
  'new-signal': 'earlySignals',
  'expire-signal': 'earlySignals',
};

function describeChange(kind: ChangeKind, profile: CompanyProfile): string {
  if (kind === 'risk') return `risk of failure now ${profile.riskOfFailure.level}`;
  if (kind === 'trading-status') return `trading status now ${profile.tradingStatus.status}`;
  const signals = profile.earlySignals.signals;
  const last = [...signals].sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : 1)).at(-1);
  return last ? `early signal ${last.id} now ${last.state}` : 'early signals changed';
}

/** `bureau companies change`: demo changes that go through the store as an import would, and so make webhooks. */
export function registerCompanyChangeCommand(companies: Command, context: CliContext): void {
  companies
    .command('change')
    .description('change companies the way a register or scoring update would (demo and load): each change makes webhook events')
    .argument('<companyNumber...>', 'the companies to change')
    .option('--jurisdiction <code>', 'GB or IE', (text) => {
      if (!JURISDICTIONS.includes(text as Jurisdiction)) throw new InvalidArgumentError('GB or IE');
      return text as Jurisdiction;
    })
    .option(
      '--kind <kind>',
      `what changes: ${CHANGE_KINDS.join(', ')}`,
      (text) => {
        if (!CHANGE_KINDS.includes(text as ChangeKind)) throw new InvalidArgumentError(`one of ${CHANGE_KINDS.join(', ')}`);
        return text as ChangeKind;
      },
      'risk',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ bureau companies change 00445790
  $ bureau companies change 00445790 SC005336 --kind new-signal
  $ bureau companies change 104547 --jurisdiction IE --kind trading-status`,
    )
    .action(async (numbers: string[], options: { jurisdiction?: Jurisdiction; kind: ChangeKind }, command: Command) => {
      const parsed = numbers.map((raw) => {
        try {
          return parseCompanyNumber(raw, options.jurisdiction);
        } catch (error) {
          return command.error(`error: ${(error as Error).message}`, { exitCode: 1, code: 'bureau.companies.number' });
        }
      });
      const target = await context.target();
      const store = new DynamoCompanyStore(target.doc, target.tables.companies);
      let missing = 0;
      for (const { jurisdiction, companyNumber } of parsed) {
        try {
          const profile = await applyDemoChange(store, jurisdiction, companyNumber, options.kind);
          context.io.out(
            `${jurisdiction} ${companyNumber} ${profile.name}: ${describeChange(options.kind, profile)} (${blockOfKind[options.kind]}, version ${profile.version})`,
          );
        } catch (error) {
          if (!(error instanceof CompanyNotFoundError)) throw error;
          missing += 1;
          context.io.err(`error: ${error.message} in ${target.description}`);
        }
      }
      if (missing > 0)
        command.error(`error: ${missing} of ${parsed.length} companies not found`, { exitCode: 1, code: 'bureau.companies.missing' });
    });
}

/** Keeps errors, drops the lines a --json run prints inside its document instead. */
const quietIo = (io: CliIo): CliIo => ({ ...io, out: () => {} });
