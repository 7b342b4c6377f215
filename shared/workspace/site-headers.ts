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
