import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { type CsvFormat, isRegisterFormat, matchHeader } from '../formats';
import { registerDraft } from '../register-profile';
import { readSnapshotBatches } from '../snapshot-reader';
import type { ImportRecord } from './import-record';
import { readNdjsonProfiles } from './ndjson-profiles';
import { snapshotDateOf } from './snapshot-date';
import { streamHead } from './stream-head';
import { isZip, zipEntries } from './zip-entries';

/** What a file or stream holds: profile documents, or one of the CSV layouts. */
export type ImportFormat = 'ndjson' | CsvFormat;

/** The file cannot be imported at all: nothing in it is read. */
export class UnsupportedImportFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedImportFileError';
  }
}

export interface StreamOptions {
  /** Date of the register snapshot (YYYY-MM-DD): required for the registers' bulk files. */
  readonly asOf?: string;
  /** Added to every line number, so a part of a file reports the lines of the whole. */
  readonly lineOffset?: number;
  /** Seed of the demo blocks derived for rows of the search export (by a reader of the demo's). */
  readonly seed?: number;
  /** The file the stream is (inside an archive), named on every record. */
  readonly file?: string;
}

/** Bytes enough to hold the first line of any format read here (the bulk header is about 1 KB). */
const HEAD_BYTES = 64 * 1024;

/** The format the first line names; throws UnsupportedImportFileError naming what is missing. */
export function formatOfHead(head: string, name: string): ImportFormat {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('{')) return 'ndjson';
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  let fields: string[];
  try {
    fields = (parse(firstLine, { relax_quotes: true }) as string[][])[0] ?? [];
  } catch {
    fields = [];
  }
  const match = matchHeader(fields);
  if ('error' in match) throw new UnsupportedImportFileError(`Cannot import ${name}: ${match.error}`);
  return match.format;
}

function snapshotDateFor(format: ImportFormat, options: StreamOptions, name: string): string {
  const asOf = options.asOf ?? snapshotDateOf(name);
  if (!asOf) {
    throw new UnsupportedImportFileError(
      `Cannot import ${name}: a ${format === 'cro-companies' ? 'CRO companies' : 'Companies House bulk'} file needs the date of its snapshot; its name carries none, so give it (--as-of YYYY-MM-DD)`,
    );
  }
  return asOf;
}

async function* withPlace(records: AsyncIterable<ImportRecord>, options: StreamOptions): AsyncGenerator<ImportRecord> {
  const offset = options.lineOffset ?? 0;
  if (offset === 0 && !options.file) {
    yield* records;
    return;
  }
  for await (const record of records) yield { ...record, line: record.line + offset, ...(options.file ? { file: options.file } : {}) };
}

/**
 * Readers of layouts the register's rules cannot derive profiles from, supplied by whoever imports
 * them: the search export holds too few facts, so its rows get demo blocks, which only the local
 * runtime and the CLI bring (`demo/search-export.ts`). A deployed import is given none and refuses
 * such a file by name.
 */
export interface ImportReaders {
  readonly 'search-export'?: (stream: Readable, options: StreamOptions) => AsyncIterable<ImportRecord>;
}

/** Refuses, before anything is read, a layout no reader was given for. */
function assertReadable(format: ImportFormat, name: string, readers: ImportReaders): void {
  if (format === 'search-export' && !readers['search-export']) {
    throw new UnsupportedImportFileError(
      `Cannot import ${name}: it is in the Companies House search export layout, whose rows hold too few facts for the register's rules; import a bulk file (BasicCompanyData) or a CRO file instead`,
    );
  }
}

/** The records of a stream whose format is known. */
function recordsOf(
  format: ImportFormat,
  stream: Readable,
  options: StreamOptions,
  name: string,
  readers: ImportReaders,
): AsyncIterable<ImportRecord> {
  if (format === 'ndjson') return withPlace(readNdjsonProfiles(stream), options);
  const readSearchExport = readers['search-export'];
  if (format === 'search-export' && readSearchExport) return withPlace(readSearchExport(stream, options), options);
  assertReadable(format, name, readers);
  const asOf = snapshotDateFor(format, options, name);
  return withPlace(registerRecords(stream, asOf), options);
}

async function* registerRecords(stream: Readable, asOf: string): AsyncGenerator<ImportRecord> {
  for await (const batch of readSnapshotBatches(stream)) {
    for (const record of batch) {
      if (!record.facts) {
        yield { line: record.line, error: record.error ?? 'no facts on this line' };
        continue;
      }
      yield {
        line: record.line,
        profile: registerDraft(record.facts, asOf),
        ...(record.facts.unknownValues.length > 0 ? { unknownValues: record.facts.unknownValues } : {}),
      };
    }
  }
}

/**
 * The records of a stream in any format read here, told from its first line. Register bulk files
 * need the snapshot date (`asOf`); the search export gets demo blocks. Throws
 * UnsupportedImportFileError before yielding anything when the first line names no format.
 */
export async function readImportStream(
  stream: Readable,
  options: StreamOptions = {},
  readers: ImportReaders = {},
): Promise<AsyncIterable<ImportRecord>> {
  const { head, stream: whole } = await streamHead(stream, HEAD_BYTES);
  const name = options.file ?? 'the stream';
  return recordsOf(formatOfHead(head.toString('utf8'), name), whole, options, name, readers);
}

export interface ImportSource {
  readonly format: ImportFormat;
  /** The snapshot date register rows are derived as of. */
  readonly asOf?: string;
  /** The files inside a zip archive, in order; absent for a plain file. */
  readonly entries?: readonly { readonly name: string; readonly size: number }[];
  readonly records: AsyncIterable<ImportRecord>;
}

/**
 * Opens a file for import: NDJSON profile documents, a register CSV, or a zip archive of register
 * CSVs (the Companies House bulk product, whole or in parts). The format, and for register files
 * the snapshot date (from `asOf` or the file's name), are settled here, so a file that cannot be
 * imported is refused before anything is written.
 */
export async function openImportFile(path: string, options: StreamOptions = {}, readers: ImportReaders = {}): Promise<ImportSource> {
  const file = await open(path, 'r');
  let start: Buffer;
  try {
    const { buffer, bytesRead } = await file.read({ buffer: Buffer.alloc(HEAD_BYTES), position: 0 });
    start = buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
  const name = basename(path);
  if (isZip(start)) return openZip(path, options, readers);
  // An empty NDJSON file is a valid file of no profiles.
  const blankNdjson = /\.(nd)?jsonl?$/i.test(name) && start.toString('utf8').trim() === '';
  const format = blankNdjson ? 'ndjson' : formatOfHead(start.toString('utf8'), name);
  const asOf = isRegisterFormat(format) ? snapshotDateFor(format, options, name) : undefined;
  assertReadable(format, name, readers);
  const stream = (await open(path, 'r')).createReadStream();
  return {
    format,
    ...(asOf ? { asOf } : {}),
    records: recordsOf(format, stream, { ...options, ...(asOf ? { asOf } : {}) }, name, readers),
  };
}

async function openZip(path: string, options: StreamOptions, readers: ImportReaders): Promise<ImportSource> {
  const name = basename(path);
  const entries: { name: string; size: number; format: ImportFormat; open: () => Promise<Readable> }[] = [];
  for await (const entry of zipEntries(path)) {
    const inflating = await entry.open();
    const { head } = await streamHead(inflating, HEAD_BYTES);
    inflating.destroy();
    entries.push({
      name: entry.name,
      size: entry.size,
      format: formatOfHead(head.toString('utf8'), `${name}: ${entry.name}`),
      open: entry.open,
    });
  }
  const first = entries[0];
  if (!first) throw new UnsupportedImportFileError(`Cannot import ${name}: the archive holds no files`);
  const mixed = entries.find((entry) => entry.format !== first.format);
  if (mixed) throw new UnsupportedImportFileError(`Cannot import ${name}: ${mixed.name} is not in the format of ${first.name}`);
  assertReadable(first.format, `${name}: ${first.name}`, readers);
  const asOf = isRegisterFormat(first.format)
    ? snapshotDateFor(first.format, { asOf: options.asOf ?? snapshotDateOf(name) ?? snapshotDateOf(first.name) }, name)
    : undefined;
  // The directory was read once to check every entry; each is streamed again in turn for the import.
  async function* records(): AsyncGenerator<ImportRecord> {
    for await (const entry of zipEntries(path)) {
      yield* recordsOf(
        first?.format as ImportFormat,
        await entry.open(),
        { ...options, ...(asOf ? { asOf } : {}), file: entry.name },
        entry.name,
        readers,
      );
    }
  }
  return {
    format: first.format,
    ...(asOf ? { asOf } : {}),
    entries: entries.map((entry) => ({ name: entry.name, size: entry.size })),
    records: records(),
  };
}
