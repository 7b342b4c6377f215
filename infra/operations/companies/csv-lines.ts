import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse/sync';

/**
 * CSV read record by record on physical lines, joining lines only while a quoted field is open.
 * The registers' files have rows where the line break after one record is missing and the next runs
 * on; a parser that reads the whole stream as one CSV document loses its footing there and misreads
 * the rows that follow, while line by line each such row is reported and the next line reads cleanly.
 */

/** A quoted field may span lines; one spanning more than this is taken as unterminated. */
const MAX_LINES_PER_RECORD = 10;

export interface LogicalRecord {
  /** 1-based line where the record starts. */
  readonly line: number;
  readonly text?: string;
  /** How many quote characters the text holds. */
  readonly quotes?: number;
  readonly error?: string;
}

function quoteCount(text: string): number {
  let count = 0;
  for (let at = text.indexOf('"'); at !== -1; at = text.indexOf('"', at + 1)) count++;
  return count;
}

/** Joins physical lines while a quoted field is open; gives up on a record after MAX_LINES_PER_RECORD. */
export async function* logicalRecords(stream: Readable): AsyncGenerator<LogicalRecord> {
  const pending: { line: number; text: string }[] = [];
  let lineNumber = 0;
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY })[Symbol.asyncIterator]();
  const nextLine = async () => {
    const next = await lines.next();
    if (next.done) return undefined;
    lineNumber += 1;
    return { line: lineNumber, text: lineNumber === 1 ? next.value.replace(/^\uFEFF/, '') : next.value };
  };

  for (;;) {
    const first = pending.shift() ?? (await nextLine());
    if (!first) return;
    if (first.text.trim() === '') continue;
    let quotes = quoteCount(first.text);
    if (quotes % 2 === 0) {
      yield { line: first.line, text: first.text, quotes };
      continue;
    }
    const parts = [first];
    while (quotes % 2 === 1 && parts.length < MAX_LINES_PER_RECORD) {
      const continuation = pending.shift() ?? (await nextLine());
      if (!continuation) break;
      parts.push(continuation);
      quotes += quoteCount(continuation.text);
    }
    if (quotes % 2 === 1) {
      yield { line: first.line, error: 'malformed CSV: a quoted field is never closed' };
      // The lines after the broken one are read again on their own.
      pending.unshift(...parts.slice(1));
      continue;
    }
    yield { line: first.line, text: parts.map((part) => part.text).join('\n'), quotes };
  }
}

const CSV_ERROR_EXPLANATIONS: Readonly<Record<string, string>> = {
  CSV_INVALID_CLOSING_QUOTE: 'a quoted field is followed by more text instead of a comma or the end of the line',
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is never closed',
};

const SEPARATOR = '","';

/**
 * The fields of one record. The registers' bulk files quote every field, and almost no field holds
 * a quote: a record that starts and ends with a quote and has exactly two quotes per field has no
 * quote inside any field, so its fields are what lies between the `","` separators, and splitting
 * there is the CSV parse, only without reading it character by character (csv-parse is most of the
 * time a bulk file takes to read). Any other record goes to csv-parse; `relaxQuotes` lets it take
 * quotes inside unquoted fields, as the search export has them.
 */
export function fieldsOf(
  text: string,
  quotes = quoteCount(text),
  options: { relaxQuotes?: boolean } = {},
): string[] | { readonly error: string } {
  if (text.length >= 2 && text.charCodeAt(0) === 34 && text.charCodeAt(text.length - 1) === 34) {
    const fields = text.slice(1, -1).split(SEPARATOR);
    if (quotes === 2 * fields.length) return fields;
  }
  try {
    return (parse(text, { relax_quotes: options.relaxQuotes ?? false }) as string[][])[0] ?? [];
  } catch (error) {
    if (error instanceof CsvError) return { error: `malformed CSV: ${CSV_ERROR_EXPLANATIONS[error.code] ?? error.code}` };
    throw error;
  }
}
