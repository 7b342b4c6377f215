import { MAX_REQUEST_BODY_BYTES, payloadTooLarge } from './body-limit';
import { badRequest, HttpError } from './errors';
import { repeatedTopLevelKey } from './json-object-keys';
import type { HttpRequest } from './types';

/**
 * The request body as a JSON object whose members are all among `allowed`. A member the endpoint
 * does not know is refused rather than ignored: in a request that changes something, a misspelt
 * field silently doing nothing is worse than an error.
 */
export function jsonObjectBody(request: HttpRequest, allowed: readonly string[]): Record<string, unknown> {
  const mediaType = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new HttpError(415, 'unsupported_media_type', 'Send the body as JSON, with Content-Type: application/json.');
  }
  // The adapter has refused larger bodies already; this holds for handlers called without it.
  if (Buffer.byteLength(request.body, 'utf8') > MAX_REQUEST_BODY_BYTES) throw payloadTooLarge();
  let value: unknown;
  try {
    value = JSON.parse(request.body);
  } catch {
    throw badRequest('invalid_body', 'The body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badRequest('invalid_body', 'The body must be a JSON object.');
  const repeated = repeatedTopLevelKey(request.body);
  if (repeated !== undefined)
    throw badRequest('invalid_body', `The body names ${repeated.slice(0, 40)} more than once.`, { field: repeated.slice(0, 40) });
  const unknown = Object.keys(value).find((name) => !allowed.includes(name));
  if (unknown !== undefined) {
    throw badRequest(
      'invalid_body',
      `The body has a field this endpoint does not take: ${unknown.slice(0, 40)}. It takes ${allowed.join(', ')}.`,
      {
        field: unknown.slice(0, 40),
      },
    );
  }
  return value as Record<string, unknown>;
}
