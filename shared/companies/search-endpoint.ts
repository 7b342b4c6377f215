import type { ProtectedHandler } from '../auth/protect';
import { badRequest } from '../http/errors';
import { json } from '../http/responses';
import { BusinessMetric, count } from '../observability/metrics';
import type { NameIndex } from './company-store';
import { limitParam, requiredJurisdictionParam, singleParam } from './request-params';
import { InvalidCursorError, QueryTooLongError, searchCompanies, UnsearchableQueryError } from './search';

export interface SearchEndpointDeps {
  readonly index: NameIndex;
}

export const MIN_QUERY_LENGTH = 2;
export const MAX_QUERY_LENGTH = 200;

function queryParam(query: URLSearchParams): string {
  const q = singleParam(query, 'q', 'invalid_query')?.trim() ?? '';
  const length = Array.from(q).length;
  if (length < MIN_QUERY_LENGTH || length > MAX_QUERY_LENGTH) {
    throw badRequest(
      'invalid_query',
      q === ''
        ? 'q is required: the company name (or number) to search for.'
        : `q must be ${MIN_QUERY_LENGTH} to ${MAX_QUERY_LENGTH} characters long; it has ${length}.`,
      { parameter: 'q' },
    );
  }
  return q;
}

/** GET /v1/search?q=&jurisdiction=&limit=&cursor= */
export function createSearchEndpoint(deps: SearchEndpointDeps): ProtectedHandler {
  return async (request) => {
    const q = queryParam(request.query);
    const jurisdiction = requiredJurisdictionParam(request.query);
    const limit = limitParam(request.query);
    const cursor = singleParam(request.query, 'cursor', 'invalid_cursor');
    try {
      const page = await searchCompanies(deps.index, { q, jurisdiction, limit, cursor });
      count(BusinessMetric.searches);
      return json(
        200,
        {
          items: page.items,
          nextCursor: page.nextCursor ?? null,
          ...(page.suggestion === undefined ? {} : { suggestion: page.suggestion }),
        },
        { 'cache-control': 'private, no-cache' },
      );
    } catch (error) {
      if (error instanceof UnsearchableQueryError || error instanceof QueryTooLongError) {
        throw badRequest('invalid_query', `${error.message}.`, { parameter: 'q' });
      }
      if (error instanceof InvalidCursorError) throw badRequest('invalid_cursor', `${error.message}.`, { parameter: 'cursor' });
      throw error;
    }
  };
}
