/**
 * What every page and file of the workspace is served with, locally and by CloudFront: scripts and
 * styles only from files of this origin (no inline script), no framing, no referrer, and the API
 * called only on this origin.
 */
export const WORKSPACE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const WORKSPACE_SITE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': WORKSPACE_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
  'cross-origin-opener-policy': 'same-origin',
};

/** Where the workspace lives on the service's origin; its JSON API is under WORKSPACE_PATH/api. */
export const WORKSPACE_PATH = '/workspace';

/** The API reference page (Scalar, rendered from /v1/openapi.json), a folder of the workspace. */
export const REFERENCE_PATH = `${WORKSPACE_PATH}/reference`;

/**
 * The reference page runs in a sandbox of its own, in an opaque origin: it is a third party's large
 * bundle, and on the workspace's origin a flaw in it would reach the workspace's session (the cookie
 * rides along with same-origin requests, and the session API hands out the CSRF token). Sandboxed,
 * the page has no cookies and no storage, and everything it fetches is a cross-origin request, which
 * the public API answers (CORS, without credentials) and the workspace's API cannot be read by.
 * Scripts may run (it is a script), and its links may open in a new tab as ordinary pages; no form
 * may be sent, and never `allow-same-origin`, which would undo the rest.
 */
export const REFERENCE_SANDBOX = 'sandbox allow-scripts allow-popups allow-popups-to-escape-sandbox';

/**
 * The reference page's policy: the workspace's, but sandboxed (above), nothing may be sent by a
 * form, fonts come only from this origin, and styles may be inline. Scalar's bundle injects its
 * stylesheet and its theme as <style> elements at run time, and its components set style
 * attributes, so without 'unsafe-inline' for styles the page renders unstyled. Styles cannot run
 * code, and scripts stay limited to files of this origin ('self' is the address's origin, even in
 * the sandbox): no inline script, no eval. No other page gets this allowance.
 */
export const REFERENCE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  REFERENCE_SANDBOX,
].join('; ');

export const REFERENCE_SITE_HEADERS: Readonly<Record<string, string>> = {
  ...WORKSPACE_SITE_HEADERS,
  'content-security-policy': REFERENCE_CONTENT_SECURITY_POLICY,
};
