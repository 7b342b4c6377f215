import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureLocalSigningKeys, FileKeySetSource } from '../../../local/key-file';

export interface BenchSigningKeys {
  /** The private key set, as the token function reads it locally. */
  readonly source: FileKeySetSource;
  dispose(): void;
}

/** A fresh local key file whose public half is published to the clients table, as at local start-up. */
export async function benchSigningKeys(doc: DynamoDBDocumentClient, clientsTable: string): Promise<BenchSigningKeys> {
  const dir = mkdtempSync(join(tmpdir(), 'bureau-bench-keys-'));
  const file = join(dir, 'signing-keys.json');
  await ensureLocalSigningKeys({ file, doc, tableName: clientsTable });
  return { source: new FileKeySetSource(file), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
