import type { CompanyStore } from '../../companies/company-store';
import { DEFAULT_MAX_IMPORT_ERRORS, importProfiles, readImportStream } from './import';
import type { ImportObjects } from './s3-objects';
import type { ManifestItem } from './split-upload';

/** What one batch did, as the Distributed Map's ResultWriter keeps it for the summary. */
export interface BatchResult {
  readonly chunk: ManifestItem;
  readonly read: number;
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly rejected: number;
  readonly errors: readonly { readonly line: number; readonly message: string }[];
  /** Profiles rewritten, by the kind of change. */
  readonly changes: Readonly<Record<string, number>>;
  /** Register values the import does not know, by field, then value: counted, never fatal. */
  readonly unknownValues: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly milliseconds: number;
}

/**
 * A child execution's output is at most 256 KiB: 1,000 rejections of up to this many characters
 * stay well inside it, whatever a validator wrote.
 */
const MAX_MESSAGE_LENGTH = 160;

const shortened = (message: string) => (message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : message);

/**
 * Imports one chunk the split wrote: the same reader and import as `bureau companies import`, with
 * the chunk's lines numbered as the uploaded file's.
 */
export async function importChunk(
  objects: ImportObjects,
  store: Pick<CompanyStore, 'saveMany'>,
  input: { readonly chunk: ManifestItem; readonly asOf: string },
): Promise<BatchResult> {
  const started = Date.now();
  const stream = await objects.stream(input.chunk.key);
  // Line 1 of a chunk is the header and line 2 its first record, which is line firstLine of the file.
  const records = await readImportStream(stream, { asOf: input.asOf, lineOffset: input.chunk.firstLine - 2, file: input.chunk.entry });
  const result = await importProfiles(records, store, { maxErrors: DEFAULT_MAX_IMPORT_ERRORS });
  return {
    chunk: input.chunk,
    read: result.read,
    created: result.created,
    updated: result.updated,
    unchanged: result.unchanged,
    rejected: result.rejected,
    errors: result.errors.map((error) => ({ line: error.line, message: shortened(error.message) })),
    changes: result.changes,
    unknownValues: result.unknownValues,
    milliseconds: Date.now() - started,
  };
}
