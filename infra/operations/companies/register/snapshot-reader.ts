import type { Readable } from 'node:stream';
import { companiesHouseFacts } from './companies-house-bulk';
import { croFacts } from './cro-companies';
import { readCsvRecords } from './csv-records';
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
 * Reads a Companies House bulk file or a CRO companies file, streaming: one record per data row,
 * in file order. A row with the wrong number of fields, a broken date, an impossible company number
 * or a byte that is not UTF-8 is reported with its line and reason, and the file goes on. A header
 * that is neither format throws UnreadableHeaderError before any row is read.
 */
export async function* readSnapshot(stream: Readable, lineOffset = 0): AsyncGenerator<SnapshotRecord> {
  let header: Header | undefined;
  let width = 0;
  let factsOf: ((row: PublishedRow) => SnapshotFacts) | undefined;
  for await (const record of readCsvRecords(stream, lineOffset)) {
    if ('error' in record) {
      if (!header) throw new UnreadableHeaderError(`line ${record.line}: ${record.error}`);
      yield record;
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
      yield {
        line: record.line,
        error: `expected ${width} fields, found ${fields.length}${fields.length > width ? ' (two records run together?)' : ''}`,
      };
      continue;
    }
    for (let index = 0; index < width; index++) fields[index] = (fields[index] as string).trim();
    try {
      yield { line: record.line, facts: (factsOf as (row: PublishedRow) => SnapshotFacts)(new FieldRow(header, fields)) };
    } catch (error) {
      if (!(error instanceof RowError)) throw error;
      yield { line: record.line, error: error.message };
    }
  }
  if (!header) throw new UnreadableHeaderError('the file is empty');
}
