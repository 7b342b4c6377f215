import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { lambdaBundleAliases } from '../../infra/bundling/options';
import { functions, registerImportFunctions } from '../../infra/catalogue';
import { repositoryRoot } from '../../local/paths';

/** A deployed function runs only its own code: nothing of the local runtime, the CLI or operator tools. */
const NOT_DEPLOYED = /^infra\//;
/** The register import's functions run the operator's import, and nothing else of infra/. */
const OPERATOR_CODE = /^infra\/operations\//;
/** The register's handlers: the import's steps, and the feeds (the CRO download, the stream consumer). */
const REGISTER_IMPORT_HANDLERS = /^functions\/register-(import|download|stream)\//;

function sourcesUnder(folder: string): string[] {
  return readdirSync(join(repositoryRoot, folder)).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(join(repositoryRoot, path)).isDirectory()) return sourcesUnder(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Every relative module a source file imports, as a path from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(repositoryRoot, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => match[1] as string);
  return specifiers.map((specifier) => relative(repositoryRoot, resolve(repositoryRoot, dirname(file), specifier)));
}

async function bundledSources(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [join(repositoryRoot, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    alias: lambdaBundleAliases,
  });
  return Object.keys(result.metafile.inputs).filter((input) => !input.includes('node_modules'));
}

describe('what a deployed function carries', () => {
  it.each(functions.map((spec) => [spec.id, spec.entry]))(
    '%s: its bundle holds no module of the local runtime, the CLI or operator code',
    async (_id, entry) => {
      const ours = await bundledSources(entry);

      expect(ours.some((input) => input.startsWith('shared/'))).toBe(true);
      expect(ours.filter((input) => NOT_DEPLOYED.test(input) && !input.startsWith('infra/bundling/'))).toEqual([]);
    },
  );

  it.each(registerImportFunctions.map((spec) => [spec.id, spec.entry]))(
    '%s: its bundle holds the import and nothing of the local runtime or the CLI',
    async (_id, entry) => {
      const ours = await bundledSources(entry);

      expect(ours.some((input) => OPERATOR_CODE.test(input))).toBe(true);
      expect(
        ours.filter((input) => NOT_DEPLOYED.test(input) && !OPERATOR_CODE.test(input) && !input.startsWith('infra/bundling/')),
      ).toEqual([]);
    },
    60_000,
  );

  it('no module under functions/ or shared/ imports anything under infra/ (the register import handlers: operator code only)', () => {
    const sources = [...sourcesUnder('functions'), ...sourcesUnder('shared')];
    const crossings = sources.flatMap((file) =>
      importsOf(file)
        .filter((target) => NOT_DEPLOYED.test(target) && !(REGISTER_IMPORT_HANDLERS.test(file) && OPERATOR_CODE.test(target)))
        .map((target) => `${file} → ${target}`),
    );

    expect(sources.length).toBeGreaterThan(50);
    expect(crossings).toEqual([]);
  });
});
