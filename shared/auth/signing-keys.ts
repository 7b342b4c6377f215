import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { RETIRED_KEY_RETENTION_SECONDS } from './token-policy';

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

/** What verifiers need: the published public keys, and one of them by kid. */
export interface JwksSource {
  get(): Promise<PublicJwks>;
  find(kid: string): Promise<JWK | undefined>;
}
