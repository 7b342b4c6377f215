import { protectedRoute, protectionDepsFromEnv } from '../../shared/auth/protect';
import { createSearchEndpoint, searchEndpointDepsFromEnv } from '../../shared/companies/search-endpoint';
import { lambdaHttpHandler } from '../../shared/http/lambda';

export const handler = lambdaHttpHandler(protectedRoute(protectionDepsFromEnv(), createSearchEndpoint(searchEndpointDepsFromEnv())));
