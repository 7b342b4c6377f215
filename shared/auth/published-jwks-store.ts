import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { JWK } from 'jose';
import { ExpiringPromises } from '../cache/expiring-promises';
import { type Clock, systemClock } from './clock';
import type { JwksSource, PublicJwk, PublicJwks } from './signing-keys';
import { JWKS_CACHE_SECONDS, JWKS_MIN_REFRESH_SECONDS } from './token-policy';

/** Partition key of the published public keys; catalogue.ts lets only the rotation function write it. */
export const SIGNING_KEYS_PK = 'SIGNING_KEYS';
const JWKS_SK = 'JWKS';

export interface PublishedJwksOptions {
  cacheSeconds?: number;
  minRefreshSeconds?: number;
  clock?: Clock;
}

/**
 * The public keys in the clients table. Verifiers cache them; a token with a kid they do not know
 * (a rotation they have not seen yet) triggers a re-read, throttled so forged kids cannot turn
 * every request into a table read.
 */
export class PublishedJwksStore implements JwksSource {
  private readonly cached: ExpiringPromises<'jwks', PublicJwks>;
  private readonly clock: Clock;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly options: PublishedJwksOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.cached = new ExpiringPromises((options.cacheSeconds ?? JWKS_CACHE_SECONDS) * 1000, this.clock);
  }

  async publish(jwks: PublicJwks): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { pk: SIGNING_KEYS_PK, sk: JWKS_SK, keys: jwks.keys, updatedAt: new Date(this.clock()).toISOString() },
      }),
    );
    this.cached.set('jwks', Promise.resolve(jwks));
  }

  get(): Promise<PublicJwks> {
    return this.cached.get('jwks', () => this.fetch());
  }

  async find(kid: string): Promise<JWK | undefined> {
    const known = (await this.get()).keys.find((key) => key.kid === kid);
    if (known) return known;
    const minAge = (this.options.minRefreshSeconds ?? JWKS_MIN_REFRESH_SECONDS) * 1000;
    if (this.cached.storedWithin('jwks', minAge)) return undefined;
    return (await this.cached.set('jwks', this.fetch())).keys.find((key) => key.kid === kid);
  }

  private async fetch(): Promise<PublicJwks> {
    const result = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: SIGNING_KEYS_PK, sk: JWKS_SK }, ConsistentRead: true }),
    );
    const keys = result.Item?.keys;
    return { keys: Array.isArray(keys) ? (keys as PublicJwk[]) : [] };
  }
}
