import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from './paths';

const WEB = join(repositoryRoot, 'web');
export const WORKSPACE_DIST = join(WEB, 'dist');

function newestChange(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((entry) => newestChange(join(path, entry))));
}

/** True when web/dist is missing or older than any source of the workspace app. */
export function workspaceBuildStale(): boolean {
  const page = join(WORKSPACE_DIST, 'index.html');
  if (!existsSync(page)) return true;
  const built = statSync(page).mtimeMs;
  return [join(WEB, 'src'), join(WEB, 'index.html'), join(WEB, 'vite.config.ts')].some((source) => newestChange(source) > built);
}

/**
 * Builds the workspace app with Vite when its sources changed since the last build (about 2 s),
 * so `npm start` on a fresh clone serves it without a separate step. Returns the folder to serve.
 */
export async function ensureWorkspaceBuilt(log: (line: string) => void = () => {}): Promise<string> {
  if (!workspaceBuildStale()) return WORKSPACE_DIST;
  log('Building the workspace app (web/) …');
  const { build } = await import('vite');
  await build({ configFile: join(WEB, 'vite.config.ts'), logLevel: 'warn' });
  return WORKSPACE_DIST;
}
