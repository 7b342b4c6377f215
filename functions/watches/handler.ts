import { protectedRoute, protectionDepsFromEnv } from '../../shared/auth/protect';
import { lambdaHttpHandler } from '../../shared/http/lambda';
import { createWatchesEndpoint, watchesEndpointDepsFromEnv } from '../../shared/watches/watches-endpoint';

export const handler = lambdaHttpHandler(protectedRoute(protectionDepsFromEnv(), createWatchesEndpoint(watchesEndpointDepsFromEnv())));
