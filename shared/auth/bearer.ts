import { HttpError } from '../http/errors';
import type { HttpRequest } from '../http/types';
import { InvalidTokenError, type Principal, type TokenVerifier } from './tokens';

const REALM = 'bureau';
/** RFC 6750 §2.1: "Bearer" (any case), one space or more, then a token68. */
const BEARER_HEADER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export type TokenCheck = Pick<TokenVerifier, 'verify'>;

/**
 * RFC 6750 §3.1: a request without credentials gets the challenge alone, with no error code, so a
 * client that simply did not know it had to authenticate is not told its token was bad.
 */
function missingToken(): HttpError {
  return new HttpError(401, 'missing_token', 'Send an access token: Authorization: Bearer <token> (get one from POST /v1/oauth/token).', {
    'www-authenticate': `Bearer realm="${REALM}"`,
  });
}

/**
 * Descriptions are fixed sentences without quotes or backslashes (RFC 6750 §3 error_description
 * characters): the token itself is never echoed.
 */
function invalidToken(description: string): HttpError {
  return new HttpError(401, 'invalid_token', description, {
    'www-authenticate': `Bearer realm="${REALM}", error="invalid_token", error_description="${description}"`,
  });
}

/** The principal behind the request's bearer token, or a 401 HttpError the edge can return as-is. */
export async function authenticateBearer(request: HttpRequest, verifier: TokenCheck): Promise<Principal> {
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '') throw missingToken();
  const token = BEARER_HEADER.exec(header)?.[1];
  if (!token) throw invalidToken('The Authorization header must be: Bearer <token>');
  try {
    return await verifier.verify(token);
  } catch (error) {
    if (error instanceof InvalidTokenError) throw invalidToken(error.message);
    throw error;
  }
}
