import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { functions as catalogue } from '../../infra/catalogue';

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));
const outdir = mkdtempSync(join(tmpdir(), 'bureau-synth-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}

describe('cdk synth', () => {
  it('synthesizes the app offline with the real CLI, bundling every function and passing cdk-nag', async () => {
    // Act: no AWS credentials or region, so nothing can reach AWS.
    const { stdout, stderr } = await promisify(execFile)(
      join(repositoryRoot, 'node_modules/.bin/cdk'),
      ['synth', '--quiet', '--output', outdir, '--context', 'stage=BureauSynthTest'],
      {
        cwd: repositoryRoot,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, CDK_DISABLE_VERSION_CHECK: '1' },
        timeout: 150_000,
      },
    );

    // Assess
    const template = JSON.parse(readFileSync(join(outdir, 'BureauSynthTest.template.json'), 'utf8')) as {
      Resources: Record<string, Resource>;
    };
    // Besides the catalogue's functions the CDK adds its own handlers (copying the workspace files): those are not bundled here.
    const descriptions = catalogue.map((spec) => spec.description);
    const lambdas = Object.values(template.Resources).filter(
      (r) => r.Type === 'AWS::Lambda::Function' && descriptions.includes(String(r.Properties.Description)),
    );
    expect(lambdas.map((r) => r.Properties.Description).sort()).toEqual([...descriptions].sort());
    for (const lambda of lambdas) {
      const { S3Key } = lambda.Properties.Code as { S3Key: string };
      expect(existsSync(join(outdir, `asset.${S3Key.replace(/\.zip$/, '')}`, 'index.mjs')), String(lambda.Properties.Description)).toBe(
        true,
      );
    }
    // The workspace app, built by Vite during synth, is staged for the site bucket.
    const siteAsset = readdirSync(outdir).find((entry) => entry.startsWith('asset.') && existsSync(join(outdir, entry, 'index.html')));
    expect(siteAsset, 'the built workspace app').toBeDefined();
    expect(readdirSync(join(outdir, siteAsset as string, 'assets')).some((file) => file.endsWith('.js'))).toBe(true);
    expect(`${stdout}${stderr}`).not.toMatch(/AwsSolutions-/);
  }, 180_000);
});
