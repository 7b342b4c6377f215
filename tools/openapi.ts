import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repositoryRoot } from '../local/paths';
import { openApiDocument } from '../shared/openapi/document';

/**
 * `npm run openapi` prints the API's OpenAPI document (or writes it: `-- --out file.json`);
 * `npm run openapi -- --lint` checks it with Redocly CLI's recommended rules and redocly.yaml's
 * settings, and fails on any error or warning.
 */
export function lintOpenApiDocument(document: unknown = openApiDocument): { ok: boolean; output: string } {
  const folder = mkdtempSync(join(tmpdir(), 'bureau-openapi-'));
  try {
    const file = join(folder, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
    const cli = join(repositoryRoot, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    const run = spawnSync(
      process.execPath,
      [cli, 'lint', file, '--config', join(repositoryRoot, 'redocly.yaml'), '--max-problems', '1000'],
      {
        cwd: repositoryRoot,
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      },
    );
    const output = `${run.stdout}${run.stderr}`;
    return { ok: run.status === 0 && !/\d+ warnings?\b/.test(output), output };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

function main(args: readonly string[]): number {
  if (args.includes('--lint')) {
    const { ok, output } = lintOpenApiDocument();
    console.log(output.trim());
    return ok ? 0 : 1;
  }
  const outAt = args.indexOf('--out');
  const text = `${JSON.stringify(openApiDocument, null, 2)}\n`;
  if (outAt >= 0 && args[outAt + 1]) writeFileSync(args[outAt + 1] as string, text);
  else process.stdout.write(text);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(main(process.argv.slice(2)));
