import type { LatencyStats } from './stats';
import type { Throughput } from './timing';

export interface LatencyRow {
  readonly label: string;
  readonly stats: LatencyStats;
}

export interface ThroughputRow {
  readonly label: string;
  readonly result: Throughput;
}

/** Right-aligned columns under a title, first column left-aligned; plain text so it pastes into Markdown code blocks. */
export function renderTable(title: string, header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ');
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [title, line(header), rule, ...rows.map(line)].join('\n');
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(3));
const rate = (value: number) => (value >= 100 ? Math.round(value).toLocaleString('en-GB') : value.toFixed(1));
const ratio = (value: number, baseline: number) => `${(value / baseline).toFixed(2)}x`;

/**
 * Latency table; the first row is the baseline and every row shows its p50 and mean as a multiple
 * of the baseline's, measured in the same run.
 */
export function latencyTable(title: string, [baseline, ...others]: readonly [LatencyRow, ...LatencyRow[]]): string {
  const rows = [baseline, ...others].map(({ label, stats }) => [
    label,
    String(stats.n),
    ms(stats.p50),
    ms(stats.p99),
    ms(stats.mean),
    rate(stats.opsPerSecond),
    ratio(stats.p50, baseline.stats.p50),
    ratio(stats.mean, baseline.stats.mean),
  ]);
  return renderTable(title, ['', 'n', 'p50 ms', 'p99 ms', 'mean ms', 'ops/s', 'p50 vs base', 'mean vs base'], rows);
}

/** Throughput table; the first row is the baseline, the ratio is its rate over each row's rate (how many times slower). */
export function throughputTable(title: string, unit: string, [baseline, ...others]: readonly [ThroughputRow, ...ThroughputRow[]]): string {
  const rows = [baseline, ...others].map(({ label, result }) => [
    label,
    String(result.items),
    (result.elapsedMs / 1000).toFixed(2),
    rate(result.itemsPerSecond),
    `${(baseline.result.itemsPerSecond / result.itemsPerSecond).toFixed(2)}x`,
  ]);
  return renderTable(title, ['', unit, 'seconds', `${unit}/s`, 'time vs base'], rows);
}
