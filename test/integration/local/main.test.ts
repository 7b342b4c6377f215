import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../../local/paths';
import { engineRunningOn } from '../../support/engine';

interface Started {
  readonly child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

const children: ChildProcess[] = [];
/** Each start on disk restores the demo database (about 116 MB): removed once its runtime has stopped. */
const dataDirs: string[] = [];
function newDataDir(): string {
  const made = mkdtempSync(join(tmpdir(), 'bureau-main-'));
  dataDirs.push(made);
  return made;
}
/** SIGTERM lets a runtime stop its Java process; SIGKILL only if it does not exit soon. */
afterEach(async () => {
  await Promise.all(
    children.splice(0).map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }),
  );
  for (const made of dataDirs.splice(0)) rmSync(made, { recursive: true, force: true });
});

/** Runs `npm start`'s entry point the way npm does (tsx), without npm's own process in between. */
function start(args: string[], env: NodeJS.ProcessEnv): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts', ...args], {
    cwd: repositoryRoot,
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function readyBanner(started: Started): Promise<string> {
  const deadline = Date.now() + 60_000;
  while (!started.output().includes('Press Ctrl-C to stop.')) {
    if (started.child.exitCode !== null) throw new Error(`exited early:\n${started.output()}`);
    if (Date.now() > deadline) throw new Error(`not ready within a minute:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return started.output();
}

const field = (banner: string, name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(banner)?.[1];

describe('npm start', () => {
  // Two cold starts of Java and the runtime: allow for a busy machine.
  it('prints the banner, keeps the demo client across restarts and stops cleanly on SIGTERM', { timeout: 120_000 }, async () => {
    const dataDir = newDataDir();
    const first = start([], { BUREAU_DATA_DIR: dataDir });
    const banner = await readyBanner(first);
    const baseUrl = /running at (http:\/\/\S+)/.exec(banner)?.[1];
    const clientId = field(banner, 'client_id');
    const clientSecret = field(banner, 'client_secret');
    const { dynamodbEndpoint } = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8'));

    expect(banner).toContain(`curl -s -X POST ${baseUrl}/v1/oauth/token`);
    expect(banner).toContain('npm start -- --fresh');
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(engineRunningOn(dynamodbEndpoint)).toBe(false);
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);

    const second = start([], { BUREAU_DATA_DIR: dataDir });
    const again = await readyBanner(second);
    const token = await fetch(`${/running at (http:\/\/\S+)/.exec(again)?.[1]}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    });
    second.child.kill('SIGINT');

    expect(field(again, 'client_id')).toBe(clientId);
    expect(field(again, 'client_secret')).toBe(clientSecret);
    expect(token.status).toBe(200);
    expect(await second.exited).toBe(0);
  });

  // Its own waits are bounded (20 s for the engine to appear); the test's budget covers starting
  // npm start's process and the JVM on a busy machine besides.
  it('stops cleanly when told to while DynamoDB Local is still starting', { timeout: 90_000 }, async () => {
    const dataDir = newDataDir();
    const javaForDataDir = () => spawnSync('pgrep', ['-f', `dbPath ${join(dataDir, 'dynamodb')}`]).status === 0;
    const run = start([], { BUREAU_DATA_DIR: dataDir });
    const deadline = Date.now() + 20_000;
    while (!javaForDataDir() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(javaForDataDir()).toBe(true);

    run.child.kill('SIGTERM');

    expect(await run.exited).toBe(0);
    expect(javaForDataDir()).toBe(false);
    expect(run.output()).not.toContain('Press Ctrl-C to stop.');
  });

  it('stops, DynamoDB Local included, when its console goes away under it', { timeout: 120_000 }, async () => {
    const dataDir = newDataDir();
    const run = start(['--in-memory'], { BUREAU_DATA_DIR: dataDir });
    const banner = await readyBanner(run);
    const { dynamodbEndpoint } = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8'));
    run.child.stdout?.destroy();
    run.child.stderr?.destroy();

    // Each request is a line on the console, which now has nobody to read it.
    await fetch(`${/running at (http:\/\/\S+)/.exec(banner)?.[1]}/v1/oauth/token`, { method: 'POST' });

    expect(await run.exited).toBe(0);
    expect(engineRunningOn(dynamodbEndpoint)).toBe(false);
  });

  it('says which port is taken and how to choose another, before starting anything', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const run = start([], { BUREAU_DATA_DIR: newDataDir(), PORT: String(port) });

      expect(await run.exited).toBe(1);
      expect(run.output()).toContain(`Port ${port} is already in use`);
      expect(run.output()).toContain(`PORT=${port + 1} npm start`);
    } finally {
      blocker.close();
    }
  });

  it('explains how to install Java when it is missing', async () => {
    const run = start([], { BUREAU_DATA_DIR: newDataDir(), PATH: '/nonexistent' });

    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('DynamoDB Local needs Java 17 or newer');
    expect(run.output()).not.toMatch(/\n\s+at /);
  });

  it('rejects unknown options with the usage', async () => {
    const run = start(['--frsh'], {});

    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('Usage: npm start');
  });
});
