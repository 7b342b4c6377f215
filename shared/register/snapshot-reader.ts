import type { Readable } from 'node:stream';
import { companiesHouseFacts } from './companies-house-bulk';
import { croFacts } from './cro-companies';
import { readCsvRecordBatches } from './csv-records';
import { matchHeader } from './formats';
import { FieldRow, Header, type PublishedRow, RowError, type SnapshotFacts } from './snapshot-facts';

/** One data row of a register snapshot: its facts, or why its line cannot give them. */
export interface SnapshotRecord {
  readonly line: number;
  readonly facts?: SnapshotFacts;
  readonly error?: string;
}

/** The header does not name the columns of a register snapshot: nothing in the file can be read. */
export class UnreadableHeaderError extends Error {
  constructor(readonly reason: string) {
    super(`Cannot import this file: ${reason}`);
    this.name = 'UnreadableHeaderError';
  }
}

/**
 * Reads a Companies House bulk file or a CRO companies file, streaming, a chunk's worth of rows at a
 * time, in file order: each row's facts, or its line and why it cannot give them (the wrong number
 * of fields, a broken date, an impossible company number, a byte that is not UTF-8), and the file
 * goes on. A header that is neither format throws UnreadableHeaderError before any row is read.
 */
export async function* readSnapshotBatches(stream: Readable, lineOffset = 0): AsyncGenerator<SnapshotRecord[]> {
  let header: Header | undefined;
  let width = 0;
  let factsOf: ((row: PublishedRow) => SnapshotFacts) | undefined;
  for await (const batch of readCsvRecordBatches(stream, lineOffset)) {
    const rows: SnapshotRecord[] = [];
    for (const record of batch) {
      if ('error' in record) {
        if (!header) throw new UnreadableHeaderError(`line ${record.line}: ${record.error}`);
        rows.push(record);
        continue;
      }
      if (!header) {
        const match = matchHeader(record.fields);
        if ('error' in match) throw new UnreadableHeaderError(match.error);
        if (match.format === 'search-export') throw new UnreadableHeaderError('the search export is read line by line by its own reader');
        header = new Header(new Map(match.columns.map((column, index) => [column, index])));
        width = match.columns.length;
        factsOf = match.format === 'companies-house-bulk' ? companiesHouseFacts : croFacts;
        continue;
      }
      const fields = record.fields;
      if (fields.length !== width) {
        rows.push({
          line: record.line,
          error: `expected ${width} fields, found ${fields.length}${fields.length > width ? ' (two records run together?)' : ''}`,
        });
        continue;
      }
      for (let index = 0; index < width; index++) fields[index] = (fields[index] as string).trim();
      try {
        rows.push({ line: record.line, facts: (factsOf as (row: PublishedRow) => SnapshotFacts)(new FieldRow(header, fields)) });
      } catch (error) {
        if (!(error instanceof RowError)) throw error;
        rows.push({ line: record.line, error: error.message });
      }
    }
    if (rows.length > 0) yield rows;
  }
  if (!header) throw new UnreadableHeaderError('the file is empty');
}

/** The rows of a snapshot one by one (see readSnapshotBatches). */
export async function* readSnapshot(stream: Readable, lineOffset = 0): AsyncGenerator<SnapshotRecord> {
  for await (const batch of readSnapshotBatches(stream, lineOffset)) yield* batch;
}
