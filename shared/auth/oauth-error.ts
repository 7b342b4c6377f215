import { json } from '../http/responses';
import type { HttpResponse } from '../http/types';

/** RFC 6749 §5.2 error codes, plus rate_limited for the 429 this endpoint also answers. */
export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'rate_limited';

/** A token-endpoint refusal; answered with the §5.2 body, not the problem-details body. */
export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401 | 429,
    readonly code: OAuthErrorCode,
    description: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

export const invalidRequest = (description: string) => new OAuthError(400, 'invalid_request', description);

/** Token responses, good or bad, must never be stored by a cache (RFC 6749 §5.1). */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

export function oauthErrorResponse(error: OAuthError): HttpResponse {
  return json(error.status, { error: error.code, error_description: error.message }, { ...error.headers, ...NO_STORE });
}
