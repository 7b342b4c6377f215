import type { CookiePolicy } from './browser-guard';

/**
 * The session cookie goes without Secure only under the local runtime, which serves plain HTTP on
 * the loopback interface and sets BUREAU_PLAIN_HTTP_COOKIES. Lambda always sets AWS_EXECUTION_ENV, a
 * variable no one can set or unset, so a deployed function never honours it.
 */
export function workspaceCookiePolicy(env: NodeJS.ProcessEnv = process.env): CookiePolicy {
  return { secure: !(env.BUREAU_PLAIN_HTTP_COOKIES === 'allow' && env.AWS_EXECUTION_ENV === undefined) };
}

/** The workspace's public origin (https://…), set by the stack; unset locally, where the request's host is used. */
export function workspaceOrigin(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env.WORKSPACE_ORIGIN?.trim();
  return value ? value.replace(/\/$/, '') : undefined;
}
