import { describe, expect, it } from 'vitest';
import { percentile, summarize } from '../../bench/support/stats';
import { latencyTable } from '../../bench/support/table';
import { timeInterleaved } from '../../bench/support/timing';

describe('benchmark statistics', () => {
  it('interpolates percentiles between the closest ranks', () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

    expect(percentile(sorted, 0.5)).toBe(5.5);
    expect(percentile(sorted, 0.99)).toBeCloseTo(9.91, 10);
    expect(percentile(sorted, 0)).toBe(1);
    expect(percentile(sorted, 1)).toBe(10);
    expect(percentile([42], 0.99)).toBe(42);
  });

  it('refuses an empty series and fractions outside 0..1', () => {
    expect(() => percentile([], 0.5)).toThrow(/empty/);
    expect(() => percentile([1], 1.5)).toThrow(/fraction/);
  });

  it('summarizes unsorted samples: median, tail, mean and sequential rate', () => {
    const stats = summarize([4, 1, 3, 2]);

    expect(stats).toEqual({ n: 4, p50: 2.5, p99: expect.closeTo(3.97, 10), mean: 2.5, min: 1, max: 4, opsPerSecond: 400 });
  });

  it('prints each row as a multiple of the baseline row', () => {
    const table = latencyTable('Example', [
      { label: 'baseline', stats: summarize([2, 2, 2]) },
      { label: 'subject', stats: summarize([5, 5, 5]) },
    ]);

    const [title, header, , baseline, subject] = table.split('\n');
    expect(title).toBe('Example');
    expect(header).toMatch(/n\s+p50 ms\s+p99 ms\s+mean ms\s+ops\/s\s+p50 vs base\s+mean vs base$/);
    expect(baseline).toMatch(/^baseline\s+3\s+2\.000\s+2\.000\s+2\.000\s+500\s+1\.00x\s+1\.00x$/);
    expect(subject).toMatch(/^subject\s+3\s+5\.000\s+5\.000\s+5\.000\s+200\s+2\.50x\s+2\.50x$/);
  });
});

describe('interleaved timing', () => {
  it('warms each operation up, then alternates chunks so every operation gets its measured calls', async () => {
    const calls: string[] = [];

    const [a, b] = await timeInterleaved([(call: number) => calls.push(`a${call}`), (call: number) => calls.push(`b${call}`)], {
      warmup: 1,
      iterations: 5,
      chunk: 2,
    });

    expect(calls).toEqual(['a0', 'b0', 'a1', 'a2', 'b1', 'b2', 'a3', 'a4', 'b3', 'b4', 'a5', 'b5']);
    expect([a.n, b.n]).toEqual([5, 5]);
  });
});
