import type { Readable } from 'node:stream';
import { type CsvError, parse } from 'csv-parse';

/** One CSV record with the 1-based line it starts on, or the reason its line cannot be read. */
export type CsvRecord = { readonly line: number; readonly fields: readonly string[] } | { readonly line: number; readonly error: string };

const CSV_ERROR_EXPLANATIONS: Readonly<Record<string, string>> = {
  CSV_INVALID_CLOSING_QUOTE: 'a quoted field is followed by more text instead of a comma or the end of the line',
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is never closed',
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: 'the record has a different number of fields',
};

/** What UTF-8 decoding leaves where the input had a byte that is not UTF-8. */
const REPLACEMENT_CHARACTER = '\uFFFD';

const newlinesIn = (fields: readonly string[]) => {
  let count = 0;
  for (const field of fields) for (let at = field.indexOf('\n'); at !== -1; at = field.indexOf('\n', at + 1)) count++;
  return count;
};

/**
 * The records of a CSV stream, parsed by csv-parse as one document (the registers' bulk files quote
 * every field, so a quoted line break is data, not the end of a record). A record csv-parse cannot
 * read is reported at its line and the parse goes on; so is a record holding a byte that is not
 * UTF-8. Blank lines are skipped. Lines count from `lineOffset + 1`.
 */
export async function* readCsvRecords(stream: Readable, lineOffset = 0): AsyncGenerator<CsvRecord> {
  // Skipped records are reported by callback, ahead of the records still buffered: they wait in
  // line order and are yielded before the first record that comes after them.
  const skipped: { line: number; error: string }[] = [];
  const parser = stream.pipe(
    parse({
      bom: true,
      info: true,
      relax_column_count: true,
      skip_records_with_error: true,
      on_skip: (error: CsvError | undefined) => {
        if (!error) return;
        const line = lineOffset + Number((error as { lines?: number }).lines ?? 0);
        if (skipped.at(-1)?.line === line) return;
        skipped.push({ line, error: `malformed CSV: ${CSV_ERROR_EXPLANATIONS[error.code] ?? error.code}` });
      },
    }),
  );
  stream.on('error', (error) => parser.destroy(error));
  for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    const line = lineOffset + info.lines - newlinesIn(record);
    while (skipped.length > 0 && (skipped[0]?.line ?? 0) < line) yield skipped.shift() as CsvRecord;
    if (record.length === 1 && record[0] === '') continue;
    if (record.some((field) => field.includes(REPLACEMENT_CHARACTER))) {
      yield { line, error: 'the line holds a byte that is not UTF-8 (the registers publish UTF-8)' };
      continue;
    }
    yield { line, fields: record };
  }
  yield* skipped;
}
