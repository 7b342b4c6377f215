import type { ImportResult } from '../shared/register/import/import';
import type { CliIo } from './io';

/** Rejected rows listed after the summary; --json prints every kept one. */
export const REJECTS_SHOWN = 20;

const BLOCK_LABELS: Readonly<Record<string, string>> = {
  overview: 'overview',
  tradingStatus: 'trading status',
  filingBehaviour: 'filing behaviour',
  riskOfFailure: 'risk of failure',
  creditCapacity: 'credit capacity',
  earlySignals: 'early signals',
};

/** What the updates changed, by kind, as lines for people: the blocks, then the signals raised and settled. */
export function changeLines(changes: ImportResult['changes']): string[] {
  const entries = Object.entries(changes).sort(([a], [b]) => (a < b ? -1 : 1));
  const blocks = entries.filter(([kind]) => kind.startsWith('block:'));
  const detected = entries.filter(([kind]) => kind.startsWith('signal:') && kind.split(':').length === 2);
  const settled = entries.filter(([kind]) => kind.split(':').length === 3);
  const lines: string[] = [];
  if (blocks.length > 0) {
    lines.push(`Blocks changed: ${blocks.map(([kind, count]) => `${BLOCK_LABELS[kind.slice(6)] ?? kind.slice(6)} ${count}`).join(', ')}`);
  }
  if (detected.length > 0) lines.push(`Signals detected: ${detected.map(([kind, count]) => `${kind.slice(7)} ${count}`).join(', ')}`);
  if (settled.length > 0) {
    lines.push(`Signals settled: ${settled.map(([kind, count]) => `${kind.split(':')[1]} ${kind.split(':')[2]} ${count}`).join(', ')}`);
  }
  return lines;
}

/** Register values no rule knows: what an operator should look at before the next import. */
export function unknownValueLines(unknownValues: ImportResult['unknownValues']): string[] {
  return Object.entries(unknownValues).map(
    ([field, values]) =>
      `Values no rule knows in ${field} (mapped to other): ${Object.entries(values)
        .map(([value, count]) => `"${value}" ${count}`)
        .join(', ')}`,
  );
}

export function printRejects(io: CliIo, result: ImportResult): void {
  if (result.errors.length === 0) return;
  io.err('Rejected rows:');
  for (const error of result.errors.slice(0, REJECTS_SHOWN))
    io.err(`  ${error.file ? `${error.file} ` : ''}line ${error.line}: ${error.message}`);
  if (result.rejected > REJECTS_SHOWN)
    io.err(`  … and ${result.rejected - REJECTS_SHOWN} more (run with --json to see up to ${result.errors.length})`);
}
