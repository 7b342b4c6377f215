import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { accountsImportFunctions, functions as catalogue, registerImportFunctions } from '../../infra/catalogue';

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

const synth = (stage: string) =>
  promisify(execFile)(
    join(repositoryRoot, 'node_modules/.bin/cdk'),
    ['synth', '--quiet', '--output', outdir, '--context', `stage=${stage}`],
    {
      cwd: repositoryRoot,
      // No AWS credentials, so nothing can reach AWS; but an account, as deploying credentials give the app, so
      // that what differs when the account is known (cdk-nag's findings name it) is checked too.
      env: { PATH: process.env.PATH, HOME: process.env.HOME, CDK_DISABLE_VERSION_CHECK: '1', CDK_DEFAULT_ACCOUNT: '123456789012' },
      timeout: 150_000,
    },
  );

describe('cdk synth', () => {
  it.each(Object.entries(stages).filter(([stage]) => stage !== 'prod'))(
    'synthesizes the %s stage offline with the real CLI: its service stack and its two us-east-1 stacks, bundling every function and passing cdk-nag',
    async (stage, { stackName, region }) => {
      // Act
      const { stdout, stderr } = await synth(stage);

      // Assess
      const template = JSON.parse(readFileSync(join(outdir, `${stackName}.template.json`), 'utf8')) as {
        Resources: Record<string, Resource>;
      };
      // Besides the catalogue's functions the CDK adds its own handlers (copying the workspace files): those are not bundled here.
      const descriptions = [...catalogue, ...registerImportFunctions, ...accountsImportFunctions].map((spec) => spec.description);
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
      // The firewall, handed to the service stack's CloudFront distribution through a parameter.
      const edge = JSON.parse(readFileSync(join(outdir, `${stackName}-edge.template.json`), 'utf8')) as {
        Resources: Record<string, Resource>;
      };
      const edgeTypes = Object.values(edge.Resources).map((resource) => resource.Type);
      expect(edgeTypes).toEqual(expect.arrayContaining(['AWS::WAFv2::WebACL', 'AWS::SSM::Parameter']));
      const distribution = Object.values(template.Resources).find((resource) => resource.Type === 'AWS::CloudFront::Distribution');
      expect(JSON.stringify((distribution?.Properties.DistributionConfig as { WebACLId?: unknown } | undefined)?.WebACLId)).toContain(
        'Parameter.Value',
      );
      const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as {
        artifacts: Record<string, { environment?: string; dependencies?: string[] }>;
      };
      expect(manifest.artifacts[`${stackName}-edge`]?.environment).toMatch(/\/us-east-1$/);
      expect(manifest.artifacts[stackName]?.environment).toMatch(new RegExp(`/${region}$`));
      expect(manifest.artifacts[`${stackName}-edge-monitoring`]?.environment).toMatch(/\/us-east-1$/);
      // The order `cdk deploy --all` follows.
      expect(manifest.artifacts[stackName]?.dependencies).toContain(`${stackName}-edge`);
      expect(manifest.artifacts[`${stackName}-edge-monitoring`]?.dependencies).toContain(stackName);
      expect(`${stdout}${stderr}`).not.toMatch(/AwsSolutions-/);
    },
    180_000,
  );

  it('refuses the prod stage as checked in, whose alarms reach no one, saying what to set', async () => {
    const failed = await synth('prod').catch((error: { stderr: string }) => error);

    expect((failed as { stderr: string }).stderr).toMatch(
      /infra\/stages.json: prod.alarms names no one, and a production stage's alarms must reach someone/,
    );
  }, 180_000);

  it('refuses a stage that infra/stages.json does not define, naming the ones it does', async () => {
    const failed = await synth('nope').catch((error: { stderr: string }) => error);

    expect((failed as { stderr: string }).stderr).toMatch(/No stage "nope" in infra\/stages.json; the stages are: dev, prod/);
  }, 180_000);
});
