import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { FileKeySetSource } from '../../infra/local/key-file';
import { loadAuthConfig, loadSigningKeyLocation } from '../../shared/auth/config';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { PublishedJwksStore } from '../../shared/auth/published-jwks-store';
import { RateLimiter } from '../../shared/auth/rate-limit';
import { RecentCredentials } from '../../shared/auth/recent-credentials';
import { SecretsManagerKeySetSource } from '../../shared/auth/secrets-manager-key-sets';
import type { KeySetSource } from '../../shared/auth/signing-keys';
import { createTokenEndpoint } from '../../shared/auth/token-endpoint';
import { TokenIssuer } from '../../shared/auth/tokens';
import { lambdaHttpHandler } from '../../shared/http/lambda';
import { DEPLOYED_REQUEST_HANDLER, deployedClient } from '../../shared/observability/aws-clients';
import { sharedDocumentClient } from '../../shared/storage/dynamo';

/**
 * POST /v1/oauth/token and GET /v1/.well-known/jwks.json: clients and counters in the clients table,
 * private keys from Secrets Manager (deployed) or the local key file (local runtime).
 */
const config = loadAuthConfig();
const doc = sharedDocumentClient();
const location = loadSigningKeyLocation();
const keys: KeySetSource =
  location.kind === 'file'
    ? new FileKeySetSource(location.path)
    : new SecretsManagerKeySetSource(
        deployedClient(new SecretsManagerClient({ requestHandler: DEPLOYED_REQUEST_HANDLER })),
        location.secretId,
      );

export const handler = lambdaHttpHandler(
  createTokenEndpoint({
    credentials: new DynamoClientRegistry(doc, config.clientsTable),
    issuer: new TokenIssuer(keys, { issuer: config.issuer, audience: config.audience }),
    jwks: new PublishedJwksStore(doc, config.clientsTable),
    limiter: new RateLimiter(doc, config.clientsTable),
    recent: new RecentCredentials(),
    limits: {
      defaultPerClientPerMinute: config.rateLimitPerMinute,
      failuresPerIpPerMinute: config.tokenFailuresPerIpPerMinute,
      failuresPerClientIdPerMinute: config.tokenFailuresPerClientIdPerMinute,
    },
  }),
);
