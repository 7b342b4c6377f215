import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { repositoryRoot } from '../../../local/paths';

/** What the runtime process says once it serves. */
export interface RuntimeReady {
  readonly type: 'ready';
  readonly baseUrl: string;
  /** Region, stand-in credentials, endpoints, every table and queue: what a tool beside it needs. */
  readonly env: Readonly<Record<string, string>>;
  readonly tables: Readonly<Record<string, string>>;
  readonly demoClient: { readonly clientId: string; readonly clientSecret: string };
}

export type RuntimeRequest = { readonly type: 'heap' } | { readonly type: 'stop' };

type RuntimeMessage = RuntimeReady | { type: 'failed'; message: string } | { type: 'heap'; heapUsedBytes: number };

export interface RuntimeMemory {
  /** Resident set of the whole process, its worker threads (the function instances) included. */
  readonly rssMb: number;
  /** The anonymous part of it: the JS heaps, buffers and native allocations, code and mapped files left out. */
  readonly anonMb: number;
  /** V8 heap in use on the main thread: the HTTP server, pollers, queues and their clients. */
  readonly heapMb: number;
}

export interface RuntimeProcess extends Omit<RuntimeReady, 'type'> {
  readonly pid: number;
  memory(): Promise<RuntimeMemory>;
  stop(): Promise<void>;
}

const MIB = 2 ** 20;
const STOP_GRACE_MS = 30_000;

/** A field of /proc/<pid>/status, in MiB (the kernel reports kB). */
function statusMb(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (!match) throw new Error(`/proc status has no ${field}`);
  return (Number(match[1]) * 1024) / MIB;
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

/**
 * Starts the local runtime as `npm start` runs it, but in a child process with only the environment
 * given, so that its memory can be read on its own from /proc/<pid>/status (Linux). DynamoDB Local,
 * the runtime's own child, is a Java process apart.
 */
export async function startRuntimeProcess(environment: NodeJS.ProcessEnv): Promise<RuntimeProcess> {
  const child = fork(fileURLToPath(new URL('./runtime-main.ts', import.meta.url)), [], {
    cwd: repositoryRoot,
    env: environment,
    // BENCH_CPU_PROF_DIR: a CPU profile of the runtime's main thread, written when it stops (function threads,
    // ended at stop, write none).
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<RuntimeReady>((resolve, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`the runtime process exited (${signal ?? code}) before it was ready`)));
    child.on('message', (message: RuntimeMessage) => {
      if (message.type === 'ready') resolve(message);
      if (message.type === 'failed') reject(new Error(`the runtime did not start: ${message.message}`));
    });
  });
  child.removeAllListeners('exit');
  const pid = child.pid as number;

  const heapUsedBytes = () =>
    new Promise<number>((resolve, reject) => {
      const gone = () => reject(new Error('the runtime process has exited'));
      const answer = (message: RuntimeMessage) => {
        if (message.type !== 'heap') return;
        child.off('message', answer);
        child.off('exit', gone);
        resolve(message.heapUsedBytes);
      };
      if (!child.connected) return gone();
      child.on('message', answer);
      child.once('exit', gone);
      child.send({ type: 'heap' } satisfies RuntimeRequest);
    });

  return {
    pid,
    baseUrl: ready.baseUrl,
    env: ready.env,
    tables: ready.tables,
    demoClient: ready.demoClient,
    async memory() {
      const heapMb = (await heapUsedBytes()) / MIB;
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      return { rssMb: statusMb(status, 'VmRSS'), anonMb: statusMb(status, 'RssAnon'), heapMb };
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.send({ type: 'stop' } satisfies RuntimeRequest);
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited(child);
      clearTimeout(timer);
    },
  };
}
