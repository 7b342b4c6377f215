import type { Target, TargetFactory } from '../../cli/context';
import { run } from '../../cli/main';
import type { TestTables } from './dynamo';
import { testSealer } from './sealer';

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

/**
 * A target over the test's own companies table and nothing else, read when the CLI asks for it, so a
 * test whose tables are made anew for each case gives the current ones.
 */
export const companiesTableTarget =
  (tables: () => TestTables, sealer: Target['sealer'] = testSealer()): TargetFactory =>
  async () => ({
    doc: tables().doc,
    tables: {
      clients: 'unused',
      companies: tables().names.companies as string,
      watches: 'unused',
      webhooks: 'unused',
      deliveries: 'unused',
      workspace: 'unused',
    },
    sealer,
    loopbackReceivers: false,
    description: 'the test tables',
    close: async () => {},
  });
