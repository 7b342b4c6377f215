import { spawnSync } from 'node:child_process';
import { readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Which DynamoDB Local runs on a data folder. The engine exits by itself when the Node.js process
 * that started it ends, but an engine left by a run that predates that, or that was stopped while
 * frozen, must never share its database file with a second engine.
 */
const PIDFILE = 'dynamodb-local.pid';
const STOP_GRACE_MS = 5000;

const pidfileIn = (workDir: string) => join(workDir, PIDFILE);

export function recordEngine(workDir: string, pid: number): void {
  writeFileSync(pidfileIn(workDir), `${pid}\n`, { mode: 0o600 });
}

export function forgetEngine(workDir: string, pid: number | undefined): void {
  if (pid !== undefined && recordedPid(workDir) === pid) rmSync(pidfileIn(workDir), { force: true });
}

function recordedPid(workDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(pidfileIn(workDir), 'utf8').trim());
    return Number.isInteger(pid) && pid > 1 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Only an engine started for this folder is ever stopped: the pid may have been reused since. Its
 * command line must be DynamoDB Local's, and where the system shows a process's working directory
 * (Linux), that must be this folder.
 */
function isEngineOf(pid: number, workDir: string): boolean {
  const command = spawnSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' }).stdout ?? '';
  if (!/LoopbackDynamoDbLocal|DynamoDBLocal\.jar/.test(command)) return false;
  try {
    return readlinkSync(`/proc/${pid}/cwd`) === realpathSync(workDir);
  } catch {
    return process.platform !== 'linux';
  }
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return !isAlive(pid);
}

/** Stops the engine an earlier start left running on this folder, if there is one. */
export async function stopStaleEngine(workDir: string, log?: (line: string) => void): Promise<void> {
  const pid = recordedPid(workDir);
  if (pid !== undefined && isAlive(pid) && isEngineOf(pid, workDir)) {
    log?.(`Stopping DynamoDB Local (pid ${pid}) left running on this data folder by an earlier start.`);
    process.kill(pid, 'SIGTERM');
    if (!(await waitForExit(pid, STOP_GRACE_MS))) {
      process.kill(pid, 'SIGKILL');
      await waitForExit(pid, STOP_GRACE_MS);
    }
  }
  rmSync(pidfileIn(workDir), { force: true });
}
