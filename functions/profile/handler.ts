import { protectedRoute, protectionDepsFromEnv } from '../../shared/auth/protect';
import { createProfileEndpoint, profileEndpointDepsFromEnv } from '../../shared/companies/profile-endpoint';
import { lambdaHttpHandler } from '../../shared/http/lambda';

export const handler = lambdaHttpHandler(protectedRoute(protectionDepsFromEnv(), createProfileEndpoint(profileEndpointDepsFromEnv())));
