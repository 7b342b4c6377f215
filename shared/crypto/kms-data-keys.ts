import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { awsClient } from '../aws/clients';
import { type DataKeys, EnvelopeSealer, type SecretSealer } from './secret-sealer';
import { type EncryptionContext, WEBHOOK_SECRETS_KEY_VARIABLE } from './webhook-secrets-key';

/** Data keys from a KMS key (locally, from the runtime's stand-in, through the same SDK calls). */
export class KmsDataKeys implements DataKeys {
  constructor(
    private readonly kms: Pick<KMSClient, 'send'>,
    private readonly keyId: string,
  ) {}

  async generate(context: EncryptionContext): Promise<{ plaintext: Uint8Array; encrypted: Uint8Array }> {
    const result = await this.kms.send(
      new GenerateDataKeyCommand({ KeyId: this.keyId, KeySpec: 'AES_256', EncryptionContext: { ...context } }),
    );
    if (!result.Plaintext || !result.CiphertextBlob) throw new Error('KMS returned no data key');
    return { plaintext: result.Plaintext, encrypted: result.CiphertextBlob };
  }

  async decrypt(encrypted: Uint8Array, context: EncryptionContext): Promise<Uint8Array> {
    const result = await this.kms.send(
      new DecryptCommand({ KeyId: this.keyId, CiphertextBlob: encrypted, EncryptionContext: { ...context } }),
    );
    if (!result.Plaintext) throw new Error('KMS returned no plaintext');
    return result.Plaintext;
  }
}

/** The KMS key that seals webhook signing secrets, from the function's environment. */
export function webhookSecretsKeyId(env: NodeJS.ProcessEnv = process.env): string {
  const keyId = env[WEBHOOK_SECRETS_KEY_VARIABLE]?.trim();
  if (!keyId) throw new Error(`${WEBHOOK_SECRETS_KEY_VARIABLE} is not set`);
  return keyId;
}

/** The sealer of a function that keeps or signs with webhook secrets: the stack's key, through KMS. */
export function webhookSecretSealer(env: NodeJS.ProcessEnv = process.env): SecretSealer {
  return new EnvelopeSealer(
    new KmsDataKeys(
      awsClient((config) => new KMSClient(config), 'kms', env),
      webhookSecretsKeyId(env),
    ),
  );
}
