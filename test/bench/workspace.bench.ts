import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startLocalRuntime } from '../../local/runtime';
import { ensureWorkspaceBuilt } from '../../local/workspace-build';
import { launchChromium } from '../support/browser';
import type { BenchContext } from './support/context';
import { summarize } from './support/stats';
import { latencyTable, renderTable } from './support/table';

export const name = 'Workspace app: what a first visit downloads, and how soon it can be used';

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/**
 * The built app's size (what the goal of 150 KB of gzipped JavaScript is about) and the time from
 * navigation until the sign-in form can be typed into, in a fresh browser context each time (nothing
 * cached), against the local runtime. The baseline loads the same page with its scripts blocked:
 * what the HTML and CSS alone cost from the same server.
 */
export async function run(context: BenchContext): Promise<void> {
  const dist = await ensureWorkspaceBuilt();
  const files = readdirSync(join(dist, 'assets')).map((file) => {
    const bytes = readFileSync(join(dist, 'assets', file));
    return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const total = (suffix: string) => files.filter((f) => f.file.endsWith(suffix)).reduce((sum, f) => sum + f.gzip, 0);
  context.report(
    renderTable(
      'Workspace build (web/dist/assets)',
      ['file', 'minified', 'gzip'],
      [...files.map((f) => [f.file, kb(f.raw), kb(f.gzip)]), ['all JavaScript', '', kb(total('.js'))], ['all CSS', '', kb(total('.css'))]],
    ),
  );

  const dataDir = mkdtempSync(join(tmpdir(), 'bureau-bench-workspace-'));
  const runtime = await startLocalRuntime({ port: 0, inMemory: true, dataDir, quiet: true, environment: {} });
  const browser = await launchChromium();
  try {
    const loads = context.scale === 'small' ? 20 : 50;
    const url = runtime.workspace.url;
    const timeLoad = async (blockScripts: boolean) => {
      const page = await (await browser.newContext()).newPage();
      if (blockScripts) await page.route('**/*.js', (route) => route.abort());
      const started = performance.now();
      await page.goto(url, { waitUntil: blockScripts ? 'load' : 'commit' });
      if (!blockScripts) await page.getByLabel('E-mail address').waitFor({ state: 'visible' });
      const elapsed = performance.now() - started;
      await page.context().close();
      return elapsed;
    };
    for (let i = 0; i < 3; i++) {
      await timeLoad(true);
      await timeLoad(false);
    }
    const baseline: number[] = [];
    const interactive: number[] = [];
    for (let i = 0; i < loads; i++) {
      baseline.push(await timeLoad(true));
      interactive.push(await timeLoad(false));
    }
    context.report(
      latencyTable(`First visit to ${url} in Chromium, fresh context each time`, [
        { label: 'baseline: the page and its CSS, scripts blocked', stats: summarize(baseline) },
        { label: 'until the sign-in form can be used', stats: summarize(interactive) },
      ]),
    );
  } finally {
    await browser.close();
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
