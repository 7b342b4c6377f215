import type { TargetFactory } from '../../cli/context';
import { run } from '../../cli/main';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `npx bureau …` in process against the target given, its output kept line by line. */
export async function runCli(argv: readonly string[], resolveTarget: TargetFactory): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, { io: { out: (line) => out.push(line), err: (line) => err.push(line) }, resolveTarget, env: {} });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}
