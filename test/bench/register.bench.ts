import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse';
import { parse as parseLine } from 'csv-parse/sync';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { companiesHouseFacts } from '../../shared/register/companies-house-bulk';
import { importProfiles, openImportFile } from '../../shared/register/import/import';
import { registerProfile } from '../../shared/register/register-profile';
import { FieldRow, Header } from '../../shared/register/snapshot-facts';
import { readSnapshotBatches } from '../../shared/register/snapshot-reader';
import { companiesTable } from '../../shared/storage/tables';
import { BULK_HEADER, syntheticBulkRows } from '../../tools/register-files';
import { batchWriteItems, storedItemsOf } from './support/companies';
import type { BenchContext } from './support/context';
import { renderTable, throughputTable } from './support/table';
import { type Throughput, timeThroughput } from './support/timing';

export const name =
  'Register snapshots: the bulk-file reader and rules beside csv-parse alone, and their import beside bare BatchWriteItem';

const AS_OF = '2024-06-01';
/** Requests in flight for the write baseline, as in the import benchmark. */
const BASELINE_CONCURRENCY = 8;

const SIZES = {
  small: { read: 100_000, imported: 10_000 },
  full: { read: 1_000_000, imported: 200_000 },
  million: { read: 1_000_000, imported: 1_000_000 },
} as const;

async function writeSyntheticFile(path: string, rows: number, seed: number): Promise<void> {
  const out = createWriteStream(path);
  out.write(`${BULK_HEADER}\r\n`);
  for (const row of syntheticBulkRows(rows, seed, AS_OF)) {
    if (!out.write(`${row}\r\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
}

/** Runs a job while sampling the heap, and reports the most it grew above where it started. */
async function withPeakHeap<T>(job: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  global.gc?.();
  const start = process.memoryUsage().heapUsed;
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 20);
  try {
    const result = await job();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    return { result, peakMb: (peak - start) / 1024 / 1024 };
  } finally {
    clearInterval(timer);
  }
}

async function csvParseAlone(path: string): Promise<number> {
  let records = 0;
  for await (const _record of createReadStream(path).pipe(parse({ bom: true, relax_column_count: true }))) records++;
  return records - 1;
}

async function readerAlone(path: string): Promise<number> {
  let rows = 0;
  for await (const batch of readSnapshotBatches(createReadStream(path))) rows += batch.length;
  return rows;
}

async function readerAndRules(path: string): Promise<number> {
  let profiles = 0;
  for await (const batch of readSnapshotBatches(createReadStream(path))) {
    for (const record of batch) {
      if (!record.facts) throw new Error(`line ${record.line}: ${record.error}`);
      registerProfile(record.facts, AS_OF);
      profiles++;
    }
  }
  return profiles;
}

/** The items the import writes for the file's companies, derived one by one as they are put. */
function* storedItemsOfFile(rows: number, seed: number) {
  const header = (parseLine(BULK_HEADER) as string[][])[0] ?? [];
  const columns = new Header(new Map(header.map((column, index) => [column.trim(), index])));
  const updatedAt = new Date().toISOString();
  for (const row of syntheticBulkRows(rows, seed, AS_OF)) {
    const fields = (parseLine(row) as string[][])[0] ?? [];
    const facts = companiesHouseFacts(
      new FieldRow(
        columns,
        fields.map((field) => field.trim()),
      ),
    );
    yield* storedItemsOf(registerProfile(facts, AS_OF), updatedAt);
  }
}

export async function run(context: BenchContext): Promise<void> {
  const sizes = SIZES[context.scale];
  const workDir = mkdtempSync(join(tmpdir(), 'bureau-register-bench-'));
  try {
    // Reading: the same synthetic file, csv-parse alone and our reader with every block's rules, alternately.
    const readFile = join(workDir, `BasicCompanyData-${AS_OF}-part1_1.csv`);
    context.log(`writing a synthetic bulk file of ${sizes.read.toLocaleString('en-GB')} rows`);
    await writeSyntheticFile(readFile, sizes.read, 1);
    await csvParseAlone(readFile);
    await readerAndRules(readFile);
    const runs: { label: string; throughput: Throughput; peakMb: number }[] = [];
    for (let round = 0; round < 3; round++) {
      for (const [label, job] of [
        ['baseline: csv-parse alone (records only)', csvParseAlone],
        ['readSnapshotBatches alone (facts, no blocks)', readerAlone],
        ['readSnapshotBatches + registerProfile (facts, every block)', readerAndRules],
      ] as const) {
        const { result, peakMb } = await withPeakHeap(() => timeThroughput(sizes.read, () => job(readFile)));
        runs.push({ label, throughput: result, peakMb });
      }
    }
    const best = (label: string) =>
      runs
        .filter((run) => run.label.startsWith(label))
        .sort((a, b) => b.throughput.itemsPerSecond - a.throughput.itemsPerSecond)[0] as (typeof runs)[number];
    const baseline = best('baseline');
    const facts = best('readSnapshotBatches alone');
    const ours = best('readSnapshotBatches +');
    context.report(
      throughputTable(`Reading a ${sizes.read.toLocaleString('en-GB')}-row bulk file (best of three, alternated)`, 'rows', [
        { label: baseline.label, result: baseline.throughput },
        { label: facts.label, result: facts.throughput },
        { label: ours.label, result: ours.throughput },
      ]),
    );
    context.report(
      renderTable(
        'Heap growth while reading (streaming: flat whatever the size)',
        ['', 'peak MB above start'],
        runs.map((run) => [run.label, run.peakMb.toFixed(1)]),
      ),
    );
    const share = (ours.throughput.elapsedMs - facts.throughput.elapsedMs) / facts.throughput.elapsedMs;
    context.report(
      `  deriving every block adds ${(share * 100).toFixed(1)} % to reading the facts; reading and deriving take ${(ours.throughput.elapsedMs / baseline.throughput.elapsedMs).toFixed(2)}x the time of csv-parse alone\n`,
    );
    rmSync(readFile);

    // Importing: a synthetic file into fresh tables, through the import and with bare BatchWriteItem.
    const importFile = join(workDir, `BasicCompanyData-${AS_OF}-part1_1.csv`);
    context.log(`writing a synthetic bulk file of ${sizes.imported.toLocaleString('en-GB')} rows to import`);
    await writeSyntheticFile(importFile, sizes.imported, 2);
    const forBaseline = await context.createTables([companiesTable]);
    const forImport = await context.createTables([companiesTable]);
    const baselineWrite = await timeThroughput(sizes.imported, () =>
      batchWriteItems(
        forBaseline.doc,
        forBaseline.names[companiesTable.id] as string,
        storedItemsOfFile(sizes.imported, 3),
        BASELINE_CONCURRENCY,
      ),
    );
    const store = new DynamoCompanyStore(forImport.doc, forImport.names[companiesTable.id] as string);
    const imported = await timeThroughput(sizes.imported, async () => {
      const source = await openImportFile(importFile);
      const result = await importProfiles(source.records, store, {
        onProgress: (stats) => {
          if (stats.read % 50_000 < 25) context.log(`imported ${stats.read.toLocaleString('en-GB')} rows`);
        },
      });
      if (result.created !== sizes.imported)
        throw new Error(`import created ${result.created} of ${sizes.imported}: ${JSON.stringify(result.errors.slice(0, 3))}`);
    });
    const again = await timeThroughput(sizes.imported, async () => {
      const source = await openImportFile(importFile);
      const result = await importProfiles(source.records, store);
      if (result.unchanged !== sizes.imported) throw new Error(`re-import left ${result.unchanged} of ${sizes.imported} unchanged`);
    });
    context.report(
      throughputTable(`Import of a ${sizes.imported.toLocaleString('en-GB')}-row synthetic bulk file into DynamoDB Local`, 'rows', [
        { label: `baseline: the same items, derived as put, BatchWriteItem ${BASELINE_CONCURRENCY} in flight`, result: baselineWrite },
        { label: 'bureau companies import (openImportFile + importProfiles)', result: imported },
        { label: 'the same file again (nothing to write)', result: again },
      ]),
    );
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
