import { createTokenEndpoint, tokenEndpointDepsFromEnv } from '../../shared/auth/token-endpoint';
import { lambdaHttpHandler } from '../../shared/http/lambda';

export const handler = lambdaHttpHandler(createTokenEndpoint(tokenEndpointDepsFromEnv()));
