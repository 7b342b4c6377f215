import type { BatchResult } from './import-chunk';
import { splitReportKeyOf, summaryKeyOf } from './object-keys';
import type { ImportObjects } from './s3-objects';
import type { ManifestItem, SplitOutcome, SplitReport } from './split-upload';
import { addCoverage, decideSweep, type SnapshotCoverage } from './sweep-guard';

/** Rejected rows the summary keeps with their line, file order; all are counted. */
export const MAX_SUMMARY_REJECTIONS = 1000;

/** Where the Distributed Map's ResultWriter left a map run's results: its output once the run ends. */
export interface MapRunResults {
  readonly ResultWriterDetails: { readonly Bucket: string; readonly Key: string };
}

/** The ResultWriter's manifest.json: the result files of a map run, by how their items ended. */
interface ResultManifest {
  readonly ResultFiles: Partial<Record<'SUCCEEDED' | 'FAILED' | 'PENDING', readonly { readonly Key: string }[]>>;
}

/** One child execution in a ResultWriter file; Input and Output are JSON text. */
export interface ChildExecution {
  readonly Input?: string;
  readonly Output?: string;
  readonly Status?: string;
  readonly Error?: string;
  readonly Cause?: string;
}

export interface FailedBatch extends ManifestItem {
  readonly error: string;
  readonly cause: string;
}

/** What one segment of the gone-companies sweep did (shared/register/import/gone-companies.ts). */
export interface SweepResult {
  readonly scanned: number;
  readonly gone: number;
  readonly failed: number;
}

/** summary.json, beside the upload. */
export interface ImportSummary {
  readonly uploadKey: string;
  readonly asOf: string;
  readonly jurisdiction: string;
  readonly wholeSnapshot: boolean;
  readonly records: number;
  readonly batches: { readonly total: number; readonly succeeded: number; readonly failed: number };
  readonly read: number;
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly rejected: number;
  readonly errors: readonly { readonly entry: string; readonly line: number; readonly message: string }[];
  readonly changes: Readonly<Record<string, number>>;
  readonly unknownValues: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Companies the sweep marked gone, and those it could not write; absent when the upload was not the whole register. */
  readonly sweep?: { readonly scanned: number; readonly gone: number; readonly failed: number };
  /**
   * What the sweep guard weighed (sweep-guard.ts): the register profiles the snapshot listed and those it did not, and why
   * no company was marked removed when it refused. Absent when no sweep was considered.
   */
  readonly sweepGuard?: {
    readonly listed: number;
    readonly unlisted: number;
    readonly coverage: number;
    readonly allowed: boolean;
    readonly forced: boolean;
    readonly refusedBecause?: string;
  };
  readonly failedBatches: readonly FailedBatch[];
  /** Lambda time of the batches, summed: what the import cost in compute. */
  readonly batchMilliseconds: number;
}

/** What the state machine carries on: small, since a state's payload is at most 256 KiB. */
export interface SummaryDigest {
  readonly summaryKey: string;
  readonly failedBatches: number;
  readonly rejected: number;
  /** Whether the sweep guard lets the sweep run; present once the snapshot's coverage was counted. */
  readonly sweepAllowed?: boolean;
}

const addCounts = (into: Record<string, number>, from: Readonly<Record<string, number>>) => {
  for (const [name, value] of Object.entries(from)) into[name] = (into[name] ?? 0) + value;
};

/** Adds the batches up, in manifest order, after the split's own rejections. */
export function summarize(input: {
  readonly uploadKey: string;
  readonly asOf: string;
  readonly split: SplitOutcome;
  readonly report: SplitReport;
  readonly manifest: readonly ManifestItem[];
  readonly succeeded: readonly BatchResult[];
  readonly failed: readonly FailedBatch[];
  readonly sweep?: readonly SweepResult[];
  readonly coverage?: readonly SnapshotCoverage[];
  /** The jurisdiction an operator named to sweep whatever the coverage. */
  readonly forceSweep?: string;
}): ImportSummary {
  const order = new Map(input.manifest.map((item, index) => [item.key, index]));
  const entryOrder = new Map(input.report.entries.map((entry, index) => [entry.entry, index]));
  const batches = [...input.succeeded].sort((a, b) => (order.get(a.chunk.key) ?? 0) - (order.get(b.chunk.key) ?? 0));
  const counts = { read: 0, created: 0, updated: 0, unchanged: 0, rejected: input.report.rejected, batchMilliseconds: 0 };
  const changes: Record<string, number> = {};
  const unknownValues: Record<string, Record<string, number>> = {};
  const errors = [...input.report.errors];
  for (const batch of batches) {
    counts.read += batch.read;
    counts.created += batch.created;
    counts.updated += batch.updated;
    counts.unchanged += batch.unchanged;
    counts.rejected += batch.rejected;
    counts.batchMilliseconds += batch.milliseconds;
    addCounts(changes, batch.changes);
    for (const [field, values] of Object.entries(batch.unknownValues)) {
      unknownValues[field] ??= {};
      addCounts(unknownValues[field], values);
    }
    for (const error of batch.errors) errors.push({ entry: batch.chunk.entry, ...error });
  }
  errors.sort((a, b) => (entryOrder.get(a.entry) ?? 0) - (entryOrder.get(b.entry) ?? 0) || a.line - b.line);
  const failedBatches = [...input.failed].sort((a, b) => (order.get(a.key) ?? 0) - (order.get(b.key) ?? 0));
  const { batchMilliseconds, ...rowCounts } = counts;
  return {
    uploadKey: input.uploadKey,
    asOf: input.asOf,
    jurisdiction: input.split.jurisdiction,
    wholeSnapshot: input.split.wholeSnapshot,
    records: input.split.records,
    batches: { total: input.manifest.length, succeeded: batches.length, failed: input.manifest.length - batches.length },
    ...rowCounts,
    errors: errors.slice(0, MAX_SUMMARY_REJECTIONS),
    changes,
    unknownValues,
    ...(input.sweep
      ? {
          sweep: {
            scanned: input.sweep.reduce((sum, segment) => sum + segment.scanned, 0),
            gone: input.sweep.reduce((sum, segment) => sum + segment.gone, 0),
            failed: input.sweep.reduce((sum, segment) => sum + segment.failed, 0),
          },
        }
      : {}),
    ...(input.coverage ? { sweepGuard: sweepGuardOf(input.split, input.coverage, input.forceSweep) } : {}),
    failedBatches,
    batchMilliseconds,
  };
}

function sweepGuardOf(
  split: SplitOutcome,
  parts: readonly SnapshotCoverage[],
  forceSweep: string | undefined,
): ImportSummary['sweepGuard'] {
  const coverage = addCoverage(parts);
  const decision = decideSweep({ jurisdiction: split.jurisdiction, coverage, forceSweep });
  return {
    ...coverage,
    coverage: decision.coverage,
    allowed: decision.sweep,
    forced: decision.sweep && decision.forced,
    ...(decision.sweep ? {} : { refusedBecause: decision.reason }),
  };
}

export const parsed = <T>(text: string | undefined): T | undefined => (text ? (JSON.parse(text) as T) : undefined);

/**
 * What a map run's items ended as, read from its ResultWriter's files: the outputs of the items that
 * succeeded, and the executions of those that failed or never ended (their input says what was lost).
 */
export async function readMapRun<Output>(
  objects: ImportObjects,
  run: MapRunResults,
): Promise<{ readonly succeeded: Output[]; readonly unfinished: ChildExecution[] }> {
  const results = await objects.readJson<ResultManifest>(run.ResultWriterDetails.Key);
  const executionsIn = async (files: readonly { Key: string }[] = []) =>
    (await Promise.all(files.map((file) => objects.readJson<ChildExecution[]>(file.Key)))).flat();
  const succeeded = (await executionsIn(results.ResultFiles.SUCCEEDED)).flatMap((execution) => {
    const output = parsed<Output>(execution.Output);
    return output ? [output] : [];
  });
  return {
    succeeded,
    unfinished: [...(await executionsIn(results.ResultFiles.FAILED)), ...(await executionsIn(results.ResultFiles.PENDING))],
  };
}

/**
 * Reads what the split and the map run left in S3, adds it up and writes summary.json beside the
 * upload. A batch that never ended well (failed, or still pending when the run stopped) is a failed
 * batch, named by its chunk.
 */
export async function writeImportSummary(
  objects: ImportObjects,
  input: {
    readonly uploadKey: string;
    readonly asOf: string;
    readonly split: SplitOutcome;
    readonly batches: MapRunResults;
    readonly sweep?: readonly SweepResult[];
    readonly coverage?: readonly SnapshotCoverage[];
    readonly forceSweep?: string;
  },
): Promise<{ digest: SummaryDigest; summary: ImportSummary }> {
  const { succeeded, unfinished } = await readMapRun<BatchResult>(objects, input.batches);
  const failed = unfinished.map((execution): FailedBatch => {
    const { chunk } = parsed<{ chunk: ManifestItem }>(execution.Input) ?? { chunk: { key: '?', firstLine: 0, entry: '?' } };
    return { ...chunk, error: execution.Error ?? execution.Status ?? 'unknown', cause: execution.Cause ?? '' };
  });
  const summary = summarize({
    uploadKey: input.uploadKey,
    asOf: input.asOf,
    split: input.split,
    report: await objects.readJson<SplitReport>(splitReportKeyOf(input.split.importId)),
    manifest: await objects.readJson<ManifestItem[]>(input.split.manifestKey),
    succeeded,
    failed,
    ...(input.sweep ? { sweep: input.sweep } : {}),
    ...(input.coverage ? { coverage: input.coverage } : {}),
    ...(input.forceSweep ? { forceSweep: input.forceSweep } : {}),
  });
  const summaryKey = summaryKeyOf(input.uploadKey);
  await objects.putJson(summaryKey, summary);
  const digest: SummaryDigest = {
    summaryKey,
    failedBatches: summary.failedBatches.length,
    rejected: summary.rejected,
    ...(summary.sweepGuard ? { sweepAllowed: summary.sweepGuard.allowed } : {}),
  };
  return { digest, summary };
}
