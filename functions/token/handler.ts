import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { loadAuthConfig, loadSigningKeySecretId } from '../../shared/auth/config';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { PublishedJwksStore } from '../../shared/auth/published-jwks-store';
import { RateLimiter } from '../../shared/auth/rate-limit';
import { RecentCredentials } from '../../shared/auth/recent-credentials';
import { SecretsManagerKeySetSource } from '../../shared/auth/secrets-manager-key-sets';
import { createTokenEndpoint } from '../../shared/auth/token-endpoint';
import { TokenIssuer } from '../../shared/auth/tokens';
import { awsClient } from '../../shared/aws/clients';
import { lambdaHttpHandler } from '../../shared/http/lambda';
import { sharedDocumentClient } from '../../shared/storage/dynamo';

/**
 * POST /v1/oauth/token and GET /v1/.well-known/jwks.json: clients and counters in the clients table,
 * private keys from Secrets Manager (locally, the runtime's stand-in for it).
 */
const config = loadAuthConfig();
const doc = sharedDocumentClient();
const keys = new SecretsManagerKeySetSource(
  awsClient((clientConfig) => new SecretsManagerClient(clientConfig), 'secretsmanager'),
  loadSigningKeySecretId(),
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
