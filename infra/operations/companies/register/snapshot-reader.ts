import type { Readable } from 'node:stream';
import { companiesHouseFacts } from './companies-house-bulk';
import { croFacts } from './cro-companies';
import { readCsvRecords } from './csv-records';
import { matchHeader } from './formats';
import { RowError, type SnapshotFacts } from './snapshot-facts';

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
  let columns: readonly string[] | undefined;
  let factsOf: ((row: Record<string, string>) => SnapshotFacts) | undefined;
  for await (const record of readCsvRecords(stream, lineOffset)) {
    if ('error' in record) {
      if (!columns) throw new UnreadableHeaderError(`line ${record.line}: ${record.error}`);
      yield record;
      continue;
    }
    if (!columns) {
      const match = matchHeader(record.fields);
      if ('error' in match) throw new UnreadableHeaderError(match.error);
      if (match.format === 'search-export') throw new UnreadableHeaderError('the search export is read line by line by its own reader');
      columns = match.columns;
      factsOf = match.format === 'companies-house-bulk' ? companiesHouseFacts : croFacts;
      continue;
    }
    if (record.fields.length !== columns.length) {
      yield {
        line: record.line,
        error: `expected ${columns.length} fields, found ${record.fields.length}${record.fields.length > columns.length ? ' (two records run together?)' : ''}`,
      };
      continue;
    }
    const row: Record<string, string> = {};
    for (let index = 0; index < columns.length; index++) row[columns[index] as string] = record.fields[index] as string;
    try {
      yield { line: record.line, facts: (factsOf as (row: Record<string, string>) => SnapshotFacts)(row) };
    } catch (error) {
      if (!(error instanceof RowError)) throw error;
      yield { line: record.line, error: error.message };
    }
  }
  if (!columns) throw new UnreadableHeaderError('the file is empty');
}
