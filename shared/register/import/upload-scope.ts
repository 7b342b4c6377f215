import { parse } from 'csv-parse/sync';
import type { Jurisdiction } from '../../companies/profile';
import { type CsvFormat, matchHeader } from '../formats';
import { isWholeSnapshot } from './snapshot-coverage';

/** Scan segments of the gone-companies sweep: each a Lambda invocation that must scan its share of the table within 15 minutes. */
export const SWEEP_SEGMENTS = 32;

/** What a header says about the upload: whose companies it holds and whether it is the whole register. */
export interface UploadScope {
  readonly format: CsvFormat;
  readonly jurisdiction: Jurisdiction;
  /** The whole register as of its date (snapshot-coverage.ts), so companies it leaves out are gone; a part file or a sample is not. */
  readonly wholeSnapshot: boolean;
}

export class UnreadableUploadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnreadableUploadError';
  }
}

const JURISDICTION_OF: Readonly<Record<CsvFormat, Jurisdiction>> = {
  'companies-house-bulk': 'GB',
  'cro-companies': 'IE',
  'search-export': 'GB',
};

/** The scope of an upload, from its header and the names of the upload and of the files in it. */
export function uploadScopeOf(names: readonly string[], header: string): UploadScope {
  const [fields = []] = parse(header, { relax_column_count: true }) as string[][];
  const match = matchHeader(fields);
  if ('error' in match) throw new UnreadableUploadError(`${names.join(': ')}: ${match.error}`);
  return {
    format: match.format,
    jurisdiction: JURISDICTION_OF[match.format],
    wholeSnapshot: isWholeSnapshot(match.format, names),
  };
}
