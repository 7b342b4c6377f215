import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { BureauStack } from '../../infra/stack';
import { apiGatewayEvent } from '../support/api-gateway-events';
import { TEST_WEB_ACL } from '../support/web-acl';

const outdir = mkdtempSync(join(tmpdir(), 'bureau-bundle-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

async function withEnvironment<T>(values: Record<string, string>, run: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(values).map((key) => [key, process.env[key]]));
  Object.assign(process.env, values);
  try {
    return await run();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

describe('function bundling', () => {
  it('produces a minified ESM bundle with the AWS SDK and CommonJS dependencies inside, which runs as a handler', async () => {
    // Prepare
    const app = new App({ outdir });
    const stack = new BureauStack(app, 'Bundled', {
      edge: { webAclArn: TEST_WEB_ACL },
      functions: [
        {
          id: 'probe',
          entry: 'test/infra/fixtures/handler.ts',
          description: 'Bundling probe',
          routes: [{ method: 'GET', path: '/v1/probe', access: 'bearer' }],
          tables: [],
        },
      ],
    });

    // Act
    const assembly = app.synth();

    // Assess
    const probe = stack.functions.get('probe');
    if (!probe) throw new Error('the probe function was not built');
    const code = (probe.node.defaultChild as CfnFunction).code as { s3Key: string };
    const assetDir = join(assembly.directory, `asset.${code.s3Key.replace(/\.zip$/, '')}`);
    const bundle = join(assetDir, 'index.mjs');
    expect(existsSync(bundle)).toBe(true);
    expect(existsSync(`${bundle}.map`)).toBe(true);
    const source = readFileSync(bundle, 'utf8');
    const banner = "import { createRequire as bureauCreateRequire } from 'node:module';";
    expect(source.slice(0, banner.length)).toBe(banner);
    const lines = source.split('\n').length;
    expect(lines, 'minified: long lines').toBeLessThan(source.length / 1000);

    // The bundle lives under the system temp folder, where no node_modules can be found: it must hold every dependency.
    const { handler } = (await import(pathToFileURL(bundle).href)) as {
      handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
    };
    const result = await withEnvironment({ AWS_ACCESS_KEY_ID: 'AKIDPROBE', AWS_SECRET_ACCESS_KEY: 'probe', AWS_REGION: 'eu-west-2' }, () =>
      handler(apiGatewayEvent({ path: '/v1/probe' }), { functionName: 'probe', awsRequestId: 'request-1' } as Context),
    );
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body ?? '')).toEqual({ path: '/v1/probe', sdk: 'function', accessKeyId: 'AKIDPROBE' });
    // The SDK's default credential chain (profiles, SSO, instance metadata) is left out: Lambda never needs it.
    expect(source).toContain('credential-provider-env - fromEnv');
    expect(source).not.toContain('credential-provider-ini - fromIni');
  });
});
