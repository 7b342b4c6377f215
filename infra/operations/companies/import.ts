import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import pLimit from 'p-limit';
import type { CompanyStore, SaveOutcome } from '../../../shared/companies/company-store';
import type { ProfileContent } from '../../../shared/companies/profile';
import { demoProfile } from '../demo/demo-profile';
import { DEMO_AS_OF } from '../demo/register-facts';
import { validateProfileContent } from './profile-validation';
import { readRegisterCsv } from './register-csv';

/** One input record: a profile to save, or the reason its line cannot be one. */
export interface ImportRecord {
  /** 1-based line of the input where the record starts. */
  readonly line: number;
  readonly profile?: ProfileContent;
  readonly error?: string;
}

export interface ImportStats {
  /** Records read from the source so far. */
  readonly read: number;
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly rejected: number;
}

export interface ImportError {
  readonly line: number;
  readonly message: string;
}

export interface ImportResult extends ImportStats {
  /** The first `maxErrors` rejections, in the order they were found. */
  readonly errors: readonly ImportError[];
}

export interface ImportOptions {
  /** Batches being written at once. */
  readonly concurrency?: number;
  /** Profiles per batch: one batched read of the stored hashes, batched writes of new ones, one transaction per changed one. */
  readonly batchSize?: number;
  /** Rejections kept with their message; every one is counted. Keeps memory flat on a badly broken file. */
  readonly maxErrors?: number;
  /** Called after each batch is written. */
  readonly onProgress?: (stats: ImportStats) => void;
}

export const DEFAULT_IMPORT_CONCURRENCY = 4;
export const DEFAULT_IMPORT_BATCH_SIZE = 25;
export const DEFAULT_MAX_IMPORT_ERRORS = 1000;

/**
 * Saves every profile the source yields and counts what happened. Reading waits while
 * `concurrency` batches of `batchSize` profiles are being written, so memory stays bounded whatever
 * the size of the input. A row that cannot be saved is rejected with its line and the reason; a
 * failure of a whole batch (the table unreachable, say) stops the import.
 */
export async function importProfiles(
  source: AsyncIterable<ImportRecord>,
  store: Pick<CompanyStore, 'saveMany'>,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_IMPORT_CONCURRENCY);
  const batchSize = Math.max(1, options.batchSize ?? DEFAULT_IMPORT_BATCH_SIZE);
  const maxErrors = options.maxErrors ?? DEFAULT_MAX_IMPORT_ERRORS;
  const counts: Record<SaveOutcome | 'read' | 'rejected', number> = { read: 0, created: 0, updated: 0, unchanged: 0, rejected: 0 };
  const errors: ImportError[] = [];
  const limit = pLimit(concurrency);
  const inFlight = new Set<Promise<void>>();
  let fatal: { error: unknown } | undefined;

  const snapshot = (): ImportStats => ({ ...counts });
  const reject = (line: number, message: string) => {
    counts.rejected++;
    if (errors.length < maxErrors) errors.push({ line, message });
  };

  const write = async (batch: readonly (ImportRecord & { profile: ProfileContent })[]) => {
    // Read no further ahead than the writes under way: memory stays flat whatever the file's size.
    while (limit.activeCount + limit.pendingCount >= concurrency) await Promise.race(inFlight);
    const written: Promise<void> = limit(() =>
      store.saveMany(
        batch.map((record) => record.profile),
        { concurrency: batchSize },
      ),
    )
      .then((results) => {
        for (const [index, result] of results.entries()) {
          if (result.status === 'fulfilled') counts[result.value]++;
          else reject(batch[index]?.line ?? 0, messageOf(result.reason));
        }
        options.onProgress?.(snapshot());
      })
      .catch((error: unknown) => {
        fatal ??= { error };
      })
      .finally(() => inFlight.delete(written));
    inFlight.add(written);
  };

  let batch: (ImportRecord & { profile: ProfileContent })[] = [];
  for await (const record of source) {
    if (fatal) break;
    counts.read++;
    if (record.profile === undefined) {
      reject(record.line, record.error ?? 'no profile on this line');
      continue;
    }
    batch.push(record as ImportRecord & { profile: ProfileContent });
    if (batch.length >= batchSize) {
      await write(batch);
      batch = [];
    }
  }
  if (batch.length > 0 && !fatal) await write(batch);
  await Promise.all(inFlight);
  if (fatal) throw fatal.error;
  return { ...snapshot(), errors };
}

const messageOf = (reason: unknown) => (reason instanceof Error ? reason.message : String(reason));

/**
 * Reads newline-delimited JSON, one profile document per line (as the API returns it, or without
 * version and updatedAt). Blank lines are skipped; a line that is not JSON or not a valid profile
 * becomes an error record naming what is wrong.
 */
export async function* readNdjsonProfiles(stream: Readable): AsyncGenerator<ImportRecord> {
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      yield { line, error: `not valid JSON: ${messageOf(error)}` };
      continue;
    }
    const validation = validateProfileContent(value);
    yield validation.ok ? { line, profile: validation.profile } : { line, error: validation.errors.join('; ') };
  }
}

export type ImportFormat = 'ndjson' | 'csv';

export class UnsupportedImportFileError extends Error {
  constructor(path: string) {
    super(
      `Cannot tell what ${path} holds: use a .ndjson or .jsonl file of profile documents, or a .csv file in the Companies House register export's columns`,
    );
    this.name = 'UnsupportedImportFileError';
  }
}

const FORMAT_BY_EXTENSION: Readonly<Record<string, ImportFormat>> = { '.ndjson': 'ndjson', '.jsonl': 'ndjson', '.csv': 'csv' };

/** By extension; for any other name, by the first non-blank character (a JSON object, or a CSV header). */
export async function detectImportFormat(path: string): Promise<ImportFormat> {
  const byExtension = FORMAT_BY_EXTENSION[extname(path).toLowerCase()];
  if (byExtension) return byExtension;
  const file = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await file.read({ buffer: Buffer.alloc(4096), position: 0 });
    const start = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart();
    if (start.startsWith('{')) return 'ndjson';
    if (/^"?company_name"?\s*,/.test(start)) return 'csv';
  } finally {
    await file.close();
  }
  throw new UnsupportedImportFileError(path);
}

export interface ImportSource {
  readonly format: ImportFormat;
  readonly records: AsyncIterable<ImportRecord>;
}

/** Opens a file for import in the format it holds; CSV rows get their demo blocks from `seed`. */
export async function openImportFile(path: string, options: { seed?: number } = {}): Promise<ImportSource> {
  const format = await detectImportFormat(path);
  // Opening here, not lazily in the stream, makes a missing or unreadable file fail now.
  const stream = (await open(path, 'r')).createReadStream();
  return { format, records: format === 'ndjson' ? readNdjsonProfiles(stream) : readRegisterProfiles(stream, { seed: options.seed }) };
}

/**
 * The register CSV's rows as profiles: the register's facts, and blocks derived from them by the
 * demo rules (seeded, the same seed always deriving the same blocks); rejected rows pass through.
 */
export async function* readRegisterProfiles(
  stream: Readable,
  options: { seed?: number; asOf?: string } = {},
): AsyncGenerator<ImportRecord> {
  const { seed = 0, asOf = DEMO_AS_OF } = options;
  for await (const record of readRegisterCsv(stream)) {
    yield record.facts
      ? { line: record.line, profile: demoProfile(record.facts, seed, asOf) }
      : { line: record.line, ...(record.error ? { error: record.error } : {}) };
  }
}
