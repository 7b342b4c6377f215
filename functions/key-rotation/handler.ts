import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SecretsManagerRotationEvent } from 'aws-lambda';
import { KeyRotation } from '../../shared/auth/key-rotation';
import { PublishedJwksStore } from '../../shared/auth/published-jwks-store';
import { awsClient } from '../../shared/aws/clients';
import { observed } from '../../shared/observability/middleware';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { clientsTable, tableName } from '../../shared/storage/tables';

/** Secrets Manager rotation of the signing keys; publishes the public keys to the clients table. */
const rotation = new KeyRotation({
  secrets: awsClient((config) => new SecretsManagerClient(config), 'secretsmanager'),
  jwks: new PublishedJwksStore(sharedDocumentClient(), tableName(clientsTable)),
});

export const handler = observed<SecretsManagerRotationEvent, void>((event) => rotation.handle(event));
