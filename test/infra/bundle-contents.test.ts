import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { esmRequireBanner, lambdaBundleAliases } from '../../infra/bundling/options';
import { accountsImportFunctions, type FunctionSpec, functions, registerImportFunctions } from '../../infra/catalogue';
import { LAMBDA_NODE } from '../../infra/lambda-node';
import { repositoryRoot } from '../../local/paths';

/** Every function the stack deploys, each bundled from its catalogue entry. */
const DEPLOYED: readonly FunctionSpec[] = [...functions, ...registerImportFunctions, ...accountsImportFunctions];

/** What a deployed bundle may hold besides packages: the function's own code and the shared domain. */
const DEPLOYED_CODE = /^(functions|shared)\//;

/**
 * Each entry bundled as BureauFunction (infra/constructs/bureau-function.ts) has the CDK bundle it:
 * an ESM bundle for the deployed runtime, every package inside, the same aliases and banner. All
 * entries go through one esbuild build, which reads each module once and still writes one whole
 * bundle per entry (no shared chunks), so each output lists exactly what its function carries.
 */
async function bundledInputsByEntry(entries: readonly string[]): Promise<Map<string, string[]>> {
  const result = await build({
    entryPoints: entries.map((entry) => join(repositoryRoot, entry)),
    absWorkingDir: repositoryRoot,
    outdir: join(repositoryRoot, 'cdk.out', 'bundle-contents'),
    bundle: true,
    splitting: false,
    platform: 'node',
    format: 'esm',
    target: `node${LAMBDA_NODE.major}`,
    mainFields: ['module', 'main'],
    banner: { js: esmRequireBanner },
    alias: { ...lambdaBundleAliases },
    external: [],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = Object.values((result.metafile as Metafile).outputs).filter((output) => output.entryPoint !== undefined);
  return new Map(outputs.map((output) => [output.entryPoint as string, Object.keys(output.inputs)]));
}

describe('what a deployed function carries', () => {
  let inputs: Map<string, string[]>;

  beforeAll(async () => {
    inputs = await bundledInputsByEntry(DEPLOYED.map((spec) => spec.entry));
  }, 120_000);

  it('covers every function of the catalogue', () => {
    expect(DEPLOYED.length).toBeGreaterThanOrEqual(19);
    expect(new Set(DEPLOYED.map((spec) => spec.id)).size).toBe(DEPLOYED.length);
  });

  it.each(DEPLOYED.map((spec) => [spec.id, spec.entry]))(
    '%s (%s): its bundle holds only functions/, shared/ and packages, nothing of infra/, local/, cli/, demo/, tools/ or test/',
    (_id, entry) => {
      const modules = inputs.get(entry) ?? [];
      const ours = modules.filter((input) => !input.startsWith('node_modules/'));

      expect(ours).toContain(entry);
      expect(ours.filter((input) => !DEPLOYED_CODE.test(input))).toEqual([]);
    },
  );
});
