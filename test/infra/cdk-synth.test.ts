import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { functions as catalogue, registerImportFunctions } from '../../infra/catalogue';

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));
const outdir = mkdtempSync(join(tmpdir(), 'bureau-synth-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}

const stages = JSON.parse(readFileSync(join(repositoryRoot, 'infra/stages.json'), 'utf8')) as Record<
  string,
  { stackName: string; region: string }
>;

describe('cdk synth', () => {
  it.each(Object.entries(stages))(
    'synthesizes the %s stage offline with the real CLI, its service stack and its us-east-1 stack, bundling every function and passing cdk-nag',
    async (stage, { stackName, region }) => {
      // Act: no AWS credentials or region, so nothing can reach AWS.
      const { stdout, stderr } = await promisify(execFile)(
        join(repositoryRoot, 'node_modules/.bin/cdk'),
        ['synth', '--quiet', '--output', outdir, '--context', `stage=${stage}`],
        {
          cwd: repositoryRoot,
          env: { PATH: process.env.PATH, HOME: process.env.HOME, CDK_DISABLE_VERSION_CHECK: '1' },
          timeout: 150_000,
        },
      );

      // Assess
      const template = JSON.parse(readFileSync(join(outdir, `${stackName}.template.json`), 'utf8')) as {
        Resources: Record<string, Resource>;
      };
      // Besides the catalogue's functions the CDK adds its own handlers (copying the workspace files): those are not bundled here.
      const descriptions = [...catalogue, ...registerImportFunctions].map((spec) => spec.description);
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
      // The firewall and its cross-region hand-over to the service stack's CloudFront distribution.
      const edge = JSON.parse(readFileSync(join(outdir, `${stackName}-edge.template.json`), 'utf8')) as {
        Resources: Record<string, Resource>;
      };
      const edgeTypes = Object.values(edge.Resources).map((resource) => resource.Type);
      expect(edgeTypes).toEqual(expect.arrayContaining(['AWS::WAFv2::WebACL', 'Custom::CrossRegionExportWriter']));
      const distribution = Object.values(template.Resources).find((resource) => resource.Type === 'AWS::CloudFront::Distribution');
      expect(JSON.stringify((distribution?.Properties.DistributionConfig as { WebACLId?: unknown } | undefined)?.WebACLId)).toContain(
        '/cdk/exports/',
      );
      const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as {
        artifacts: Record<string, { environment?: string }>;
      };
      expect(manifest.artifacts[`${stackName}-edge`]?.environment).toMatch(/\/us-east-1$/);
      expect(manifest.artifacts[stackName]?.environment).toMatch(new RegExp(`/${region}$`));
      expect(`${stdout}${stderr}`).not.toMatch(/AwsSolutions-/);
    },
    180_000,
  );

  it('refuses a stage that infra/stages.json does not define, naming the ones it does', async () => {
    const failed = await promisify(execFile)(
      join(repositoryRoot, 'node_modules/.bin/cdk'),
      ['synth', '--quiet', '--output', outdir, '--context', 'stage=nope'],
      {
        cwd: repositoryRoot,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, CDK_DISABLE_VERSION_CHECK: '1' },
        timeout: 150_000,
      },
    ).catch((error: { stderr: string }) => error);

    expect((failed as { stderr: string }).stderr).toMatch(/No stage "nope" in infra\/stages.json; the stages are: dev, prod/);
  }, 180_000);
});
