import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldsOf, logicalRecords } from '../../../shared/register/csv-lines';
import { propertyRuns } from '../../support/property-runs';

const quotedLine = (fields: readonly string[]) => fields.map((field) => `"${field.replace(/"/g, '""')}"`).join(',');
const field = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', ',', '"', '-', '/', 'é', '0') });

describe('fieldsOf', () => {
  it('reads every fully quoted line exactly as csv-parse does, inner quotes, commas and "," included', () => {
    fc.assert(
      fc.property(fc.array(field, { minLength: 1, maxLength: 12 }), (fields) => {
        const line = quotedLine(fields);
        expect(fieldsOf(line)).toEqual((parse(line) as string[][])[0]);
      }),
      propertyRuns(2000, 20_261_125),
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

describe('logicalRecordBatches', () => {
  it('gives the same records however the stream is cut into chunks, multi-byte letters and CRLF included', async () => {
    const text = '\uFEFFname,"a"\r\n"Ørsted ""A/S""","one\r\ntwo"\r\n\r\n"b","open\n"c","Zoë"\n"d","é"';
    const whole: unknown[] = [];
    for await (const record of logicalRecords(Readable.from([Buffer.from(text)]))) whole.push(record);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 20 }), async (cuts) => {
        const bytes = Buffer.from(text);
        const chunks: Buffer[] = [];
        let at = 0;
        for (const cut of cuts) {
          if (at >= bytes.length) break;
          chunks.push(bytes.subarray(at, at + cut));
          at += cut;
        }
        chunks.push(bytes.subarray(at));
        const records: unknown[] = [];
        for await (const record of logicalRecords(Readable.from(chunks))) records.push(record);
        expect(records).toEqual(whole);
      }),
      propertyRuns(300, 25_112_026),
    );
    expect(whole).toEqual([
      { line: 1, text: 'name,"a"', quotes: 2 },
      { line: 2, text: '"Ørsted ""A/S""","one\ntwo"', quotes: 8 },
      { line: 5, error: 'malformed CSV: a quoted field is never closed' },
      { line: 6, text: '"c","Zoë"', quotes: 4 },
      { line: 7, text: '"d","é"', quotes: 4 },
    ]);
  });
});
