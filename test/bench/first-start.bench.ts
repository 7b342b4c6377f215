import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal } from '../../local/dynamodb-local';
import { localPaths, repositoryRoot } from '../../local/paths';
import { readRuntimeInfo } from '../../local/runtime-file';
import { seededDataset } from './support/companies';
import { type BenchContext, createBenchContext } from './support/context';
import { renderTable } from './support/table';

export const name = 'First start (npm start -- --fresh) until every demo company is searchable, beside a bare load of the same items';

/** Every demo company searchable and the vocabulary in, this long after "ready" at most. */
const GOAL_SECONDS = 30;
const LOADED = /Demo companies loaded in/;
const READY = /Bureau is running at/;
/** Longer than any first start has taken, so a stuck one ends the benchmark rather than hanging it. */
const GIVE_UP_MS = 15 * 60_000;

interface FirstStart {
  readonly readySeconds: number;
  readonly loadedSeconds: number;
  readonly output: string;
  readonly child: ChildProcess;
}

/** `npm start -- --fresh` as a newcomer runs it, its output watched for "ready" and for the end of the demo load. */
function firstStart(dataDir: string): Promise<FirstStart> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('npm', ['start', '--', '--fresh'], {
      cwd: repositoryRoot,
      env: { ...process.env, BUREAU_DATA_DIR: dataDir, PORT: '0', POWERTOOLS_LOG_LEVEL: 'WARN' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    let readySeconds: number | undefined;
    const timer = setTimeout(
      () => reject(new Error(`no end of the demo load after ${GIVE_UP_MS / 1000} s:\n${output.slice(-2000)}`)),
      GIVE_UP_MS,
    );
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      const seconds = (performance.now() - started) / 1000;
      if (readySeconds === undefined && READY.test(output)) readySeconds = seconds;
      if (readySeconds !== undefined && LOADED.test(output)) {
        clearTimeout(timer);
        resolve({ readySeconds, loadedSeconds: seconds, output, child });
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before the demo load ended:\n${output.slice(-2000)}`));
    });
  });
}

/** Stops the runtime as Ctrl-C would, the whole process group (npm, tsx, the runtime, DynamoDB Local). */
async function stop(child: ChildProcess): Promise<void> {
  child.removeAllListeners('exit');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-(child.pid as number), 'SIGINT');
  await exited;
}

/** A search a person makes with a typo: answered only once the companies and the vocabulary are in. */
async function searchWithTypo(dataDir: string): Promise<string | undefined> {
  const info = readRuntimeInfo(dataDir);
  if (!info) throw new Error('runtime.json is missing');
  const { clientId, clientSecret } = JSON.parse(readFileSync(localPaths(dataDir).demoClient, 'utf8')) as Record<string, string>;
  const token = await fetch(`${info.baseUrl}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  const { access_token } = (await token.json()) as { access_token: string };
  const search = await fetch(`${info.baseUrl}/v1/search?q=cpa+gtaes&jurisdiction=GB`, {
    headers: { authorization: `Bearer ${access_token}` },
  });
  const { items } = (await search.json()) as { items: Array<{ name: string }> };
  return items[0]?.name;
}

export async function run(context: BenchContext): Promise<void> {
  // The baseline: the same companies' items and vocabulary written bare into an engine on disk, as the runtime's is.
  const workDir = mkdtempSync(join(tmpdir(), 'bureau-bench-first-start-'));
  const engine = await startDynamoDbLocal({ workDir, dataDir: join(workDir, 'db') });
  const clients: DynamoDBClient[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'bureau-bench-first-start-data-'));
  try {
    const onDisk = createBenchContext({ scale: context.scale, dynamodbEndpoint: engine.endpoint, write: () => {}, clients });
    const bare = await seededDataset(onDisk);
    for (const client of clients) client.destroy();
    await engine.stop();

    const start = await firstStart(dataDir);
    let found: string | undefined;
    try {
      found = await searchWithTypo(dataDir);
    } finally {
      await stop(start.child);
    }
    const afterReady = start.loadedSeconds - start.readySeconds;
    context.report(
      renderTable(
        `First start on disk: ${bare.companies.length.toLocaleString('en-GB')} demo companies and their spelling vocabulary`,
        ['', 'seconds'],
        [
          ['baseline: bare BatchWriteItem of the same items, and the vocabulary in bulk', bare.loadSeconds.toFixed(1)],
          ['npm start -- --fresh: "ready"', start.readySeconds.toFixed(1)],
          ['npm start -- --fresh: every company searchable, vocabulary in', start.loadedSeconds.toFixed(1)],
          ['  of which after "ready"', afterReady.toFixed(1)],
        ],
      ),
    );
    context.report(
      [
        `After "ready": ${afterReady.toFixed(1)} s (goal <= ${GOAL_SECONDS} s); ${(afterReady / bare.loadSeconds).toFixed(2)}x the bare load.`,
        `A search with a typo ("cpa gtaes") then finds: ${found ?? 'nothing'}.`,
      ].join('\n'),
    );
  } finally {
    for (const client of clients) client.destroy();
    await engine.stop();
    rmSync(workDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}
