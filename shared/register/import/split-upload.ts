import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pLimit from 'p-limit';
import type { Jurisdiction } from '../../companies/profile';
import { type LogicalRecord, logicalRecords } from '../csv-lines';
import { chunkKeyOf, manifestKeyOf, parseUploadKey, splitReportKeyOf } from './object-keys';
import { type RejectedLine, recordChunks } from './record-chunks';
import type { ImportObjects } from './s3-objects';
import { isWholeSnapshot } from './snapshot-coverage';
import { streamHead } from './stream-head';
import { assertNotFutureSnapshot, assertPlausibleSnapshot } from './sweep-guard';
import { SWEEP_SEGMENTS, UnreadableUploadError, type UploadScope, uploadScopeOf } from './upload-scope';
import { isZip, zipEntries } from './zip-entries';

/**
 * Records per chunk: one batch invocation's work, well inside its 15 minutes (docs/deploy.md,
 * "Loading the register") even where the table serves the 8 batches at once slowly: a new on-demand
 * table throttling a first load, or DynamoDB Local, which serves one request at a time. Chunks of
 * 20,000 outlasted it there: a local import of 100,000 new companies reported 93,457 of them
 * unchanged, written by first attempts that were cut off and retried.
 */
export const DEFAULT_CHUNK_RECORDS = 5_000;
/** Enough of an upload's start to tell a zip from a CSV. */
const ZIP_SIGNATURE_BYTES = 4;
/** Chunk uploads in flight while the file is read on. */
const PUTS_IN_FLIGHT = 4;
/** Rejections the split keeps with their line, as the import keeps its own. */
const MAX_KEPT_REJECTIONS = 1000;

/** One item of the Distributed Map: a chunk and where in the upload it comes from. */
export interface ManifestItem {
  readonly key: string;
  /** The line of the entry that the chunk's first record starts on. */
  readonly firstLine: number;
  /** The CSV the chunk is cut from: the zip entry's name, or the uploaded file's. */
  readonly entry: string;
}

/** What the split found out, kept in S3 for the summary: records it could not cut out are rejected here. */
export interface SplitReport {
  readonly entries: readonly { readonly entry: string; readonly records: number; readonly chunks: number }[];
  readonly rejected: number;
  readonly errors: readonly (RejectedLine & { readonly entry: string })[];
}

/** The state machine's input for everything after the split. */
export interface SplitOutcome {
  readonly importId: string;
  readonly manifestKey: string;
  readonly chunks: number;
  readonly records: number;
  readonly jurisdiction: Jurisdiction;
  readonly wholeSnapshot: boolean;
  /** The sweep's segment numbers, empty when the upload is not the whole register. */
  readonly sweepSegments: readonly number[];
  readonly totalSegments: number;
}

interface CsvSource {
  readonly name: string;
  open(): Promise<Readable>;
}

/**
 * Cuts an upload into chunks of whole records for the Distributed Map. A zip (the Companies House
 * bulk file) is saved to `workDir` first, since its directory is at its end, and each CSV inside is
 * cut in turn; a plain CSV is cut as it streams. Writes the chunks, the manifest the Map reads and a
 * report for the summary.
 */
export async function splitUpload(
  objects: ImportObjects,
  uploadKey: string,
  options: { chunkRecords?: number; workDir?: string; asOf?: string } = {},
): Promise<SplitOutcome> {
  const { importId, fileName } = parseUploadKey(uploadKey);
  assertNotFutureSnapshot(fileName, options.asOf);
  const chunkRecords = options.chunkRecords ?? DEFAULT_CHUNK_RECORDS;
  const { head, stream: whole } = await streamHead(await objects.stream(uploadKey), ZIP_SIGNATURE_BYTES);
  const scratch = isZip(head) ? await mkdtemp(join(options.workDir ?? tmpdir(), 'register-upload-')) : undefined;
  try {
    let sources: AsyncIterable<CsvSource> | Iterable<CsvSource>;
    if (scratch) {
      const path = join(scratch, 'upload.zip');
      await pipeline(whole, createWriteStream(path));
      sources = csvEntries(path);
    } else {
      sources = [{ name: fileName, open: async () => whole }];
    }

    const manifest: ManifestItem[] = [];
    const report: { entries: SplitReport['entries'][number][]; rejected: number; errors: SplitReport['errors'][number][] } = {
      entries: [],
      rejected: 0,
      errors: [],
    };
    const puts = pLimit(PUTS_IN_FLIGHT);
    const pending = new Set<Promise<void>>();
    let scope: UploadScope | undefined;
    for await (const source of sources) {
      const records = logicalRecords(await source.open())[Symbol.asyncIterator]();
      const reject = ({ line, message }: RejectedLine) => {
        report.rejected++;
        if (report.errors.length < MAX_KEPT_REJECTIONS) report.errors.push({ entry: source.name, line, message });
      };
      const header = await headerOf(records, reject);
      if (header === undefined) throw new UnreadableUploadError(`${source.name} is empty`);
      const entryScope = uploadScopeOf(source.name === fileName ? [fileName] : [fileName, source.name], header);
      if (scope && scope.jurisdiction !== entryScope.jurisdiction) {
        throw new UnreadableUploadError(`${fileName} mixes register files of ${scope.jurisdiction} and ${entryScope.jurisdiction}`);
      }
      scope = entryScope;
      let count = 0;
      let chunks = 0;
      for await (const chunk of recordChunks(header, { [Symbol.asyncIterator]: () => records }, chunkRecords, reject)) {
        const key = chunkKeyOf(importId, report.entries.length, chunks);
        manifest.push({ key, firstLine: chunk.firstLine, entry: source.name });
        chunks++;
        count += chunk.records;
        // Reading waits while the uploads under way are at the limit: memory holds a few chunks, whatever the file's size.
        while (puts.activeCount + puts.pendingCount >= PUTS_IN_FLIGHT) await Promise.race(pending);
        const put = puts(() => objects.put(key, chunk.text, 'text/csv')).finally(() => pending.delete(put));
        pending.add(put);
      }
      report.entries.push({ entry: source.name, records: count, chunks });
    }
    await Promise.all(pending);
    if (!scope) throw new UnreadableUploadError(`${fileName} holds no CSV file`);
    // A file of no rows is no snapshot: nothing reaches the manifest, so the Map imports nothing and nothing is swept.
    assertPlausibleSnapshot({ file: fileName, records: report.entries.reduce((sum, entry) => sum + entry.records, 0) + report.rejected });
    // Every part of the snapshot in one archive is the whole register too.
    scope = { ...scope, wholeSnapshot: isWholeSnapshot(scope.format, [fileName, ...report.entries.map((entry) => entry.entry)]) };

    const manifestKey = manifestKeyOf(importId);
    await objects.putJson(manifestKey, manifest);
    await objects.putJson(splitReportKeyOf(importId), report satisfies SplitReport);
    return {
      importId,
      manifestKey,
      chunks: manifest.length,
      records: report.entries.reduce((sum, entry) => sum + entry.records, 0),
      jurisdiction: scope.jurisdiction,
      wholeSnapshot: scope.wholeSnapshot,
      sweepSegments: scope.wholeSnapshot ? Array.from({ length: SWEEP_SEGMENTS }, (_, segment) => segment) : [],
      totalSegments: SWEEP_SEGMENTS,
    };
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

async function headerOf(records: AsyncIterator<LogicalRecord>, reject: (rejected: RejectedLine) => void): Promise<string | undefined> {
  for (let next = await records.next(); !next.done; next = await records.next()) {
    if (next.value.text !== undefined) return next.value.text;
    reject({ line: next.value.line, message: next.value.error ?? 'malformed CSV' });
  }
  return undefined;
}

/** The CSV files of a zip, in the archive's order; anything else in it (a readme) is left alone. */
async function* csvEntries(path: string): AsyncGenerator<CsvSource> {
  for await (const entry of zipEntries(path)) {
    if (entry.name.toLowerCase().endsWith('.csv')) yield { name: entry.name, open: () => entry.open() };
  }
}
