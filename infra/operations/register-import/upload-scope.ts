import { parse } from 'csv-parse/sync';
import type { Jurisdiction } from '../../../shared/companies/profile';
import { type CsvFormat, matchHeader } from '../companies/register/formats';

/** Scan segments of the gone-companies sweep: each a Lambda invocation that must scan its share of the table within 15 minutes. */
export const SWEEP_SEGMENTS = 32;

/** What a header says about the upload: whose companies it holds and whether it is the whole register. */
export interface UploadScope {
  readonly format: CsvFormat;
  readonly jurisdiction: Jurisdiction;
  /** The whole register as of its date, so companies it leaves out are gone; a part file or a sample is not. */
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

/** Companies House publishes the register whole (…AsOneFile…) and in parts (…-part1_7.zip): a part is not the register. */
const PART_FILE = /part\d+_\d+/i;

export function uploadScopeOf(fileName: string, header: string): UploadScope {
  const [fields = []] = parse(header, { relax_column_count: true }) as string[][];
  const match = matchHeader(fields);
  if ('error' in match) throw new UnreadableUploadError(`${fileName}: ${match.error}`);
  return {
    format: match.format,
    jurisdiction: JURISDICTION_OF[match.format],
    // The search export is a list of search results, never the register.
    wholeSnapshot: match.format !== 'search-export' && !PART_FILE.test(fileName),
  };
}
