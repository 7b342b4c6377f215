import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from './paths';

const WEB = join(repositoryRoot, 'web');
export const WORKSPACE_DIST = join(WEB, 'dist');

// The change time rather than the modification time: npm may give a package's files the times
// recorded in its tarball, long past, but unpacking them is a change.
function newestChange(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.ctimeMs;
  return Math.max(stats.ctimeMs, ...readdirSync(path).map((entry) => newestChange(join(path, entry))));
}

/** What the build reads: the app, the reference page and Scalar's bundle, which it copies. */
const SOURCES = [
  join(WEB, 'src'),
  join(WEB, 'index.html'),
  join(WEB, 'reference'),
  join(WEB, 'vite.config.ts'),
  join(repositoryRoot, 'node_modules', '@scalar', 'api-reference', 'dist', 'browser', 'standalone.js'),
];

/** True when web/dist is missing either page or is older than any source of the workspace. */
export function workspaceBuildStale(): boolean {
  const pages = [join(WORKSPACE_DIST, 'index.html'), join(WORKSPACE_DIST, 'reference', 'index.html')];
  if (!pages.every((page) => existsSync(page))) return true;
  const built = Math.min(...pages.map((page) => statSync(page).mtimeMs));
  return SOURCES.some((source) => newestChange(source) > built);
}

/**
 * Builds the workspace app and the API reference page with Vite when their sources changed since
 * the last build (about 2 s), so `npm start` on a fresh clone serves them without a separate step.
 * Returns the folder to serve.
 */
export async function ensureWorkspaceBuilt(log: (line: string) => void = () => {}): Promise<string> {
  if (!workspaceBuildStale()) return WORKSPACE_DIST;
  log('Building the workspace app and the API reference (web/) …');
  const { build } = await import('vite');
  await build({ configFile: join(WEB, 'vite.config.ts'), logLevel: 'warn' });
  return WORKSPACE_DIST;
}
