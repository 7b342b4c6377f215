import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { defaultDataDir, localPaths } from './paths';

/** runtime.json: how the operator CLI finds a running runtime. */
export interface RuntimeInfo {
  readonly pid: number;
  readonly baseUrl: string;
  readonly dynamodbEndpoint: string;
  readonly sqsEndpoint: string;
  readonly tables: Readonly<Record<string, string>>;
  /** Queue URLs by id, dead-letter queues as `<id>-dlq`. */
  readonly queues?: Readonly<Record<string, string>>;
  /** Where `bureau streams replay` publishes into the local register streams, and the token it presents. */
  readonly registerStreamsReplay?: { readonly url: string; readonly token: string };
  /** The register import's state machine (local/state-machine/) and its uploads bucket, as a deployed stack names them. */
  readonly registerImport?: {
    readonly stepFunctionsEndpoint: string;
    readonly stateMachineArn: string;
    readonly s3Endpoint: string;
    readonly bucket: string;
  };
  /** The accounts import's state machine, on the register import's bucket under accounts/. */
  readonly accountsImport?: { readonly stepFunctionsEndpoint: string; readonly stateMachineArn: string };
  readonly startedAt: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The running runtime's details, or undefined when none is recorded, the file is unreadable or its process is gone. */
export function readRuntimeInfo(dataDir: string = defaultDataDir()): RuntimeInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(localPaths(dataDir).runtime, 'utf8')) as Partial<RuntimeInfo>;
    const complete =
      typeof info.pid === 'number' &&
      typeof info.baseUrl === 'string' &&
      typeof info.dynamodbEndpoint === 'string' &&
      typeof info.tables === 'object' &&
      info.tables !== null;
    return complete && isAlive(info.pid as number) ? (info as RuntimeInfo) : undefined;
  } catch {
    return undefined;
  }
}

export function writeRuntimeInfo(path: string, info: RuntimeInfo): void {
  writeFileSync(path, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
}

export function removeRuntimeInfo(path: string): void {
  if (existsSync(path)) rmSync(path);
}
