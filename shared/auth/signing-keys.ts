import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { ExpiringPromises } from '../cache/expiring-promises';
import { type Clock, systemClock } from './clock';
import { JWKS_CACHE_SECONDS, JWKS_MIN_REFRESH_SECONDS, KEY_SET_CACHE_SECONDS, RETIRED_KEY_RETENTION_SECONDS } from './token-policy';

export const SIGNING_ALGORITHM = 'EdDSA';

/** A private Ed25519 key in JWK form, as kept in Secrets Manager or the local key file. */
export interface SigningJwk {
  readonly kty: 'OKP';
  readonly crv: 'Ed25519';
  readonly x: string;
  readonly d: string;
  readonly kid: string;
  readonly alg: typeof SIGNING_ALGORITHM;
  readonly createdAt: string;
}

export interface KeySet {
  /** kid of the key that signs new tokens. */
  readonly current: string;
  readonly keys: readonly SigningJwk[];
}

export interface PublicJwk {
  readonly kty: 'OKP';
  readonly crv: 'Ed25519';
  readonly x: string;
  readonly kid: string;
  readonly alg: typeof SIGNING_ALGORITHM;
  readonly use: 'sig';
}

export interface PublicJwks {
  readonly keys: readonly PublicJwk[];
}

export class InvalidKeySetError extends Error {
  constructor(reason: string) {
    super(`Not a valid signing key set: ${reason}`);
    this.name = 'InvalidKeySetError';
  }
}

/** kid is the RFC 7638 thumbprint, so the same key always gets the same id. */
export async function generateSigningKey(now: Date = new Date()): Promise<SigningJwk> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { crv: 'Ed25519', extractable: true });
  const jwk = await exportJWK(privateKey);
  if (typeof jwk.x !== 'string' || typeof jwk.d !== 'string') throw new Error('Ed25519 key export lacked x or d');
  const kid = await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: jwk.x });
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d, kid, alg: SIGNING_ALGORITHM, createdAt: now.toISOString() };
}

/**
 * A new current key, plus every older key that may still have signed a live token: the one just
 * retired always, and earlier ones until RETIRED_KEY_RETENTION_SECONDS after they were replaced.
 */
export async function rotateKeySet(keySet: KeySet | undefined, now: Date = new Date()): Promise<KeySet> {
  const next = await generateSigningKey(now);
  const previous = [...(keySet?.keys ?? [])].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
  const retained = previous.filter((key, index) => {
    if (key.kid === keySet?.current) return true;
    const replacedAt = Date.parse(previous[index + 1]?.createdAt ?? now.toISOString());
    return now.getTime() - replacedAt < RETIRED_KEY_RETENTION_SECONDS * 1000;
  });
  return { current: next.kid, keys: [...retained, next] };
}

export class UnknownSigningKeyError extends Error {
  constructor(readonly kid: string) {
    super(`No signing key with kid "${kid}" is in the key set or the published keys`);
    this.name = 'UnknownSigningKeyError';
  }
}

/**
 * The key set without the revoked key, at once and whatever its age. Revoking the current key puts
 * a new one in its place, so the service keeps issuing tokens.
 */
export async function revokeKey(keySet: KeySet, kid: string, now: Date = new Date()): Promise<KeySet> {
  if (!keySet.keys.some((key) => key.kid === kid)) throw new UnknownSigningKeyError(kid);
  const kept = keySet.keys.filter((key) => key.kid !== kid);
  if (kid !== keySet.current) return { current: keySet.current, keys: kept };
  const next = await generateSigningKey(now);
  return { current: next.kid, keys: [...kept, next] };
}

export function currentSigningKey(keySet: KeySet): SigningJwk {
  const key = keySet.keys.find((candidate) => candidate.kid === keySet.current);
  if (!key) throw new InvalidKeySetError(`current kid ${keySet.current} is not in the set`);
  return key;
}

/** The public halves only: what verifiers and the JWKS endpoint see. */
export function publicJwks(keySet: KeySet): PublicJwks {
  return {
    keys: keySet.keys.map(({ kty, crv, x, kid, alg }) => ({ kty, crv, x, kid, alg, use: 'sig' as const })),
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parseSigningJwk(value: unknown, index: number): SigningJwk {
  if (!isObject(value)) throw new InvalidKeySetError(`key ${index} is not an object`);
  const { kty, crv, x, d, kid, alg, createdAt } = value;
  if (kty !== 'OKP' || crv !== 'Ed25519' || alg !== SIGNING_ALGORITHM)
    throw new InvalidKeySetError(`key ${index} is not an EdDSA Ed25519 key`);
  for (const [field, text] of Object.entries({ x, d, kid, createdAt })) {
    if (typeof text !== 'string' || text === '') throw new InvalidKeySetError(`key ${index} lacks ${field}`);
  }
  if (Number.isNaN(Date.parse(createdAt as string))) throw new InvalidKeySetError(`key ${index} has no valid createdAt`);
  return { kty, crv, x: x as string, d: d as string, kid: kid as string, alg, createdAt: createdAt as string };
}

export function parseKeySet(text: string): KeySet {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidKeySetError('not JSON');
  }
  if (!isObject(value) || typeof value.current !== 'string' || !Array.isArray(value.keys) || value.keys.length === 0) {
    throw new InvalidKeySetError('expected {current, keys: [...]}');
  }
  const keySet: KeySet = { current: value.current, keys: value.keys.map(parseSigningJwk) };
  currentSigningKey(keySet);
  return keySet;
}

/** Where a signer reads its private keys. */
export interface KeySetSource {
  get(): Promise<KeySet>;
}

/** Where the private key set is kept and replaced: Secrets Manager on AWS, a file locally. */
export interface KeySetVault {
  /** The key set in use, or undefined before the first one exists. */
  read(): Promise<KeySet | undefined>;
  /** Makes this key set the one in use. */
  replace(keySet: KeySet): Promise<void>;
}

const writeOwnerOnly = async (path: string, keySet: KeySet, flag: 'wx' | 'w'): Promise<void> => {
  const file = await open(path, flag, 0o600);
  try {
    await file.writeFile(`${JSON.stringify(keySet, null, 2)}\n`, 'utf8');
  } finally {
    await file.close();
  }
};

/**
 * The local stand-in for Secrets Manager: a JSON file, created with owner-only permissions on first
 * use and then kept, so tokens stay valid across restarts of the local runtime. It is re-read as
 * often as Secrets Manager is, so a revocation by the CLI reaches the running signer.
 */
export class FileKeySetSource implements KeySetSource, KeySetVault {
  private readonly cached: ExpiringPromises<'keySet', KeySet>;

  constructor(
    private readonly path: string,
    options: { cacheSeconds?: number; clock?: Clock } = {},
  ) {
    this.cached = new ExpiringPromises((options.cacheSeconds ?? KEY_SET_CACHE_SECONDS) * 1000, options.clock ?? systemClock);
  }

  get(): Promise<KeySet> {
    return this.cached.get('keySet', () => this.loadOrCreate());
  }

  async read(): Promise<KeySet | undefined> {
    try {
      return parseKeySet(await readFile(this.path, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Written beside the file and renamed over it, so a reader never sees half a key set. */
  async replace(keySet: KeySet): Promise<void> {
    const next = `${this.path}.${process.pid}.next`;
    await rm(next, { force: true });
    await writeOwnerOnly(next, keySet, 'wx');
    await rename(next, this.path);
    this.cached.delete('keySet');
  }

  private async loadOrCreate(): Promise<KeySet> {
    const existing = await this.read();
    if (existing) return existing;
    const keySet = await rotateKeySet(undefined);
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    try {
      // 'wx' refuses to overwrite: if another process created the file first, its keys win.
      await writeOwnerOnly(this.path, keySet, 'wx');
      return keySet;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return parseKeySet(await readFile(this.path, 'utf8'));
    }
  }
}

/** The AWSCURRENT key set from Secrets Manager, re-read every few minutes to pick up rotations. */
export class SecretsManagerKeySetSource implements KeySetSource {
  private readonly cached: ExpiringPromises<'keySet', KeySet>;

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
    const secret = await this.client.send(new GetSecretValueCommand({ SecretId: this.secretId }));
    if (!secret.SecretString) throw new InvalidKeySetError('the secret has no string value');
    return parseKeySet(secret.SecretString);
  }
}

/** What verifiers need: the published public keys, and one of them by kid. */
export interface JwksSource {
  get(): Promise<PublicJwks>;
  find(kid: string): Promise<JWK | undefined>;
}

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

/**
 * Local start-up: load the key file (creating it on first start) and publish its public keys to the
 * clients table, which is what the rotation function does on AWS.
 */
export async function ensureLocalSigningKeys(options: {
  file: string;
  doc: DynamoDBDocumentClient;
  tableName: string;
}): Promise<PublicJwks> {
  const jwks = publicJwks(await new FileKeySetSource(options.file).get());
  await new PublishedJwksStore(options.doc, options.tableName).publish(jwks);
  return jwks;
}
