import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { engineArguments, freePort, startDynamoDbLocal } from '../../../infra/local/dynamodb-local';
import { recordEngine } from '../../../infra/local/engine-pidfile';
import { repositoryRoot } from '../../../infra/local/paths';
import { engineRunningOn } from '../../support/engine';

const folders: string[] = [];
function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'bureau-engine-'));
  folders.push(folder);
  return folder;
}
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await sleep(100);
  }
  return check();
}

/** Listening sockets on a port, from the kernel's own tables: no traffic to any address needed. */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((table) =>
    readFileSync(table, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A')
      .map((fields) => (fields[1] as string).split(':')[0] as string),
  );
}
const LOOPBACK_HEX = new Set(['0100007F', '0000000000000000FFFF00000100007F', '00000000000000000000000001000000']);

describe('DynamoDB Local launcher', () => {
  it.runIf(process.platform === 'linux')('listens on the loopback interface only', async () => {
    const ddb = await startDynamoDbLocal({ workDir: tempFolder() });
    try {
      const addresses = listeningAddresses(ddb.port);

      expect(addresses.length).toBeGreaterThan(0);
      for (const address of addresses) expect(LOOPBACK_HEX.has(address), `listening on ${address}`).toBe(true);
      expect((await fetch(ddb.endpoint)).status).toBe(400);
    } finally {
      await ddb.stop();
    }
  });

  it('keeps its folder readable by its owner only', async () => {
    const workDir = join(tempFolder(), 'work');
    const dataDir = join(tempFolder(), 'db');
    const ddb = await startDynamoDbLocal({ workDir, dataDir });
    await ddb.stop();

    expect(statSync(workDir).mode & 0o777).toBe(0o700);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });

  it('leaves no Java process behind when its Node.js process exits without stopping it', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/exit-without-stop.ts')], {
      cwd: repositoryRoot,
      encoding: 'utf8',
      timeout: 60_000,
    });
    const endpoint = run.stdout.trim();

    expect(run.status, run.stderr).toBe(0);
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(engineRunningOn(endpoint)).toBe(false);
  });

  it('dies with its Node.js process even when that is killed outright (SIGKILL)', async () => {
    const parent = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/start-and-wait.ts'), tempFolder()], {
      cwd: repositoryRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const endpoint = await new Promise<string>((resolve) =>
      parent.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())),
    );
    expect(engineRunningOn(endpoint)).toBe(true);

    parent.kill('SIGKILL');

    expect(await eventually(() => !engineRunningOn(endpoint))).toBe(true);
  }, 60_000);

  it('stops an engine an earlier start left running on the same folder before starting its own', async () => {
    const workDir = tempFolder();
    const stalePort = await freePort();
    // An engine whose starter is gone but which still runs: its standard input is held open here.
    const stale = spawn('java', engineArguments(stalePort), { cwd: workDir, stdio: ['pipe', 'ignore', 'ignore'] });
    recordEngine(workDir, stale.pid as number);
    expect(await eventually(() => engineRunningOn(stalePort))).toBe(true);
    const lines: string[] = [];

    const ddb = await startDynamoDbLocal({ workDir, log: (line) => lines.push(line) });
    await ddb.stop();

    expect(stale.exitCode !== null || stale.signalCode !== null).toBe(true);
    expect(engineRunningOn(stalePort)).toBe(false);
    expect(lines).toEqual([`Stopping DynamoDB Local (pid ${stale.pid}) left running on this data folder by an earlier start.`]);
  }, 60_000);

  it('leaves alone a process that merely reuses a recorded pid', async () => {
    const workDir = tempFolder();
    const bystander = spawn('sleep', ['30'], { stdio: 'ignore' });
    recordEngine(workDir, bystander.pid as number);

    const ddb = await startDynamoDbLocal({ workDir });
    await ddb.stop();

    expect(bystander.exitCode).toBeNull();
    bystander.kill();
  }, 60_000);
});
