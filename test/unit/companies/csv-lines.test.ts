import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldsOf, logicalRecords } from '../../../infra/operations/companies/csv-lines';

const quotedLine = (fields: readonly string[]) => fields.map((field) => `"${field.replace(/"/g, '""')}"`).join(',');
const field = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', ',', '"', '-', '/', 'é', '0') });

describe('fieldsOf', () => {
  it('reads every fully quoted line exactly as csv-parse does, inner quotes, commas and "," included', () => {
    fc.assert(
      fc.property(fc.array(field, { minLength: 1, maxLength: 12 }), (fields) => {
        const line = quotedLine(fields);
        expect(fieldsOf(line)).toEqual((parse(line) as string[][])[0]);
      }),
      { seed: 20_261_125, numRuns: 2000 },
    );
  });

  it('reads unquoted and partly quoted lines through csv-parse, and names a malformed one', () => {
    expect(fieldsOf('a,"b,c",d')).toEqual(['a', 'b,c', 'd']);
    expect(fieldsOf('"a","b" x,"c"')).toEqual({
      error: 'malformed CSV: a quoted field is followed by more text instead of a comma or the end of the line',
    });
    expect(fieldsOf('a,b"c,d', undefined, { relaxQuotes: true })).toEqual(['a', 'b"c', 'd']);
  });
});

describe('logicalRecords', () => {
  it('joins the lines of a quoted field, reports an unterminated one at its line, and reads the lines after it again', async () => {
    const text = '"a","one\ntwo"\r\n"b","open\r\n"c","x"\r\n\r\n"d","y"';
    const records = [];
    for await (const record of logicalRecords(Readable.from([text]))) records.push(record);
    expect(records).toEqual([
      { line: 1, text: '"a","one\ntwo"', quotes: 4 },
      { line: 3, error: 'malformed CSV: a quoted field is never closed' },
      { line: 4, text: '"c","x"', quotes: 4 },
      { line: 6, text: '"d","y"', quotes: 4 },
    ]);
  });
});
