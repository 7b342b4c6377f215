import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type DynamoDbLocal,
  type EngineRestart,
  engineArguments,
  freePort,
  startDynamoDbLocal,
  startSupervisedDynamoDbLocal,
} from '../../../local/dynamodb-local';
import { EngineOutages } from '../../../local/engine-outages';
import { recordEngine } from '../../../local/engine-pidfile';
import { rideOutEngineRestarts } from '../../../local/engine-restarts';
import { repositoryRoot } from '../../../local/paths';
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

/** The engine's Java process, as the launcher records it in its working directory. */
const enginePid = (workDir: string) => Number(readFileSync(join(workDir, 'dynamodb-local.pid'), 'utf8'));

/** A supervised engine whose restarts and giving up are awaited as events. */
async function supervised(dataDir: string | undefined) {
  const workDir = tempFolder();
  const restarts: EngineRestart[] = [];
  const outages = new EngineOutages();
  let restarted: () => void = () => {};
  let gaveUp: (reason: string) => void = () => {};
  const givenUp = new Promise<string>((resolve) => {
    gaveUp = resolve;
  });
  const engine: DynamoDbLocal = await startSupervisedDynamoDbLocal(
    { workDir, ...(dataDir ? { dataDir } : {}) },
    {
      outages,
      onRestart: (restart) => {
        restarts.push(restart);
        restarted();
      },
      onGiveUp: (reason) => gaveUp(reason),
    },
  );
  return {
    engine,
    restarts,
    outages,
    givenUp,
    /** Kills the Java process outright and resolves once it is gone. */
    async kill(): Promise<number> {
      const pid = enginePid(workDir);
      const exited = engine.exited;
      process.kill(pid, 'SIGKILL');
      await exited;
      return pid;
    },
    nextRestart: () =>
      new Promise<void>((resolve) => {
        restarted = resolve;
      }),
    currentPid: () => enginePid(workDir),
  };
}

const client = (endpoint: string, maxAttempts?: number) =>
  new DynamoDBClient({
    endpoint,
    region: 'eu-west-2',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    ...(maxAttempts ? { maxAttempts } : {}),
  });

describe('DynamoDB Local under supervision', () => {
  it("is started again on its port and data when its Java process dies, and a function's call made meanwhile waits for it", async () => {
    const { engine, restarts, outages, kill, nextRestart, currentPid } = await supervised(join(tempFolder(), 'db'));
    const waiting = client(engine.endpoint);
    rideOutEngineRestarts()(waiting, 'dynamodb');
    const impatient = client(engine.endpoint, 1);
    try {
      await waiting.send(
        new CreateTableCommand({
          TableName: 'kept',
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      await waiting.send(new PutItemCommand({ TableName: 'kept', Item: { pk: { S: 'before' } } }));
      const restart = nextRestart();

      const killed = await kill();
      const read = (target: DynamoDBClient) => target.send(new GetItemCommand({ TableName: 'kept', Key: { pk: { S: 'before' } } }));
      const [refused, waited] = await Promise.allSettled([read(impatient), read(waiting)]);
      await restart;

      expect(refused.status === 'rejected' && (refused.reason as { code?: string }).code).toBe('ECONNREFUSED');
      expect(waited.status === 'fulfilled' && waited.value.Item).toEqual({ pk: { S: 'before' } });
      expect(restarts).toEqual([{ ended: 'signal SIGKILL', restarts: 1, seconds: expect.any(Number) }]);
      // The time away, which the runtime's functions are not charged for, is the time the restart took.
      const awayMs = outages.totalMs();
      expect(Math.abs(awayMs - (restarts[0]?.seconds ?? 0) * 1000)).toBeLessThan(100);
      expect(outages.totalMs()).toBe(awayMs);
      expect(currentPid()).not.toBe(killed);
      expect((await fetch(engine.endpoint)).status).toBe(400);
    } finally {
      waiting.destroy();
      impatient.destroy();
      await engine.stop();
    }
  }, 60_000);

  it('gives up when the engine dies a third time within a minute', async () => {
    const { engine, restarts, givenUp, kill, nextRestart } = await supervised(join(tempFolder(), 'db'));
    try {
      for (let death = 1; death <= 2; death++) {
        const restart = nextRestart();
        await kill();
        await restart;
      }
      await kill();

      expect(await givenUp).toBe('DynamoDB Local stopped 3 times within a minute (last: signal SIGKILL)');
      expect(restarts.map((restart) => restart.restarts)).toEqual([1, 2]);
    } finally {
      await engine.stop();
    }
  }, 90_000);

  it("gives up at once when the engine's data was in memory: a new one would have none of it", async () => {
    const { engine, restarts, givenUp, kill } = await supervised(undefined);
    try {
      await kill();

      expect(await givenUp).toBe('DynamoDB Local stopped (signal SIGKILL), and its data was in memory: it is gone');
      expect(restarts).toEqual([]);
    } finally {
      await engine.stop();
    }
  }, 60_000);
});
