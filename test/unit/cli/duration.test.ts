import { describe, expect, it } from 'vitest';
import { formatDuration, InvalidDurationError, parseDuration } from '../../../cli/duration';

describe('parseDuration', () => {
  it.each([
    ['0', 0],
    ['0s', 0],
    ['45s', 45],
    ['30m', 1800],
    ['24h', 86_400],
    ['7d', 604_800],
    [' 2h ', 7200],
  ])('reads %j as %i seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.each(['', '24', 'h', '1.5h', '-1h', '2w', '1h30m', '24 h', '10000000000s'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow(InvalidDurationError);
  });

  it('names the accepted forms when it refuses', () => {
    expect(() => parseDuration('soon')).toThrow(
      '"soon" is not a duration: use 0 or a whole number followed by s, m, h or d (e.g. 30m, 24h, 7d)',
    );
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [59, '59s'],
    [1800, '30m'],
    [5400, '90m'],
    [86_400, '1d'],
    [90_000, '25h'],
  ])('writes %i seconds as %j', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });

  it('round-trips what it writes', () => {
    for (const seconds of [0, 7, 600, 7200, 172_800]) expect(parseDuration(formatDuration(seconds))).toBe(seconds);
  });
});
