import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { esmRequireBanner, lambdaBundleAliases } from '../../infra/bundling/options';
import { functions } from '../../infra/catalogue';
import { repositoryRoot } from '../../local/paths';
import { allQueues } from '../../shared/queues/queues';
import { allTables } from '../../shared/storage/tables';
import type { BenchContext } from './support/context';
import { summarize } from './support/stats';
import { renderTable } from './support/table';

export const name = 'Function bundles: size and module load time (the cold start before the handler)';

/** What every function reads at cold start, so importing the bundle runs its whole init. */
const coldStartEnvironment: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'eu-west-2',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  SIGNING_KEY_SECRET_ID: 'arn:aws:secretsmanager:eu-west-2:000000000000:secret:bench',
  WEBHOOK_SECRETS_KEY_ID: 'arn:aws:kms:eu-west-2:000000000000:key/bench',
  POWERTOOLS_LOG_LEVEL: 'ERROR',
  ...Object.fromEntries(allTables.map((table) => [table.envVar, `bench-${table.id}`])),
  ...Object.fromEntries(allQueues.map((queue) => [queue.envVar, `https://sqs.eu-west-2.amazonaws.com/000000000000/${queue.id}`])),
};

/** Imports the bundle in a fresh Node process and reports how long the import took, in ms. */
function loadTime(file: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(file)}); process.stdout.write(String(performance.now() - t));`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: coldStartEnvironment, encoding: 'utf8' }));
}

export async function run(context: BenchContext): Promise<void> {
  const loads = context.scale === 'full' ? 15 : 5;
  const outdir = mkdtempSync(join(tmpdir(), 'bureau-bundles-'));
  try {
    const rows: string[][] = [];
    for (const spec of functions) {
      // As NodejsFunction bundles it (infra/constructs/bureau-function.ts): ESM, minified, SDK inside.
      const result = await build({
        entryPoints: [join(repositoryRoot, spec.entry)],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        minify: true,
        mainFields: ['module', 'main'],
        banner: { js: esmRequireBanner },
        alias: lambdaBundleAliases,
        write: false,
        logLevel: 'silent',
      });
      const code = result.outputFiles[0]?.contents ?? new Uint8Array();
      const file = join(outdir, `${spec.id}.mjs`);
      writeFileSync(file, code);
      const times = summarize(Array.from({ length: loads }, () => loadTime(file)));
      rows.push([spec.id, `${(code.byteLength / 1024).toFixed(0)} KB`, times.p50.toFixed(0), times.max.toFixed(0)]);
    }
    context.report(
      renderTable(
        `Each function's bundle, imported ${loads} times in a fresh Node process`,
        ['function', 'minified', 'load p50 ms', 'load max ms'],
        rows,
      ),
    );
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
