/**
 * Loopback receivers (http://127.0.0.1:<port>/… included) exist for the local runtime's demo and
 * tests. The local runtime sets BUREAU_LOOPBACK_RECEIVERS=allow; on Lambda the setting is ignored
 * whatever an operator puts in a function's environment, because Lambda always sets
 * AWS_EXECUTION_ENV (a reserved variable no one can set or unset), and the local runtime never does.
 */
export function loopbackReceiversAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.BUREAU_LOOPBACK_RECEIVERS === 'allow' && env.AWS_EXECUTION_ENV === undefined;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase());
}
