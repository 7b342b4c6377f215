import type { FunctionSpec } from '../catalogue';

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
  /** The local stand-in for the Secrets Manager secret that holds the signing keys. */
  readonly signingKeyFile: string;
  readonly settings: FunctionSettings;
}

/**
 * The environment of one function, as its catalogue entry grants it: the variables of the tables and
 * queues it may use, the signing key location if it signs, the settings, and nothing of the
 * runtime's own process. The stack passes the same table and queue variables, and
 * SIGNING_KEY_SECRET_ID in place of SIGNING_KEY_FILE; it never passes BUREAU_LOOPBACK_RECEIVERS or
 * BUREAU_PLAIN_HTTP_COOKIES.
 */
export function localFunctionEnvironment(spec: FunctionSpec, resources: LocalResources): Record<string, string> {
  const env: Record<string, string> = { POWERTOOLS_SERVICE_NAME: 'bureau', ...resources.base };
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
  if (spec.signingKey === 'sign') env.SIGNING_KEY_FILE = resources.signingKeyFile;
  if (spec.loopbackReceivers) env.BUREAU_LOOPBACK_RECEIVERS = 'allow';
  if (spec.plainHttpCookies) env.BUREAU_PLAIN_HTTP_COOKIES = 'allow';
  return env;
}
