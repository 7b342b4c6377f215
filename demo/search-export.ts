import type { Readable } from 'node:stream';
import type { ContentRecord, ImportReaders } from '../shared/register/import/import';
import { readRegisterCsv } from '../shared/register/register-csv';
import { demoProfile } from './demo-profile';
import { DEMO_AS_OF } from './register-facts';

/**
 * The search export's rows as profiles: the register's facts, and blocks derived from them by the
 * demo rules (seeded, the same seed always deriving the same blocks); rejected rows pass through.
 */
export async function* readSearchExportProfiles(
  stream: Readable,
  options: { seed?: number; asOf?: string } = {},
): AsyncGenerator<ContentRecord> {
  const { seed = 0, asOf = DEMO_AS_OF } = options;
  for await (const record of readRegisterCsv(stream)) {
    yield record.facts
      ? { line: record.line, profile: demoProfile(record.facts, seed, asOf) }
      : { line: record.line, ...(record.error ? { error: record.error } : {}) };
  }
}

/** What the CLI and the local runtime import beside the register's own layouts: the search export, with demo blocks. */
export const demoImportReaders: ImportReaders = {
  'search-export': (stream, options) => readSearchExportProfiles(stream, { seed: options.seed }),
};
