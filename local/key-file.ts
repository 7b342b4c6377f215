import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Clock, systemClock } from '../shared/auth/clock';
import { PublishedJwksStore } from '../shared/auth/published-jwks-store';
import {
  type KeySet,
  type KeySetSource,
  type KeySetVault,
  type PublicJwks,
  parseKeySet,
  publicJwks,
  rotateKeySet,
} from '../shared/auth/signing-keys';
import { KEY_SET_CACHE_SECONDS } from '../shared/auth/token-policy';
import { ExpiringPromises } from '../shared/cache/expiring-promises';

/** 'wx' refuses to overwrite: a file of the same name is never clobbered half-written. */
const writeOwnerOnly = async (path: string, keySet: KeySet): Promise<void> => {
  const file = await open(path, 'wx', 0o600);
  try {
    await file.writeFile(`${JSON.stringify(keySet, null, 2)}\n`, 'utf8');
  } finally {
    await file.close();
  }
};

/**
 * The local stand-in for Secrets Manager: a JSON file, created with owner-only permissions on first
 * use and then kept, so tokens stay valid across restarts of the local runtime. It is re-read as
 * often as Secrets Manager is, so a revocation by the CLI reaches the running signer.
 */
export class FileKeySetSource implements KeySetSource, KeySetVault {
  private readonly cached: ExpiringPromises<'keySet', KeySet>;

  constructor(
    private readonly path: string,
    options: { cacheSeconds?: number; clock?: Clock } = {},
  ) {
    this.cached = new ExpiringPromises((options.cacheSeconds ?? KEY_SET_CACHE_SECONDS) * 1000, options.clock ?? systemClock);
  }

  get(): Promise<KeySet> {
    return this.cached.get('keySet', () => this.loadOrCreate());
  }

  async read(): Promise<KeySet | undefined> {
    try {
      return parseKeySet(await readFile(this.path, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Written beside the file and renamed over it, so a reader never sees half a key set. */
  async replace(keySet: KeySet): Promise<void> {
    const next = `${this.path}.${process.pid}.next`;
    await rm(next, { force: true });
    await writeOwnerOnly(next, keySet);
    await rename(next, this.path);
    this.cached.delete('keySet');
  }

  private async loadOrCreate(): Promise<KeySet> {
    const existing = await this.read();
    if (existing) return existing;
    const keySet = await rotateKeySet(undefined);
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    try {
      // If another process created the file first, its keys win.
      await writeOwnerOnly(this.path, keySet);
      return keySet;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return parseKeySet(await readFile(this.path, 'utf8'));
    }
  }
}

/**
 * Local start-up: load the key file (creating it on first start) and publish its public keys to the
 * clients table, which is what the rotation function does on AWS.
 */
export async function ensureLocalSigningKeys(options: {
  file: string;
  doc: DynamoDBDocumentClient;
  tableName: string;
}): Promise<PublicJwks> {
  const jwks = publicJwks(await new FileKeySetSource(options.file).get());
  await new PublishedJwksStore(options.doc, options.tableName).publish(jwks);
  return jwks;
}
