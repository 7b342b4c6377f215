import {
  DescribeSecretCommand,
  type DescribeSecretCommandOutput,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { logger } from '../observability/logger';
import { type Clock, systemClock } from './clock';
import type { PublishedJwksStore } from './published-jwks-store';
import { SecretsManagerKeySetVault } from './secrets-manager-key-sets';
import { type KeySet, parseKeySet, publicJwks, rotateKeySet, SIGNING_ALGORITHM } from './signing-keys';
import { TokenIssuer } from './tokens';

export type RotationStep = 'createSecret' | 'setSecret' | 'testSecret' | 'finishSecret';

/** What Secrets Manager passes to a rotation function. */
export interface RotationRequest {
  readonly Step: RotationStep;
  readonly SecretId: string;
  /** The version being rotated in. */
  readonly ClientRequestToken: string;
}

export class RotationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RotationError';
  }
}

export interface KeyRotationDeps {
  readonly secrets: SecretsManagerClient;
  readonly jwks: Pick<PublishedJwksStore, 'publish'>;
  readonly clock?: Clock;
}

const PENDING = 'AWSPENDING';
const CURRENT = 'AWSCURRENT';
const PROBE = { issuer: 'urn:bureau:key-rotation', audience: 'urn:bureau:key-rotation', subject: 'key-rotation-probe' };

/**
 * Rotation of the token signing keys with Secrets Manager's four steps and version stages:
 * createSecret stores the next key set as AWSPENDING, setSecret publishes its public keys so every
 * verifier knows the new kid before anything is signed with it, testSecret proves the new key signs
 * and verifies, finishSecret makes it AWSCURRENT. Every step can be retried safely.
 */
export class KeyRotation {
  private readonly clock: Clock;

  constructor(private readonly deps: KeyRotationDeps) {
    this.clock = deps.clock ?? systemClock;
  }

  async handle(request: RotationRequest): Promise<void> {
    const { Step: step, SecretId: secretId, ClientRequestToken: token } = request;
    const metadata = await this.deps.secrets.send(new DescribeSecretCommand({ SecretId: secretId }));
    if (metadata.RotationEnabled === false) throw new RotationError(`Rotation is not enabled on ${secretId}`);
    const stages = metadata.VersionIdsToStages?.[token];
    if (!stages) throw new RotationError(`Version ${token} of ${secretId} has no stage for rotation`);
    if (stages.includes(CURRENT)) {
      logger.info('version already current; nothing to do', { step, secretId });
      return;
    }
    if (!stages.includes(PENDING)) throw new RotationError(`Version ${token} of ${secretId} is not ${PENDING}`);

    logger.info('rotating signing keys', { step, secretId });
    switch (step) {
      case 'createSecret':
        return this.createSecret(secretId, token);
      case 'setSecret':
        return this.setSecret(secretId, token);
      case 'testSecret':
        return this.testSecret(secretId, token);
      case 'finishSecret':
        return this.finishSecret(secretId, token, metadata);
      default:
        throw new RotationError(`Unknown rotation step ${String(step)}`);
    }
  }

  private async createSecret(secretId: string, token: string): Promise<void> {
    if (await this.pendingExists(secretId, token)) return;
    const next = await rotateKeySet(await this.currentKeySet(secretId), new Date(this.clock()));
    await this.deps.secrets.send(
      new PutSecretValueCommand({
        SecretId: secretId,
        ClientRequestToken: token,
        SecretString: JSON.stringify(next),
        VersionStages: [PENDING],
      }),
    );
  }

  private async setSecret(secretId: string, token: string): Promise<void> {
    await this.deps.jwks.publish(publicJwks(await this.pendingKeySet(secretId, token)));
  }

  private async testSecret(secretId: string, token: string): Promise<void> {
    const pending = await this.pendingKeySet(secretId, token);
    const issuer = new TokenIssuer({ get: async () => pending }, { ...PROBE, clock: this.clock });
    const probe = await issuer.issue(PROBE.subject);
    const jwks = publicJwks(pending);
    await jwtVerify(probe.accessToken, createLocalJWKSet({ keys: jwks.keys.map((key) => ({ ...key })) }), {
      algorithms: [SIGNING_ALGORITHM],
      issuer: PROBE.issuer,
      audience: PROBE.audience,
      subject: PROBE.subject,
      currentDate: new Date(this.clock()),
    });
  }

  private async finishSecret(secretId: string, token: string, metadata: DescribeSecretCommandOutput): Promise<void> {
    const current = Object.entries(metadata.VersionIdsToStages ?? {}).find(([, stages]) => stages.includes(CURRENT))?.[0];
    if (current === token) return;
    await this.deps.secrets.send(
      new UpdateSecretVersionStageCommand({
        SecretId: secretId,
        VersionStage: CURRENT,
        MoveToVersionId: token,
        RemoveFromVersionId: current,
      }),
    );
    logger.info('signing keys rotated', { secretId, version: token });
  }

  /** The key set in use, or undefined on the first rotation (no value yet, or a placeholder value). */
  private async currentKeySet(secretId: string): Promise<KeySet | undefined> {
    const current = await new SecretsManagerKeySetVault(this.deps.secrets, secretId).read();
    if (!current) logger.info('no usable current key set; starting a new one', { secretId });
    return current;
  }

  private async pendingExists(secretId: string, token: string): Promise<boolean> {
    try {
      await this.deps.secrets.send(new GetSecretValueCommand({ SecretId: secretId, VersionId: token, VersionStage: PENDING }));
      return true;
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return false;
      throw error;
    }
  }

  private async pendingKeySet(secretId: string, token: string): Promise<KeySet> {
    const pending = await this.deps.secrets.send(
      new GetSecretValueCommand({ SecretId: secretId, VersionId: token, VersionStage: PENDING }),
    );
    return parseKeySet(pending.SecretString ?? '');
  }
}
