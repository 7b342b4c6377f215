import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoClientRegistry } from '../shared/auth/dynamo-client-registry';
import { clientsTable, webhooksTable } from '../shared/storage/tables';
import { DynamoSubscriptionStore } from '../shared/webhooks/dynamo-subscription-store';
import { ensureLocalSigningKeys } from './key-file';
import type { LocalPaths } from './paths';

export interface DemoClient {
  readonly clientId: string;
  /** Empty only for a disabled client whose secret this machine does not know. */
  readonly clientSecret: string;
  /** An operator may have disabled it; its credentials then get 401 until enabled again. */
  readonly disabled: boolean;
}

export interface StartupContext {
  readonly paths: LocalPaths;
  readonly doc: DynamoDBDocumentClient;
  /** Physical table names by table id. */
  readonly tables: Readonly<Record<string, string>>;
  readonly env: NodeJS.ProcessEnv;
  readonly log: (line: string) => void;
}

/** What the start-up hooks tell the runtime; each hook fills in its part. */
export interface StartupFacts {
  readonly demoClient: DemoClient;
}

export type StartupHook = (context: StartupContext) => Promise<Partial<StartupFacts>>;

const DEMO_CLIENT_NAME = 'Demo client';

interface StoredDemoClient {
  clientId: string;
  clientSecret: string;
}

function readStoredDemoClient(file: string): StoredDemoClient | undefined {
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<StoredDemoClient>;
    if (typeof stored.clientId === 'string' && typeof stored.clientSecret === 'string') {
      return { clientId: stored.clientId, clientSecret: stored.clientSecret };
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && !(error instanceof SyntaxError)) throw error;
  }
  return undefined;
}

function storeDemoClient(file: string, client: StoredDemoClient): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(client, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** Publishes the public half of the local signing keys (creating the key file on first start). */
export const publishSigningKeys: StartupHook = async ({ paths, doc, tables }) => {
  await ensureLocalSigningKeys({ file: paths.signingKeys, doc, tableName: tables[clientsTable.id] as string });
  return {};
};

/**
 * The demo client, the same on every start: BUREAU_DEMO_CLIENT_ID and BUREAU_DEMO_CLIENT_SECRET fix
 * it; otherwise it is generated once and its credentials kept in demo-client.json (local only). A
 * client whose secret was lost (file deleted, secret rotated with the CLI) gets a new one.
 */
export const ensureDemoClient: StartupHook = async ({ paths, doc, tables, env, log }) => {
  const registry = new DynamoClientRegistry(doc, tables[clientsTable.id] as string);
  const stored = readStoredDemoClient(paths.demoClient);
  const fixedId = env.BUREAU_DEMO_CLIENT_ID?.trim() || undefined;
  const fixedSecret = env.BUREAU_DEMO_CLIENT_SECRET?.trim() || undefined;
  const clientId = fixedId ?? stored?.clientId;
  let secret = fixedSecret ?? (stored && stored.clientId === clientId ? stored.clientSecret : undefined);

  const existing = clientId ? await registry.get(clientId) : undefined;
  let result: DemoClient;
  if (!existing) {
    const created = await registry.create({ name: DEMO_CLIENT_NAME, clientId, secret });
    result = { clientId: created.client.clientId, clientSecret: created.secret, disabled: false };
  } else if (existing.status === 'disabled') {
    result = { clientId: existing.clientId, clientSecret: secret ?? '', disabled: true };
  } else {
    if (!secret || !(await registry.verifyCredentials(existing.clientId, secret))) {
      secret = (await registry.rotateSecret(existing.clientId, { graceSeconds: 0, secret: fixedSecret })).secret;
      log(
        fixedSecret
          ? 'The demo client now uses BUREAU_DEMO_CLIENT_SECRET.'
          : `The demo client's stored secret no longer matched; it has a new one.`,
      );
    }
    result = { clientId: existing.clientId, clientSecret: secret, disabled: false };
  }
  if (result.clientSecret) storeDemoClient(paths.demoClient, { clientId: result.clientId, clientSecret: result.clientSecret });
  return { demoClient: result };
};

/**
 * Subscriptions registered before the fan-out kept its per-client active sets are added to them, so
 * a data folder from an earlier version loses no delivery. A local table is small: this takes
 * milliseconds.
 */
export const indexActiveSubscriptions: StartupHook = async ({ doc, tables }) => {
  await new DynamoSubscriptionStore(doc, tables[webhooksTable.id] as string).rebuildActiveSets();
  return {};
};

/** Run in order at every start, after the tables exist and before the first request. */
export const startupHooks: readonly StartupHook[] = [publishSigningKeys, ensureDemoClient, indexActiveSubscriptions];

export async function runStartupHooks(context: StartupContext, hooks: readonly StartupHook[] = startupHooks): Promise<StartupFacts> {
  let facts: Partial<StartupFacts> = {};
  for (const hook of hooks) facts = { ...facts, ...(await hook(context)) };
  if (!facts.demoClient) throw new Error('No start-up hook provided the demo client');
  return facts as StartupFacts;
}
