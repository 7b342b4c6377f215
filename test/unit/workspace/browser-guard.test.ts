import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../shared/http/errors';
import {
  assertCsrfToken,
  assertSameOrigin,
  clearSessionCookie,
  originOf,
  sessionCookieOf,
  setSessionCookie,
} from '../../../shared/workspace/browser-guard';
import { httpRequest } from '../../support/http-fixtures';

const secure = { secure: true };
const loopback = { secure: false };

describe('the session cookie', () => {
  it('is HttpOnly, SameSite=Strict and __Host- prefixed with Secure, relaxed only for plain-HTTP loopback', () => {
    expect(setSessionCookie('v', secure)).toBe('__Host-bureau_session=v; Path=/; HttpOnly; SameSite=Strict; Max-Age=43200; Secure');
    expect(setSessionCookie('v', loopback)).toBe('bureau_session=v; Path=/; HttpOnly; SameSite=Strict; Max-Age=43200');
    expect(clearSessionCookie(secure)).toContain('Max-Age=0');
  });

  it('is read from the Cookie header by its exact name only', () => {
    const request = httpRequest({
      headers: { cookie: 'other=1; x__Host-bureau_session=no; __Host-bureau_session=yes; bureau_session=plain' },
    });

    expect(sessionCookieOf(request, secure)).toBe('yes');
    expect(sessionCookieOf(request, loopback)).toBe('plain');
    expect(sessionCookieOf(httpRequest(), secure)).toBeUndefined();
  });
});

describe('cross-site request checks', () => {
  const origin = 'https://workspace.example';
  const refused = (run: () => void) => {
    try {
      run();
    } catch (error) {
      return error instanceof HttpError ? `${error.status} ${error.code}` : 'other';
    }
    return 'allowed';
  };

  it('allows a change from the same origin, or from a client that sends no Origin (curl)', () => {
    expect(refused(() => assertSameOrigin(httpRequest({ method: 'POST', headers: { origin } }), origin))).toBe('allowed');
    expect(refused(() => assertSameOrigin(httpRequest({ method: 'POST', headers: { 'sec-fetch-site': 'same-origin' } }), origin))).toBe(
      'allowed',
    );
  });

  it('refuses another origin, another site and a body that is not JSON', () => {
    expect(refused(() => assertSameOrigin(httpRequest({ headers: { origin: 'https://evil.example' } }), origin))).toBe(
      '403 cross_site_request',
    );
    expect(refused(() => assertSameOrigin(httpRequest({ headers: { 'sec-fetch-site': 'same-site' } }), origin))).toBe(
      '403 cross_site_request',
    );
    expect(
      refused(() =>
        assertSameOrigin(httpRequest({ body: 'a=1', headers: { origin, 'content-type': 'application/x-www-form-urlencoded' } }), origin),
      ),
    ).toBe('415 unsupported_media_type');
  });

  it('compares the CSRF token in constant time and refuses a missing or different one', () => {
    expect(refused(() => assertCsrfToken(httpRequest({ headers: { 'x-csrf-token': 'token' } }), 'token'))).toBe('allowed');
    expect(refused(() => assertCsrfToken(httpRequest({ headers: { 'x-csrf-token': 'tokem' } }), 'token'))).toBe('403 csrf_token_mismatch');
    expect(refused(() => assertCsrfToken(httpRequest(), 'token'))).toBe('403 csrf_token_mismatch');
  });

  it('takes the origin from configuration when deployed and from the request locally', () => {
    expect(originOf(httpRequest({ headers: { host: 'evil.example' } }), origin)).toBe(origin);
    expect(originOf(httpRequest({ headers: { host: 'localhost:3000', 'x-forwarded-proto': 'http' } }), undefined)).toBe(
      'http://localhost:3000',
    );
  });
});
