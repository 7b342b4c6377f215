import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { LAMBDA_NODE } from '../infra/lambda-node';
import { repositoryRoot } from '../local/paths';

/**
 * End-to-end files run again on the functions' Node.js: each starts the local runtime, whose
 * functions run in worker threads of this same Node.js, so they cover the deployed code end to end
 * (HTTP event, handler, DynamoDB, SQS, signing) on that release: tokens (the JWT signing and
 * verification, client secrets), companies (search and profile through the protected routes), and
 * deliveries (stream, change detection, fan-out, the sender's HTTPS, webhook signatures).
 */
const SMOKE_E2E = ['test/e2e/token.test.ts', 'test/e2e/companies.test.ts', 'test/e2e/deliveries.test.ts'];

/**
 * Runs the tests again on the Node.js release the functions are deployed on, when this machine runs
 * another major: the binary comes from the npm registry's node-<platform>-<arch> package, kept under
 * node_modules/.cache. BUREAU_SKIP_LAMBDA_NODE=1 skips it.
 *
 * Only what can differ by Node.js version runs again: the unit and integration tests (the code itself
 * on that release's V8, crypto, fetch and streams), and a few end-to-end files (SMOKE_E2E) that carry
 * the functions through the local runtime. The other end-to-end files test the same code along other
 * paths, and the local runtime, the CLI and the browser around it, none of which is deployed: on a
 * second Node.js they would cost many minutes for nothing a version could change that the files above
 * do not meet. Infrastructure tests synthesize templates, whose output does not depend on the Node.js
 * that runs the CDK.
 */
function main(): number {
  const current = Number(process.versions.node.split('.')[0]);
  if (current === LAMBDA_NODE.major) {
    console.log(`Node.js ${process.version} is the functions' major (${LAMBDA_NODE.major}): the suite above already ran on it.`);
    return 0;
  }
  if (process.env.BUREAU_SKIP_LAMBDA_NODE === '1') {
    console.log(`Skipping the run on Node.js ${LAMBDA_NODE.release} (BUREAU_SKIP_LAMBDA_NODE=1).`);
    return 0;
  }
  const node = lambdaNode();
  console.log(
    `\nUnit, integration and the smoke end-to-end tests again on Node.js ${LAMBDA_NODE.release}, the functions' runtime (this machine runs ${process.version}):`,
  );
  const vitest = join(repositoryRoot, 'node_modules', 'vitest', 'vitest.mjs');
  const run = spawnSync(node, [vitest, 'run', 'test/unit', 'test/integration', ...SMOKE_E2E], {
    cwd: repositoryRoot,
    stdio: 'inherit',
    // Child processes the tests start (the CLI, the local runtime) use the same Node.js.
    env: { ...process.env, PATH: `${dirname(node)}:${process.env.PATH ?? ''}` },
  });
  return run.status ?? 1;
}

function lambdaNode(): string {
  const cpu = arch() === 'x64' ? 'x64' : arch() === 'arm64' ? 'arm64' : undefined;
  const os = platform() === 'linux' ? 'linux' : platform() === 'darwin' ? 'darwin' : undefined;
  if (!cpu || !os) throw new Error(`No Node.js ${LAMBDA_NODE.release} build on the npm registry for ${platform()} ${arch()}.`);
  const pkg = `node-${os}-${cpu}`;
  const prefix = join(repositoryRoot, 'node_modules', '.cache', 'lambda-node', LAMBDA_NODE.release);
  const binary = join(prefix, 'node_modules', pkg, 'bin', 'node');
  if (!existsSync(binary)) {
    console.log(`Fetching ${pkg}@${LAMBDA_NODE.release} from the npm registry…`);
    mkdirSync(prefix, { recursive: true });
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const install = spawnSync(npm, ['install', '--no-save', '--no-package-lock', '--prefix', prefix, `${pkg}@${LAMBDA_NODE.release}`], {
      stdio: 'inherit',
    });
    if (install.status !== 0 || !existsSync(binary))
      throw new Error(`Could not install ${pkg}@${LAMBDA_NODE.release} from the npm registry.`);
  }
  return binary;
}

process.exit(main());
