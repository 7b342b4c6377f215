import { timingSafeEqual } from 'node:crypto';
import { HttpError } from '../http/errors';
import type { HttpRequest } from '../http/types';
import { SESSION_HOURS } from './people';

/**
 * The browser side of a workspace request: the session cookie, and the checks that keep another site
 * from acting with it (cross-site request forgery).
 */
export interface CookiePolicy {
  /**
   * `__Host-` name and the Secure flag. Off only for the local runtime, which serves plain HTTP on
   * the loopback interface, where no one else can see the cookie.
   */
  readonly secure: boolean;
}

export const sessionCookieName = (policy: CookiePolicy) => (policy.secure ? '__Host-bureau_session' : 'bureau_session');

export function sessionCookieOf(request: HttpRequest, policy: CookiePolicy): string | undefined {
  const name = sessionCookieName(policy);
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/** HttpOnly (no script reads it), SameSite=Strict (no other site sends it), whole site, as long as the session. */
export function setSessionCookie(value: string, policy: CookiePolicy): string {
  return `${sessionCookieName(policy)}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_HOURS * 3600}${policy.secure ? '; Secure' : ''}`;
}

export function clearSessionCookie(policy: CookiePolicy): string {
  return `${sessionCookieName(policy)}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${policy.secure ? '; Secure' : ''}`;
}

const CHANGING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const changesState = (request: HttpRequest) => CHANGING_METHODS.has(request.method);

/**
 * A state-changing request must come from a page of this origin: the browser's Origin and
 * Sec-Fetch-Site say where it comes from. The API's CORS answers any origin's preflight (API-wide, as
 * API Gateway configures it), so these checks, not a refused preflight, keep other origins out; and
 * a body must be JSON, which no form can send.
 */
export function assertSameOrigin(request: HttpRequest, origin: string): void {
  const fetchSite = request.headers['sec-fetch-site'];
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') {
    throw new HttpError(403, 'cross_site_request', 'Requests that change anything must come from the workspace itself.');
  }
  const from = request.headers.origin;
  if (from !== undefined && from !== origin) {
    throw new HttpError(403, 'cross_site_request', 'Requests that change anything must come from the workspace itself.');
  }
  if (request.body !== '' && !(request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) {
    throw new HttpError(415, 'unsupported_media_type', 'Send the body as application/json.');
  }
}

/** The session's CSRF token must come back in a header: a forged request cannot read it to send it. */
export function assertCsrfToken(request: HttpRequest, expected: string): void {
  const sent = Buffer.from(request.headers['x-csrf-token'] ?? '', 'utf8');
  const wanted = Buffer.from(expected, 'utf8');
  if (sent.length !== wanted.length || !timingSafeEqual(sent, wanted)) {
    throw new HttpError(403, 'csrf_token_mismatch', 'The x-csrf-token header is missing or stale; reload the workspace.');
  }
}

/** Where the workspace is served from: configured when deployed, the request's own host locally. */
export function originOf(request: HttpRequest, configured: string | undefined): string {
  if (configured) return configured;
  const host = (request.headers.host ?? '').split(',')[0]?.trim() ?? '';
  const proto = (request.headers['x-forwarded-proto'] ?? 'https').split(',')[0]?.trim() ?? 'https';
  return `${proto}://${host}`;
}
