import type { LogicalRecord } from '../csv-lines';

/** One piece of a register file: its header, then whole records, laid out on the original file's lines. */
export interface RecordChunk {
  readonly header: string;
  /** The original line that the chunk's second line (its first record) stands for. */
  readonly firstLine: number;
  readonly records: number;
  readonly text: string;
}

export interface RejectedLine {
  readonly line: number;
  readonly message: string;
}

const linesIn = (text: string) => {
  let count = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
};

/**
 * Cuts the records after a CSV file's header into chunks of `size` records, each starting with the header. Lines the
 * records do not cover (blank lines, a record the reader gave up on) stay in the chunk as blank
 * lines, so line k of a chunk is line firstLine + k - 2 of the file and a reader given that offset
 * reports the file's own lines. Records the reader gave up on go to `onRejected`.
 */
export async function* recordChunks(
  header: string,
  records: AsyncIterable<LogicalRecord>,
  size: number,
  onRejected: (rejected: RejectedLine) => void,
): AsyncGenerator<RecordChunk> {
  let lines: string[] = [];
  let firstLine = 0;
  let count = 0;
  let nextLine = 0;
  const chunk = (): RecordChunk => ({ header, firstLine, records: count, text: `${lines.join('\n')}\n` });

  for await (const record of records) {
    if (record.text === undefined) {
      onRejected({ line: record.line, message: record.error ?? 'malformed CSV' });
      continue;
    }
    if (count === 0) {
      lines = [header, record.text];
      firstLine = record.line;
    } else {
      for (; nextLine < record.line; nextLine++) lines.push('');
      lines.push(record.text);
    }
    nextLine = record.line + linesIn(record.text);
    count++;
    if (count === size) {
      yield chunk();
      count = 0;
    }
  }
  if (count > 0) yield chunk();
}
