import { type FunctionSpec, queueActionsOf, WEBHOOK_SECRETS_ACTIONS } from '../infra/catalogue';
import { ENDPOINT_VARIABLES } from '../shared/aws/clients';
import { WEBHOOK_SECRETS_KEY_VARIABLE } from '../shared/crypto/webhook-secrets-key';
import { SERVICE_NAME } from '../shared/observability/service';
import { LOCAL_ACCOUNT_ID, localFunctionName } from './functions';
import { CALL_LOG_VARIABLE, LOCAL_GRANTS_VARIABLE, type LocalGrants } from './grants';
import { LOCAL_WEBHOOK_SECRETS_KEY_ID } from './kms';
import { LOCAL_SIGNING_KEY_SECRET_ID } from './secrets-manager';

/**
 * Settings an operator may give the functions. Deployed, they are the functions' environment; locally
 * they are taken from the environment `npm start` runs in (or the runtime's options) and handed on.
 */
export const FUNCTION_SETTINGS = [
  'TOKEN_ISSUER',
  'TOKEN_AUDIENCE',
  'RATE_LIMIT_PER_MINUTE',
  'TOKEN_FAILURES_PER_IP_PER_MINUTE',
  'TOKEN_FAILURES_PER_CLIENT_ID_PER_MINUTE',
  'CLIENT_CACHE_SECONDS',
  'DELIVERY_RETRY_DELAYS',
  'DISABLE_FAILING_WEBHOOKS_AFTER_DAYS',
  'WEBHOOK_PORTS',
  'POWERTOOLS_LOG_LEVEL',
] as const;

export type FunctionSettings = Partial<Record<(typeof FUNCTION_SETTINGS)[number], string>>;

export function settingsFrom(env: NodeJS.ProcessEnv): FunctionSettings {
  const settings: FunctionSettings = {};
  for (const name of FUNCTION_SETTINGS) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') settings[name] = value;
  }
  return settings;
}

/** What the local runtime provides, from which each function gets only its share. */
export interface LocalResources {
  /** Region, stand-in credentials and emulator endpoints: what every function's SDK needs. */
  readonly base: Readonly<Record<string, string>>;
  /** Physical table names by table id. */
  readonly tables: Readonly<Record<string, string>>;
  /** Queue URLs by queue id. */
  readonly queues: Readonly<Record<string, string>>;
  /** The local stand-in for Secrets Manager, which serves the signing-key secret from the key file. */
  readonly secretsManagerEndpoint: string;
  /** The local stand-in for KMS, which seals and opens webhook signing secrets with the local key. */
  readonly kmsEndpoint: string;
  readonly settings: FunctionSettings;
  /** A folder where every function logs each distinct AWS call it makes (local/grants.ts). */
  readonly callLog?: string;
}

/**
 * The environment of one function, as its catalogue entry grants it: the variables of the tables and
 * queues it may use, the grants themselves for its SDK clients to enforce, the signing key location
 * if it signs, the settings, and nothing of the runtime's own process. The stack passes the same
 * table and queue variables and SIGNING_KEY_SECRET_ID; it never passes the emulators' endpoints,
 * BUREAU_LOOPBACK_RECEIVERS, BUREAU_PLAIN_HTTP_COOKIES or the grants, which IAM holds there.
 */
export function localFunctionEnvironment(spec: FunctionSpec, resources: LocalResources): Record<string, string> {
  const env: Record<string, string> = { POWERTOOLS_SERVICE_NAME: SERVICE_NAME, ...resources.base };
  for (const [name, value] of Object.entries(resources.settings)) if (value !== undefined) env[name] = value;
  for (const grant of spec.tables) {
    const name = resources.tables[grant.table.id];
    if (name === undefined) throw new Error(`${spec.id} is granted the ${grant.table.id} table, which the runtime did not create`);
    env[grant.table.envVar] = name;
  }
  for (const grant of spec.queues ?? []) {
    const url = resources.queues[grant.queue.id];
    if (url === undefined) throw new Error(`${spec.id} is granted the ${grant.queue.id} queue, which the runtime did not create`);
    env[grant.queue.envVar] = url;
  }
  env[LOCAL_GRANTS_VARIABLE] = JSON.stringify(localGrants(spec, resources));
  if (resources.callLog) env[CALL_LOG_VARIABLE] = resources.callLog;
  if (spec.signingKey === 'sign') {
    env.SIGNING_KEY_SECRET_ID = LOCAL_SIGNING_KEY_SECRET_ID;
    env[ENDPOINT_VARIABLES.secretsmanager] = resources.secretsManagerEndpoint;
  }
  if (spec.webhookSecrets) {
    env[WEBHOOK_SECRETS_KEY_VARIABLE] = LOCAL_WEBHOOK_SECRETS_KEY_ID;
    env[ENDPOINT_VARIABLES.kms] = resources.kmsEndpoint;
  }
  if (spec.loopbackReceivers) env.BUREAU_LOOPBACK_RECEIVERS = 'allow';
  if (spec.plainHttpCookies) env.BUREAU_PLAIN_HTTP_COOKIES = 'allow';
  return env;
}

/** The catalogue entry's table and queue grants, named as the function's calls name them: physical table names and queue URLs. */
export function localGrants(spec: FunctionSpec, resources: Pick<LocalResources, 'tables' | 'queues'>): LocalGrants {
  const located = <T>(where: Readonly<Record<string, T>>, id: string, kind: string): T => {
    const found = where[id];
    if (found === undefined) throw new Error(`${spec.id} is granted the ${id} ${kind}, which the runtime did not create`);
    return found;
  };
  return {
    functionId: spec.id,
    functionName: localFunctionName(spec),
    accountId: LOCAL_ACCOUNT_ID,
    tables: spec.tables.map((grant) => ({
      id: grant.table.id,
      name: located(resources.tables, grant.table.id, 'table'),
      partitionKey: grant.table.partitionKey.name,
      actions: grant.access.actions,
      ...(grant.access.queryIndexes ? { queryIndexes: grant.access.queryIndexes } : {}),
      ...(grant.writeKeyPrefixes ? { writeKeyPrefixes: grant.writeKeyPrefixes } : {}),
      ...(grant.access.streamReads ? { streamReads: grant.access.streamReads } : {}),
    })),
    queues: [...queueActionsOf(spec).values()].map(({ queue, actions }) => ({
      id: queue.id,
      url: located(resources.queues, queue.id, 'queue'),
      actions: [...actions],
    })),
    kms: spec.webhookSecrets ? [...WEBHOOK_SECRETS_ACTIONS[spec.webhookSecrets]] : [],
  };
}
