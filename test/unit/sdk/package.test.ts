import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../../local/paths';

const packageDir = join(repositoryRoot, 'packages/client');
const sources = (readdirSync(join(packageDir, 'src'), { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));

describe('the @bureau/client package', () => {
  it('imports nothing but its own modules: no dependency, no node: built-in, so edge runtimes load it', () => {
    const imports = sources.flatMap((file) =>
      [...readFileSync(join(packageDir, 'src', file), 'utf8').matchAll(/\b(?:from|import)\s*\(?\s*'([^']+)'/g)].map(([, target]) => ({
        file,
        target,
      })),
    );
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter(({ target }) => !target?.startsWith('./') || !target.endsWith('.js'))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.exports).toEqual({
      '.': { types: './dist/index.d.ts', import: './dist/index.js' },
      './package.json': './package.json',
    });
  });

  it("compiles on its own, with the DOM's types in place of Node's (tsc -p packages/client)", () => {
    const tsc = join(repositoryRoot, 'node_modules/.bin/tsc');
    expect(() => execFileSync(tsc, ['-p', packageDir, '--noEmit'], { encoding: 'utf8', stdio: 'pipe' })).not.toThrow();
  }, 60_000);
});
