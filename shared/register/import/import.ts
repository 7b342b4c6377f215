import pLimit from 'p-limit';
import {
  type CompanyStore,
  canonicalJson,
  isDraft,
  isStoredDraft,
  type ProfileInput,
  type SaveOutcome,
  type StoredFacts,
} from '../../companies/company-store';
import { BLOCK_NAMES, type CompanyProfile, type ProfileContent } from '../../companies/profile';
import { type ImportRecord, messageOf } from './import-record';

export type { ContentRecord, ImportRecord } from './import-record';
export {
  formatOfHead,
  type ImportFormat,
  type ImportReaders,
  type ImportSource,
  openImportFile,
  readImportStream,
  type StreamOptions,
  UnsupportedImportFileError,
} from './import-sources';
export { readNdjsonProfiles } from './ndjson-profiles';

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
  readonly file?: string;
  readonly message: string;
}

export interface ImportResult extends ImportStats {
  /** The first `maxErrors` rejections, in the order they were found. */
  readonly errors: readonly ImportError[];
  /**
   * What the updates changed, by kind: `block:<name>` for a block whose values changed,
   * `signal:<kind>` for a new early signal, `signal:<kind>:<state>` for one that changed state.
   */
  readonly changes: Readonly<Record<string, number>>;
  /** Register values no rule knows, by field and value, with how many rows carried them. */
  readonly unknownValues: Readonly<Record<string, Readonly<Record<string, number>>>>;
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
  const changes: Record<string, number> = {};
  const unknownValues: Record<string, Record<string, number>> = {};
  const limit = pLimit(concurrency);
  const inFlight = new Set<Promise<void>>();
  let fatal: { error: unknown } | undefined;

  const snapshot = (): ImportStats => ({ ...counts });
  const reject = (record: Pick<ImportRecord, 'line' | 'file'> | undefined, message: string) => {
    counts.rejected++;
    if (errors.length < maxErrors) errors.push({ line: record?.line ?? 0, ...(record?.file ? { file: record.file } : {}), message });
  };
  const noteUnknown = (record: ImportRecord) => {
    for (const { field, value } of record.unknownValues ?? []) {
      const values = unknownValues[field] ?? {};
      unknownValues[field] = values;
      if (value in values || Object.keys(values).length < MAX_UNKNOWN_VALUES_PER_FIELD) values[value] = (values[value] ?? 0) + 1;
    }
  };

  const write = async (records: readonly (ImportRecord & { profile: ProfileInput })[]) => {
    const batch = records.map((record) => ({ ...record, watched: watchDerivation(record.profile) }));
    // Read no further ahead than the writes under way: memory stays flat whatever the file's size.
    while (limit.activeCount + limit.pendingCount >= concurrency) await Promise.race(inFlight);
    const written: Promise<void> = limit(() =>
      store.saveMany(
        batch.map((record) => record.watched.input),
        { concurrency: batchSize },
      ),
    )
      .then((results) => {
        for (const [index, result] of results.entries()) {
          const record = batch[index];
          if (result.status === 'rejected') {
            reject(record, messageOf(result.reason));
            continue;
          }
          counts[result.value]++;
          if (result.value === 'updated' && record)
            for (const kind of record.watched.changeKinds()) changes[kind] = (changes[kind] ?? 0) + 1;
        }
        options.onProgress?.(snapshot());
      })
      .catch((error: unknown) => {
        fatal ??= { error };
      })
      .finally(() => inFlight.delete(written));
    inFlight.add(written);
  };

  let batch: (ImportRecord & { profile: ProfileInput })[] = [];
  for await (const record of source) {
    if (fatal) break;
    counts.read++;
    noteUnknown(record);
    if (record.profile === undefined) {
      reject(record, record.error ?? 'no profile on this line');
      continue;
    }
    batch.push(record as ImportRecord & { profile: ProfileInput });
    if (batch.length >= batchSize) {
      await write(batch);
      batch = [];
    }
  }
  if (batch.length > 0 && !fatal) await write(batch);
  await Promise.all(inFlight);
  if (fatal) throw fatal.error;
  return { ...snapshot(), errors, changes, unknownValues };
}

/** Distinct unknown values kept per field: enough to show an operator what the register started publishing. */
const MAX_UNKNOWN_VALUES_PER_FIELD = 50;

/**
 * Remembers what a draft was last derived from and into, so that once its write is known to have
 * updated the profile the import can say what changed; finished content has no before to compare.
 */
function watchDerivation(input: ProfileInput): { input: ProfileInput; changeKinds(): string[] } {
  if (!isDraft(input)) return { input, changeKinds: () => [] };
  let last: { before: CompanyProfile | undefined; after: ProfileContent } | undefined;
  const stored = isStoredDraft(input)
    ? {
        deriveStored: (current: StoredFacts | undefined) => {
          const derived = input.deriveStored(current);
          last = { before: current, after: derived.content };
          return derived;
        },
      }
    : {};
  return {
    input: {
      ...input,
      derive: (current) => {
        const after = input.derive(current);
        last = { before: current, after };
        return after;
      },
      ...stored,
    },
    changeKinds: () => (last?.before ? changeKindsOf(last.before, last.after) : []),
  };
}

/** The kinds of change between a stored profile and the content replacing it. */
export function changeKindsOf(before: ProfileContent, after: ProfileContent): string[] {
  const kinds = BLOCK_NAMES.filter((block) => canonicalJson(before[block]) !== canonicalJson(after[block])).map(
    (block) => `block:${block}`,
  );
  const known = new Map(before.earlySignals.signals.map((signal) => [signal.id, signal.state]));
  for (const signal of after.earlySignals.signals) {
    const state = known.get(signal.id);
    if (state === undefined) kinds.push(`signal:${signal.kind}`);
    else if (state !== signal.state) kinds.push(`signal:${signal.kind}:${signal.state}`);
  }
  return kinds;
}
