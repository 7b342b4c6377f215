import { describe, expect, it } from 'vitest';
import { MalformedQueryStringError, parseQueryString } from '../../../shared/http/query-string';

describe('query strings', () => {
  it('decode like URLSearchParams: plus as space, escapes, repeats and bare names kept', () => {
    const params = parseQueryString('q=O%E2%80%99Brien+%26+Sons&limit=5&a=1&a=2&flag&=x');

    expect([...params]).toEqual([
      ['q', 'O’Brien & Sons'],
      ['limit', '5'],
      ['a', '1'],
      ['a', '2'],
      ['flag', ''],
      ['', 'x'],
    ]);
  });

  it.each([
    ['q=%E0%A4%A', 'q'],
    ['q=%ZZ', 'q'],
    ['q=%ED%A0%80', 'q'],
    ['limit=5&cursor=%', 'cursor'],
  ])('refuse malformed percent-encoding in %s, naming the parameter', (raw, parameter) => {
    expect(() => parseQueryString(raw)).toThrow(new MalformedQueryStringError(parameter));
  });

  it('refuse a malformed name without echoing it', () => {
    expect(() => parseQueryString('%FF=1')).toThrow(new MalformedQueryStringError(undefined));
  });
});
