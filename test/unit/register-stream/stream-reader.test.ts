import { describe, expect, it } from 'vitest';
import {
  basicAuthorization,
  LineSplitter,
  reconnectDelay,
  StreamHttpError,
  StreamIdleError,
  streamUrl,
} from '../../../shared/register/stream/stream-reader';

const chunks = (splitter: LineSplitter, ...parts: string[]) => parts.flatMap((part) => splitter.push(Buffer.from(part)));

describe('LineSplitter', () => {
  it('joins lines split across chunks and tells heartbeats apart', () => {
    const splitter = new LineSplitter(1024);

    const items = chunks(splitter, '{"a":', '1}\n\n', '\r\n{"b":2}\r', '\n{"c"', ':3}');

    expect(items).toEqual([
      { kind: 'line', text: '{"a":1}' },
      { kind: 'heartbeat' },
      { kind: 'heartbeat' },
      { kind: 'line', text: '{"b":2}' },
    ]);
    expect(splitter.end()).toEqual([{ kind: 'line', text: '{"c":3}' }]);
  });

  it('drops a line over the limit without keeping it, reports its size, and goes on with the next', () => {
    const splitter = new LineSplitter(10);

    const items = chunks(splitter, 'x'.repeat(8), 'y'.repeat(8), 'z'.repeat(100), '\n{"ok":1}\n');

    expect(items).toEqual([
      { kind: 'oversize', bytes: 116 },
      { kind: 'line', text: '{"ok":1}' },
    ]);
  });

  it('keeps multi-byte characters split between chunks whole', () => {
    const splitter = new LineSplitter(1024);
    const bytes = Buffer.from('{"name":"Óg"}\n');

    const items = [...splitter.push(bytes.subarray(0, 11)), ...splitter.push(bytes.subarray(11))];

    expect(items).toEqual([{ kind: 'line', text: '{"name":"Óg"}' }]);
  });
});

describe('reconnectDelay', () => {
  const fixed = () => 0;

  it('waits at least a minute after a 429, longer if Retry-After says so', () => {
    expect(reconnectDelay(new StreamHttpError('companies', 429, undefined, ''), 1, {}, fixed)).toBe(60_000);
    expect(reconnectDelay(new StreamHttpError('companies', 429, 120_000, ''), 1, {}, fixed)).toBe(120_000);
  });

  it('waits at least ten seconds after other failures, doubling to a cap, with jitter on top', () => {
    const unavailable = new StreamHttpError('companies', 503, undefined, '');

    expect([1, 2, 3, 10].map((n) => reconnectDelay(unavailable, n, {}, fixed))).toEqual([10_000, 20_000, 40_000, 300_000]);
    expect(reconnectDelay(new StreamIdleError('filings', 90_000), 1, {}, () => 0.999)).toBeLessThan(15_000);
    expect(reconnectDelay(new Error('socket hang up'), 1, {}, () => 0.5)).toBe(12_500);
  });

  it('reconnects promptly after a connection the register ended', () => {
    expect(reconnectDelay(undefined, 0)).toBe(1000);
  });
});

describe('the request', () => {
  it('asks for the stream from a timepoint, with the key as the Basic user and an empty password', () => {
    expect(streamUrl('https://stream.companieshouse.gov.uk/', 'insolvency-cases', 42)).toBe(
      'https://stream.companieshouse.gov.uk/insolvency-cases?timepoint=42',
    );
    expect(streamUrl('http://127.0.0.1:9/', 'companies')).toBe('http://127.0.0.1:9/companies');
    expect(Buffer.from(basicAuthorization('key-1').slice(6), 'base64').toString()).toBe('key-1:');
  });
});
