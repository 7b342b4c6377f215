import type { Readable } from 'node:stream';
import { fieldsOf, logicalRecordBatches } from './csv-lines';

/** One CSV record with the 1-based line it starts on, or the reason its line cannot be read. */
/** Fields are the reader's own array: a consumer may change them in place. */
export type CsvRecord = { readonly line: number; readonly fields: string[] } | { readonly line: number; readonly error: string };

/** What UTF-8 decoding leaves where the input had a byte that is not UTF-8. */
const REPLACEMENT_CHARACTER = '\uFFFD';

/**
 * The records of a CSV stream, a chunk's worth at a time (csv-lines.ts). A record that cannot be
 * read, or that holds a byte that is not UTF-8, is reported at its line and the reading goes on.
 * Lines count from `lineOffset + 1`.
 */
export async function* readCsvRecordBatches(stream: Readable, lineOffset = 0): AsyncGenerator<CsvRecord[]> {
  for await (const batch of logicalRecordBatches(stream)) {
    const records: CsvRecord[] = [];
    for (const record of batch) {
      const line = lineOffset + record.line;
      if (record.text === undefined) records.push({ line, error: record.error ?? 'malformed CSV' });
      else if (record.text.includes(REPLACEMENT_CHARACTER)) {
        records.push({ line, error: 'the line holds a byte that is not UTF-8 (the registers publish UTF-8)' });
      } else {
        const fields = fieldsOf(record.text, record.quotes);
        records.push('error' in fields ? { line, error: fields.error } : { line, fields });
      }
    }
    yield records;
  }
}
