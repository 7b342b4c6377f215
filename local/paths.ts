import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TableDefinition } from '../shared/storage/tables';

/** The repository root: handler entries in the catalogue are relative to it. */
export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Where everything the local runtime keeps lives: `.bureau/` at the repository root, or BUREAU_DATA_DIR. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.BUREAU_DATA_DIR ? resolve(env.BUREAU_DATA_DIR) : join(repositoryRoot, '.bureau');
}

export interface LocalPaths {
  readonly root: string;
  /** DynamoDB Local's database file. */
  readonly dynamodb: string;
  /** DynamoDB Local's working directory (it drops a metadata file there). */
  readonly work: string;
  readonly signingKeys: string;
  /** The local stand-in for the KMS key that seals webhook signing secrets. */
  readonly webhookSecretsKey: string;
  /** The demo client's id and secret, so every start prints the same pair. */
  readonly demoClient: string;
  /** Present while a runtime runs: how the operator CLI finds it. */
  readonly runtime: string;
  /** Stream positions, one file per stream, so a restart neither replays nor skips. */
  readonly streamCheckpoints: string;
  /** The local queues' journal: their messages outlive a crash of the runtime. */
  readonly queueJournal: string;
}

export function localPaths(dataDir: string = defaultDataDir()): LocalPaths {
  const root = resolve(dataDir);
  return {
    root,
    dynamodb: join(root, 'dynamodb'),
    work: join(root, 'work'),
    signingKeys: join(root, 'signing-keys.json'),
    webhookSecretsKey: join(root, 'webhook-secrets-key'),
    demoClient: join(root, 'demo-client.json'),
    runtime: join(root, 'runtime.json'),
    streamCheckpoints: join(root, 'stream-checkpoints'),
    queueJournal: join(root, 'queues.jsonl'),
  };
}

/** "Start fresh": forget every table, key, client and checkpoint. Only while no runtime uses the folder. */
export function deleteDataDir(dataDir: string = defaultDataDir()): void {
  rmSync(resolve(dataDir), { recursive: true, force: true });
}

/** Physical table name used by the local runtime and the operator CLI's local target. */
export function localTableName(def: TableDefinition): string {
  return `bureau-${def.id}`;
}
