import { randomUUID } from 'node:crypto';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { ExpiringPromises } from '../cache/expiring-promises';
import { logger } from '../observability/logger';
import { type Clock, systemClock } from './clock';
import { InvalidKeySetError, type KeySet, type KeySetSource, type KeySetVault, parseKeySet } from './signing-keys';
import { KEY_SET_CACHE_SECONDS } from './token-policy';

/**
 * The AWSCURRENT key set from Secrets Manager, re-read every few minutes to pick up rotations. When
 * Secrets Manager cannot be read, the last key set read keeps signing (for another cache period, then
 * it tries again): a short outage of Secrets Manager must not turn every token request into a 500.
 */
export class SecretsManagerKeySetSource implements KeySetSource {
  private readonly cached: ExpiringPromises<'keySet', KeySet>;
  private lastGood?: KeySet;

  constructor(
    private readonly client: SecretsManagerClient,
    private readonly secretId: string,
    options: { cacheSeconds?: number; clock?: Clock } = {},
  ) {
    this.cached = new ExpiringPromises((options.cacheSeconds ?? KEY_SET_CACHE_SECONDS) * 1000, options.clock ?? systemClock);
  }

  get(): Promise<KeySet> {
    return this.cached.get('keySet', () => this.fetch());
  }

  private async fetch(): Promise<KeySet> {
    try {
      const secret = await this.client.send(new GetSecretValueCommand({ SecretId: this.secretId }));
      if (!secret.SecretString) throw new InvalidKeySetError('the secret has no string value');
      this.lastGood = parseKeySet(secret.SecretString);
      return this.lastGood;
    } catch (error) {
      if (!this.lastGood) throw error;
      logger.warn('signing key set could not be read; signing with the last one read', { errorName: (error as Error)?.name });
      return this.lastGood;
    }
  }
}

const CURRENT = 'AWSCURRENT';
const PENDING = 'AWSPENDING';

/** The signing key set in Secrets Manager, for operators replacing it outside a scheduled rotation. */
export class SecretsManagerKeySetVault implements KeySetVault {
  constructor(
    private readonly client: Pick<SecretsManagerClient, 'send'>,
    private readonly secretId: string,
  ) {}

  async read(): Promise<KeySet | undefined> {
    try {
      const current = await this.client.send(new GetSecretValueCommand({ SecretId: this.secretId, VersionStage: CURRENT }));
      return parseKeySet(current.SecretString ?? '');
    } catch (error) {
      // The stack's placeholder before the first rotation holds no key set.
      if (error instanceof ResourceNotFoundException || error instanceof InvalidKeySetError) return undefined;
      throw error;
    }
  }

  /**
   * A rotation under way was started from the key set being replaced and would bring its keys back
   * when it finishes: its pending version loses its label first, so that rotation fails and the next
   * scheduled one starts from the new set. Putting the value as AWSCURRENT moves the label at once.
   */
  async replace(keySet: KeySet): Promise<void> {
    const metadata = await this.client.send(new DescribeSecretCommand({ SecretId: this.secretId }));
    for (const [versionId, stages] of Object.entries(metadata.VersionIdsToStages ?? {})) {
      if (stages.includes(PENDING) && !stages.includes(CURRENT)) {
        await this.client.send(
          new UpdateSecretVersionStageCommand({ SecretId: this.secretId, VersionStage: PENDING, RemoveFromVersionId: versionId }),
        );
      }
    }
    await this.client.send(
      new PutSecretValueCommand({
        SecretId: this.secretId,
        ClientRequestToken: randomUUID(),
        SecretString: JSON.stringify(keySet),
        VersionStages: [CURRENT],
      }),
    );
  }
}
