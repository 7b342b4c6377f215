import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
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

/**
 * The records of a stream, a chunk's worth at a time: lines are split and joined synchronously
 * within each chunk the stream delivers, so a file of millions of lines does not pay a promise per
 * line. Joins physical lines while a quoted field is open; gives up on a record after
 * MAX_LINES_PER_RECORD lines, reports it at its first line and reads the lines after it again on
 * their own. Blank lines between records are skipped; a UTF-8 byte order mark is dropped.
 */
export async function* logicalRecordBatches(stream: Readable): AsyncGenerator<LogicalRecord[]> {
  const decoder = new StringDecoder('utf8');
  let out: LogicalRecord[] = [];
  let lineNumber = 0;
  let open: { line: number; text: string }[] = [];
  let openQuotes = 0;

  const unterminated = () => {
    const [first, ...again] = open;
    open = [];
    openQuotes = 0;
    if (first) out.push({ line: first.line, error: 'malformed CSV: a quoted field is never closed' });
    for (const part of again) take(part.line, part.text);
  };
  function take(line: number, text: string): void {
    if (open.length === 0) {
      if (text.trim() === '') return;
      const quotes = quoteCount(text);
      if (quotes % 2 === 0) {
        out.push({ line, text, quotes });
        return;
      }
      open = [{ line, text }];
      openQuotes = quotes;
      return;
    }
    open.push({ line, text });
    openQuotes += quoteCount(text);
    if (openQuotes % 2 === 0) {
      out.push({ line: (open[0] as { line: number }).line, text: open.map((part) => part.text).join('\n'), quotes: openQuotes });
      open = [];
      openQuotes = 0;
    } else if (open.length >= MAX_LINES_PER_RECORD) {
      unterminated();
    }
  }
  const physical = (text: string) => {
    lineNumber += 1;
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    take(lineNumber, lineNumber === 1 && line.startsWith('\uFEFF') ? line.slice(1) : line);
  };

  let rest = '';
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    const text = rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      physical(text.slice(start, end));
      start = end + 1;
    }
    rest = text.slice(start);
    if (out.length > 0) {
      yield out;
      out = [];
    }
  }
  rest += decoder.end();
  if (rest !== '') physical(rest);
  while (open.length > 0) unterminated();
  if (out.length > 0) yield out;
}

/** The records of a stream one by one (see logicalRecordBatches). */
export async function* logicalRecords(stream: Readable): AsyncGenerator<LogicalRecord> {
  for await (const batch of logicalRecordBatches(stream)) yield* batch;
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
