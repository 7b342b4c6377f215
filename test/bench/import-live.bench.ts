import { spawn } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoImportReaders } from '../../demo/search-export';
import { repositoryRoot } from '../../local/paths';
import { isDraft } from '../../shared/companies/company-store';
import type { ProfileContent } from '../../shared/companies/profile';
import { fieldsOf, logicalRecords } from '../../shared/register/csv-lines';
import { openImportFile } from '../../shared/register/import/import';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { bulkFile, syntheticBulkRows } from '../../tools/register-files';
import { batchWriteItems, GB_SAMPLE_CSV, storedItemsOf } from './support/companies';
import type { BenchContext } from './support/context';
import { untilQuiet } from './support/quiet';
import { startRuntimeProcess } from './support/runtime-process';
import { throughputTable } from './support/table';

export const name = 'Import through the CLI into the running runtime (bulk and search-export layouts) beside a bare BatchWriteItem';

/** Requests in flight for the baseline: what importProfiles keeps in flight by default, and more. */
const BASELINE_CONCURRENCY = 8;
/** Imports at least this share of the bare BatchWriteItem rate. */
const GOAL = 0.8;
const SNAPSHOT_DATE = '2024-06-01';

interface Layout {
  readonly label: string;
  /** The file's text for `count` companies new to the tables, numbered from `seed`. */
  file(count: number, seed: number): Promise<string>;
}

/** The register's own bulk layout, synthetic companies (tools/register-files.ts). */
const bulkLayout: Layout = {
  label: 'bulk layout (BasicCompanyData)',
  file: async (count, seed) => bulkFile([...syntheticBulkRows(count, seed, SNAPSHOT_DATE)]),
};

/**
 * The search export's layout: the sample's own rows, as published (quotes inside unquoted fields,
 * blank subtypes), renumbered and cycled so that every row is a company new to the tables.
 */
const searchExportLayout: Layout = {
  label: 'search-export layout',
  file: async (count, seed) => {
    const lines: string[] = [];
    let header = '';
    for await (const record of logicalRecords(createReadStream(GB_SAMPLE_CSV))) {
      if (record.text === undefined) continue;
      if (!header) {
        header = record.text;
        continue;
      }
      lines.push(record.text);
    }
    const headerFields = fieldsOf(header, undefined, { relaxQuotes: true });
    const width = Array.isArray(headerFields) ? headerFields.length : 0;
    const rows: string[] = [];
    for (let index = 0; rows.length < count; index++) {
      const text = lines[index % lines.length] as string;
      const fields = fieldsOf(text, undefined, { relaxQuotes: true });
      // A row the import refuses (the sample has two records run together on a line) is left out: every row must be new and valid.
      if (!Array.isArray(fields) || !fields[1] || fields.length !== width) continue;
      const number = String(40_000_000 + seed * 1_000_000 + rows.length);
      rows.push(text.replace(`,${fields[1]},`, `,${number},`));
    }
    return `${[header, ...rows].join('\n')}\n`;
  },
};

/** The profiles the same file gives, read as the CLI reads it: what a bare write of the same items writes. */
async function profilesOf(path: string): Promise<ProfileContent[]> {
  const profiles: ProfileContent[] = [];
  const source = await openImportFile(path, { asOf: SNAPSHOT_DATE }, demoImportReaders);
  for await (const record of source.records) {
    if (record.profile) profiles.push(isDraft(record.profile) ? record.profile.derive(undefined) : record.profile);
  }
  return profiles;
}

/** How far an import had gone, from a progress line the CLI printed ("… 4,000 of 10,000 …"), and when. */
interface ProgressMark {
  readonly seconds: number;
  readonly share: number;
}

/**
 * The import's rate over each tenth of the file or more (the state machine reports whole chunks of
 * 5,000 rows), from when its progress crossed it: flat when the import keeps its pace as the table
 * grows. The first stretch includes starting the CLI and uploading the file.
 */
function ratesAlong(marks: readonly ProgressMark[], count: number): string {
  let last: ProgressMark = { seconds: 0, share: 0 };
  const rates: string[] = [];
  for (const mark of marks) {
    if (mark.share - last.share < 0.1 || mark.seconds <= last.seconds) continue;
    rates.push(`to ${Math.round(mark.share * 100)}%: ${Math.round(((mark.share - last.share) * count) / (mark.seconds - last.seconds))}/s`);
    last = mark;
  }
  return rates.length > 0 ? rates.join(', ') : 'no progress lines';
}

/** `bureau companies import <file>` as a user runs it, against the runtime its data folder names. */
function cliImport(path: string, dataDir: string): Promise<{ seconds: number; output: string; marks: ProgressMark[] }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [join(repositoryRoot, 'bin/bureau.js'), 'companies', 'import', path, '--as-of', SNAPSHOT_DATE], {
      cwd: repositoryRoot,
      env: { ...process.env, BUREAU_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const marks: ProgressMark[] = [];
    const take = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      // Rows read in process, or the state machine's batches done: either way a share of the file.
      for (const [, done, total] of text.matchAll(/progress: (?:importing \(batches\) )?(\d+) of (\d+)/g)) {
        marks.push({ seconds: (performance.now() - started) / 1000, share: Number(done) / Number(total) });
      }
    };
    // Progress goes to standard error, results to standard output.
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.once('error', reject);
    child.once('exit', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code === 0) resolve({ seconds, output, marks });
      else reject(new Error(`bureau companies import exited with ${code}:\n${output.slice(-2000)}`));
    });
  });
}

const throughput = (items: number, seconds: number) => ({ items, elapsedMs: seconds * 1000, itemsPerSecond: items / seconds });

export async function run(context: BenchContext): Promise<void> {
  // IMPORT_LIVE_ROWS: another number of rows, for a run between the two scales.
  const count = Number(process.env.IMPORT_LIVE_ROWS) || (context.scale === 'full' ? 100_000 : 1_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'bureau-bench-import-live-'));
  const files = mkdtempSync(join(tmpdir(), 'bureau-bench-import-files-'));
  // As `npm start` runs, without the demo load, whose own writes would share the engine with the import.
  const runtime = await startRuntimeProcess({ ...process.env, BUREAU_DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'ERROR' });
  const client = createDynamoClient(runtime.env);
  const doc = createDocumentClient(client);
  try {
    const rows = [];
    // IMPORT_LIVE_LAYOUTS=bulk or search-export: one layout only (a 100,000-row run of both takes over an hour).
    const only = process.env.IMPORT_LIVE_LAYOUTS?.trim();
    for (const [position, layout] of [bulkLayout, searchExportLayout].entries()) {
      if (only && !layout.label.startsWith(only)) continue;
      const cliFile = join(files, `cli-${position}.csv`);
      const bareFile = join(files, `bare-${position}.csv`);
      writeFileSync(cliFile, await layout.file(count, 2 * position + 1));
      writeFileSync(bareFile, await layout.file(count, 2 * position + 2));

      // The baseline: the items the import would write for as many other companies, written bare into
      // the table the import writes to, whose stream the runtime reads as it reads the import's. Not a
      // table of its own: DynamoDB Local writes a table whose stream nobody reads 4 to 10 times slower
      // once the engine holds other streams' records (measured: 4,900 items in 84 to 115 s, against 9
      // to 11 s into the runtime's table or into a table without a stream).
      // Each measurement starts once the runtime has finished the stream work the one before left behind.
      const settled = await untilQuiet(runtime.pid);
      context.log(
        `${layout.label}: the runtime was quiet after ${settled.seconds.toFixed(0)} s${settled.quiet ? '' : ' (gave up waiting)'}`,
      );
      const items = (await profilesOf(bareFile)).flatMap((profile) => storedItemsOf(profile, new Date().toISOString()));
      context.log(`${layout.label}: bare BatchWriteItem of ${items.length} items…`);
      const bareStarted = performance.now();
      await batchWriteItems(doc, runtime.tables.companies as string, items, BASELINE_CONCURRENCY);
      const bareSeconds = (performance.now() - bareStarted) / 1000;

      await untilQuiet(runtime.pid);
      context.log(`${layout.label}: bureau companies import of ${count} rows…`);
      const imported = await cliImport(cliFile, dataDir);
      context.log(
        `${layout.label}: ${imported.seconds.toFixed(1)} s; ${imported.output.match(/^\d+ rows read:.*$/m)?.[0] ?? 'no summary line'}`,
      );
      context.log(`${layout.label}: companies/s along the file: ${ratesAlong(imported.marks, count)}`);
      // What the import left the runtime to do (stream records read, changes detected): part of its cost.
      const aftermath = await untilQuiet(runtime.pid);
      const socketWarnings = (imported.output.match(/socket usage at capacity/g) ?? []).length;
      rows.push({
        layout: layout.label,
        bareSeconds,
        cliSeconds: imported.seconds,
        settledSeconds: imported.seconds + aftermath.seconds,
        items: items.length,
        socketWarnings,
      });
    }

    context.report(
      rows
        .map((row) =>
          throughputTable(`${row.layout}: ${count} companies, every one new, into the running runtime`, 'companies', [
            { label: `baseline: bare BatchWriteItem of their ${row.items} items`, result: throughput(count, row.bareSeconds) },
            { label: 'bureau companies import (the CLI, whole process)', result: throughput(count, row.cliSeconds) },
            { label: '… until the runtime is quiet again (its stream work done)', result: throughput(count, row.settledSeconds) },
          ]),
        )
        .join('\n'),
    );
    context.report(
      [
        `CLI import / bare BatchWriteItem, companies per second (goal >= ${GOAL}x):`,
        ...rows.map(
          (row) =>
            `  ${row.layout}: ${(row.bareSeconds / row.cliSeconds).toFixed(3)}x (${(row.bareSeconds / row.settledSeconds).toFixed(3)}x with its stream work); SDK socket warnings on the console: ${row.socketWarnings}`,
        ),
      ].join('\n'),
    );
  } finally {
    client.destroy();
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(files, { recursive: true, force: true });
  }
}
