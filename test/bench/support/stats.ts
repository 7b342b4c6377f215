/** Summary of one measured series; times in milliseconds. */
export interface LatencyStats {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
  readonly min: number;
  readonly max: number;
  /** Operations per second: 1000 / mean for calls made one at a time, wall-clock rate for concurrent ones. */
  readonly opsPerSecond: number;
}

/** Linear interpolation between the two closest ranks (the "R-7" definition spreadsheets use). */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) throw new Error('percentile of an empty series');
  if (fraction < 0 || fraction > 1) throw new Error(`percentile fraction must be within 0..1, got ${fraction}`);
  const rank = fraction * (sorted.length - 1);
  const below = Math.floor(rank);
  const above = Math.min(below + 1, sorted.length - 1);
  const lower = sorted[below] as number;
  const upper = sorted[above] as number;
  return lower + (upper - lower) * (rank - below);
}

export function summarize(samplesMs: readonly number[]): LatencyStats {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, sample) => sum + sample, 0) / sorted.length;
  return {
    n: sorted.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    mean,
    min: sorted[0] as number,
    max: sorted[sorted.length - 1] as number,
    opsPerSecond: mean > 0 ? 1000 / mean : Number.POSITIVE_INFINITY,
  };
}
