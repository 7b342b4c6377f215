import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { repeatedTopLevelKey, topLevelKeys } from '../../../shared/http/json-object-keys';
import { propertyRuns } from '../../support/property-runs';

describe('top-level JSON member names', () => {
  it('are read in order, repeats included, skipping nested objects, arrays and string contents', () => {
    const text = '{"a": 1, "b": {"a": 2, "c": [{"a": 3}]}, "d": "x\\":{\\"a", "e\\u0041": [], "a" : null}';

    expect(topLevelKeys(text)).toEqual(['a', 'b', 'd', 'eA', 'a']);
  });

  it.each([
    ['a name repeated', '{"client_id":"a","client_id":"b"}', 'client_id'],
    ['a name repeated in an escaped spelling', '{"client_id":"a","client\\u005fid":"b"}', 'client_id'],
    ['a name repeated only inside a nested object', '{ "x": {"y": 1, "y": 2}, "z": 3 }', undefined],
    ['quotes and colons inside strings', '{"a":"\\\\","b":"\\"a\\":"}', undefined],
    ['70 spaces before the colon', `{"url":"a","url"${' '.repeat(70)}:"b"}`, 'url'],
    ['5,000 spaces before the colon', `{"url":"a","url"${' '.repeat(5000)}:"b"}`, 'url'],
    ['tabs and line breaks before the colon', '{"url":"a","url"\t\r\n\t:"b"}', 'url'],
    ['line breaks, an escape and tabs', `{"url":"a",${'\n'.repeat(100)}"u\\u0072l"${'\t'.repeat(100)}:"b"}`, 'url'],
  ])('%s', (_label, text, repeated) => {
    JSON.parse(text);

    expect(repeatedTopLevelKey(text)).toBe(repeated);
  });
});

/** JSON white space, sometimes long: where a hand scan that looks a fixed distance ahead goes blind. */
const space = fc.oneof(
  fc.constant(''),
  fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\r'), maxLength: 4 }),
  fc.integer({ min: 60, max: 300 }).map((length) => ' '.repeat(length)),
);
/** A member name written as JSON may write it: some characters as \u escapes. */
const spelled = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map(
      (escapes) =>
        `"${[...name]
          .map((char, index) =>
            escapes[index] ? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}` : JSON.stringify(char).slice(1, -1),
          )
          .join('')}"`,
    );
const value = fc.jsonValue({ maxDepth: 3 }).map((json) => JSON.stringify(json));

describe('repeated top-level names, over generated objects', () => {
  it('are found exactly when a name repeats, whatever the spacing, escapes and nesting', () => {
    const names = fc.array(fc.constantFrom('url', 'name', 'client_id', 'a"b', 'é', 'x y'), { minLength: 0, maxLength: 6 });
    fc.assert(
      fc.property(
        names.chain((keys) =>
          fc.tuple(fc.constant(keys), fc.tuple(...keys.map((key) => fc.tuple(space, spelled(key), space, space, value, space))), space),
        ),
        ([keys, members, trailing]) => {
          const text = `{${members.map(([a, key, b, c, json, d]) => `${a}${key}${b}:${c}${json}${d}`).join(',')}${trailing}}`;
          JSON.parse(text);
          const expected = keys.find((key, index) => keys.indexOf(key) !== index);

          expect(topLevelKeys(text)).toEqual(keys);
          expect(repeatedTopLevelKey(text)).toBe(expected);
        },
      ),
      propertyRuns(400, 20261124),
    );
  });
});
