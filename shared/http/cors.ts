/**
 * Cross-origin calls from browsers: any page may call the API, never with the browser's own
 * credentials. The public API is bearer-only (a token a page holds and sends itself), so nothing
 * ambient rides along: no cookie, no client certificate. Allow-Credentials is never sent, and so a
 * page of another origin cannot read an answer a cookie earned.
 *
 * One definition, read by the HTTP API's CORS configuration (infra/constructs/api.ts) and by the
 * local gateway (local/gateway-cors.ts), so that what runs locally is what deploys.
 */
export interface CorsSettings {
  readonly allowOrigins: readonly string[];
  readonly allowMethods: readonly CorsMethod[];
  /** Request headers a page may send beyond the CORS-safelisted ones; lower case. */
  readonly allowHeaders: readonly string[];
  /** Response headers a page may read beyond the CORS-safelisted ones; lower case. */
  readonly exposeHeaders: readonly string[];
  /** How long a browser may keep a preflight's answer. */
  readonly maxAgeSeconds: number;
  readonly allowCredentials: false;
}

export type CorsMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export const API_CORS: CorsSettings = {
  allowOrigins: ['*'],
  // What the catalogue's routes answer (HEAD with every GET).
  allowMethods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
  // The bearer token, JSON bodies, and the ETag of a profile held (the headers the OpenAPI document names).
  allowHeaders: ['authorization', 'content-type', 'if-none-match'],
  exposeHeaders: [
    // The rate limit, and when to call again after a 429 or 503.
    'ratelimit',
    'ratelimit-policy',
    'retry-after',
    // Why a token was refused (RFC 6750).
    'www-authenticate',
    // A profile's version, to send back in If-None-Match.
    'etag',
    // Where a new webhook subscription lives.
    'location',
    // API Gateway's request id, what support asks for.
    'apigw-requestid',
  ],
  maxAgeSeconds: 600,
  allowCredentials: false,
};
