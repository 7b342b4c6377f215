import { describe, expect, it } from 'vitest';
import { repeatedTopLevelKey, topLevelKeys } from '../../../shared/http/json-object-keys';

describe('top-level JSON member names', () => {
  it('are read in order, repeats included, skipping nested objects, arrays and string contents', () => {
    const text = '{"a": 1, "b": {"a": 2, "c": [{"a": 3}]}, "d": "x\\":{\\"a", "e\\u0041": [], "a" : null}';

    expect(topLevelKeys(text)).toEqual(['a', 'b', 'd', 'eA', 'a']);
  });

  it.each([
    ['{"client_id":"a","client_id":"b"}', 'client_id'],
    ['{"client_id":"a","client\\u005fid":"b"}', 'client_id'],
    ['{ "x": {"y": 1, "y": 2}, "z": 3 }', undefined],
    ['{"a":"\\\\","b":"\\"a\\":"}', undefined],
  ])('finds the repeated name in %s', (text, repeated) => {
    JSON.parse(text);

    expect(repeatedTopLevelKey(text)).toBe(repeated);
  });
});
