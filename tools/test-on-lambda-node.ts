import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { LAMBDA_NODE } from '../infra/lambda-node';
import { repositoryRoot } from '../local/paths';

/**
 * Runs the unit, integration and end-to-end tests again on the Node.js release the functions are
 * deployed on, when this machine runs another major: the binary comes from the npm registry's
 * node-<platform>-<arch> package, kept under node_modules/.cache. BUREAU_SKIP_LAMBDA_NODE=1 skips it.
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
  console.log(`\nThe suite again on Node.js ${LAMBDA_NODE.release}, the functions' runtime (this machine runs ${process.version}):`);
  const vitest = join(repositoryRoot, 'node_modules', 'vitest', 'vitest.mjs');
  const run = spawnSync(node, [vitest, 'run', 'test/unit', 'test/integration', 'test/e2e'], {
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
