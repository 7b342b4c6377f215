import { createHash, timingSafeEqual } from 'node:crypto';
import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { awsClient } from '../aws/clients';
import { ExpiringPromises } from '../cache/expiring-promises';
import { logger } from '../observability/logger';
import { HttpError } from './errors';

/** The header CloudFront adds to every request it forwards to the API (infra/constructs/front-door). */
export const ORIGIN_VERIFY_HEADER = 'x-bureau-origin-verify';
/** The caller's address, set by CloudFront over anything the caller sent under that name. */
export const VIEWER_ADDRESS_HEADER = 'x-bureau-viewer-address';

/** Values are re-read this often, so a new one is accepted within minutes of being put. */
const CACHE_MS = 15 * 60 * 1000;

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Lets through only requests that came through CloudFront, and so through the firewall: they carry
 * the secret header CloudFront adds. The current and the previous value are both accepted, so
 * putting a new value and then deploying it to CloudFront refuses no request in between. When
 * Secrets Manager cannot be read, the last values read keep serving; with none read yet, the request
 * gets a 503 rather than being let through.
 */
export class OriginGuard {
  private readonly cached: ExpiringPromises<'values', readonly Buffer[]>;
  private lastGood?: readonly Buffer[];

  constructor(
    private readonly client: Pick<SecretsManagerClient, 'send'>,
    private readonly secretId: string,
    options: { cacheMs?: number; clock?: () => number } = {},
  ) {
    this.cached = new ExpiringPromises(options.cacheMs ?? CACHE_MS, options.clock);
  }

  /** Throws a 403 for a request that did not come through CloudFront. */
  async check(headerValue: string | undefined): Promise<void> {
    const accepted = await this.cached.get('values', () => this.fetch());
    const offered = digest(headerValue ?? '');
    // Every value is compared, each in constant time, so the time taken says nothing about which was close.
    let matched = false;
    for (const value of accepted) matched = timingSafeEqual(offered, value) || matched;
    if (!matched) {
      throw new HttpError(403, 'forbidden', 'Call the API at its public address; this address serves CloudFront only.');
    }
  }

  private async fetch(): Promise<readonly Buffer[]> {
    try {
      const [current, previous] = await Promise.all([this.read('AWSCURRENT'), this.read('AWSPREVIOUS')]);
      if (current === undefined) throw new Error('the origin secret has no current value');
      this.lastGood = [current, previous].filter((value): value is string => value !== undefined).map(digest);
      return this.lastGood;
    } catch (error) {
      if (this.lastGood) {
        logger.warn('origin secret could not be read; checking against the values read before', { errorName: (error as Error)?.name });
        return this.lastGood;
      }
      logger.error('origin secret could not be read', { errorName: (error as Error)?.name });
      throw new HttpError(503, 'service_unavailable', 'The service cannot take requests just now. Retry in a minute.', {
        'retry-after': '60',
      });
    }
  }

  private async read(stage: string): Promise<string | undefined> {
    try {
      const secret = await this.client.send(new GetSecretValueCommand({ SecretId: this.secretId, VersionStage: stage }));
      return secret.SecretString;
    } catch (error) {
      // A secret never changed has no previous value.
      if (stage === 'AWSPREVIOUS' && error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
  }
}

/**
 * The guard of a deployed function with routes: the stack sets ORIGIN_SECRET_ARN on each. The local
 * runtime has no CloudFront in front and sets none.
 */
export function originGuardFrom(env: NodeJS.ProcessEnv = process.env): OriginGuard | undefined {
  const secretId = env.ORIGIN_SECRET_ARN;
  if (!secretId) return undefined;
  return new OriginGuard(
    awsClient((config) => new SecretsManagerClient(config), 'secretsmanager', env),
    secretId,
  );
}
