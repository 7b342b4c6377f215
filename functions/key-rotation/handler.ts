import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SecretsManagerRotationEvent } from 'aws-lambda';
import { KeyRotation } from '../../shared/auth/key-rotation';
import { PublishedJwksStore } from '../../shared/auth/published-jwks-store';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { clientsTable, tableName } from '../../shared/storage/tables';

/** Secrets Manager rotation of the signing keys; publishes the public keys to the clients table. */
const rotation = new KeyRotation({
  secrets: new SecretsManagerClient({}),
  jwks: new PublishedJwksStore(sharedDocumentClient(), tableName(clientsTable)),
});

export const handler = (event: SecretsManagerRotationEvent): Promise<void> => rotation.handle(event);
