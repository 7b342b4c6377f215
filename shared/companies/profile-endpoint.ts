import type { ProtectedHandler } from '../auth/protect';
import { ifNoneMatchMatches } from '../http/conditional';
import { notFound } from '../http/errors';
import { json } from '../http/responses';
import { BusinessMetric, count } from '../observability/metrics';
import { CompanyNotFoundError, fetchAndWatch, type ProfileServiceDeps } from './profile-service';
import { companyNumberOf, jurisdictionParam } from './request-params';

/** Clients may keep a copy but must revalidate it (ETag) before each use. */
const CACHE_CONTROL = 'private, no-cache';

/** GET /v1/profile/{companyNumber}?jurisdiction=; may start before the rate limit answers (it undoes its watch if refused). */
export function createProfileEndpoint(deps: ProfileServiceDeps): ProtectedHandler {
  return async (request, principal, admitted) => {
    const { jurisdiction, companyNumber } = companyNumberOf(request.pathParameters.companyNumber ?? '', jurisdictionParam(request.query));
    let fetched: Awaited<ReturnType<typeof fetchAndWatch>>;
    try {
      fetched = await fetchAndWatch(deps, principal.clientId, jurisdiction, companyNumber, admitted);
    } catch (error) {
      if (error instanceof CompanyNotFoundError) throw notFound('company_not_found', error.message, { jurisdiction, companyNumber });
      throw error;
    }
    count(BusinessMetric.profileFetches);
    const headers = { etag: fetched.etag, 'cache-control': CACHE_CONTROL };
    if (ifNoneMatchMatches(request.headers['if-none-match'], fetched.etag)) return { status: 304, headers };
    return json(200, fetched.profile, headers);
  };
}
