import { createHash } from 'node:crypto';
import { ifNoneMatchMatches } from '../http/conditional';
import type { HttpHandler } from '../http/types';

/** Where the API serves its document; CloudFront caches this path alone of the API's. */
export const OPENAPI_DOCUMENT_PATH = '/v1/openapi.json';

/** Five minutes in any cache: a new deployment's document is seen within that, and an ETag revalidates it for nothing. */
const CACHE_CONTROL = 'public, max-age=300';

/**
 * GET /v1/openapi.json: the document serialised once per instance, with a strong ETag of its bytes,
 * so a client or CDN that holds it revalidates with a 304 and no body.
 */
export function createDocumentEndpoint(document: unknown): HttpHandler {
  const body = JSON.stringify(document);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  const headers = { etag, 'cache-control': CACHE_CONTROL };
  return async (request) => {
    if (ifNoneMatchMatches(request.headers['if-none-match'], etag)) return { status: 304, headers };
    return { status: 200, headers: { 'content-type': 'application/json', ...headers }, body };
  };
}
