import { numberSetting } from '../config/number-settings';
import { clientsTable, tableName } from '../storage/tables';

/**
 * Authentication settings, read from the environment once at cold start. A bad value stops the
 * function from starting rather than surfacing later as a confusing 500.
 */
export interface AuthConfig {
  readonly clientsTable: string;
  readonly issuer: string;
  readonly audience: string;
  /**
   * Default per-client allowance per 60-second window, token requests included. 600 (10 requests a
   * second sustained) leaves room for batch jobs; a client record's rateLimitPerMinute overrides it.
   */
  readonly rateLimitPerMinute: number;
  /** Failed token requests one source address may make per minute before its failures get 429. */
  readonly tokenFailuresPerIpPerMinute: number;
  /** Failed token requests naming one client id, from anywhere, per minute before they get 429. */
  readonly tokenFailuresPerClientIdPerMinute: number;
  /** How long a verifier trusts its copy of a client record; bounds how late a revocation bites. */
  readonly clientCacheSeconds: number;
}

export const DEFAULT_ISSUER = 'https://bureau.example';
export const DEFAULT_AUDIENCE = 'bureau-api';
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
export const DEFAULT_TOKEN_FAILURES_PER_IP_PER_MINUTE = 20;
export const DEFAULT_TOKEN_FAILURES_PER_CLIENT_ID_PER_MINUTE = 20;
export const DEFAULT_CLIENT_CACHE_SECONDS = 30;
/** Revocation must bite within a minute, so no verifier may cache a client record longer. */
export const MAX_CLIENT_CACHE_SECONDS = 60;

function integerSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  return numberSetting(env, name, fallback, { min, max, whole: true });
}

function textSetting(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = env[name]?.trim();
  return value ? value : fallback;
}

export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env): AuthConfig {
  return {
    clientsTable: tableName(clientsTable, env),
    issuer: textSetting(env, 'TOKEN_ISSUER', DEFAULT_ISSUER),
    audience: textSetting(env, 'TOKEN_AUDIENCE', DEFAULT_AUDIENCE),
    rateLimitPerMinute: integerSetting(env, 'RATE_LIMIT_PER_MINUTE', DEFAULT_RATE_LIMIT_PER_MINUTE, 1, 1_000_000),
    tokenFailuresPerIpPerMinute: integerSetting(
      env,
      'TOKEN_FAILURES_PER_IP_PER_MINUTE',
      DEFAULT_TOKEN_FAILURES_PER_IP_PER_MINUTE,
      1,
      1_000_000,
    ),
    tokenFailuresPerClientIdPerMinute: integerSetting(
      env,
      'TOKEN_FAILURES_PER_CLIENT_ID_PER_MINUTE',
      DEFAULT_TOKEN_FAILURES_PER_CLIENT_ID_PER_MINUTE,
      1,
      1_000_000,
    ),
    clientCacheSeconds: integerSetting(env, 'CLIENT_CACHE_SECONDS', DEFAULT_CLIENT_CACHE_SECONDS, 0, MAX_CLIENT_CACHE_SECONDS),
  };
}

/** The Secrets Manager secret that holds the private signing keys, for the token function. */
export function loadSigningKeySecretId(env: NodeJS.ProcessEnv = process.env): string {
  const secretId = env.SIGNING_KEY_SECRET_ID?.trim();
  if (!secretId) throw new Error('SIGNING_KEY_SECRET_ID is not set');
  return secretId;
}
