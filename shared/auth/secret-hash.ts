import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Client secrets are 32 random bytes, so a single SHA-256 is the right hash: nobody can brute-force
 * 256 bits of randomness, and a slow password KDF (bcrypt, scrypt, argon2) would protect nothing
 * extra while turning every token request into CPU work an attacker could use to exhaust the
 * token endpoint. Stored hashes carry their scheme so another can be introduced later.
 */
export const CLIENT_SECRET_PREFIX = 'bsk_';
const SECRET_BYTES = 32;
const SCHEME = 'sha256:';

export function generateClientSecret(): string {
  return CLIENT_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
}

export function hashClientSecret(secret: string): string {
  return SCHEME + digest(secret).toString('base64url');
}

function digest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

function storedDigest(hash: string): Buffer | undefined {
  if (!hash.startsWith(SCHEME)) return undefined;
  const bytes = Buffer.from(hash.slice(SCHEME.length), 'base64url');
  return bytes.length === 32 ? bytes : undefined;
}

/** Compared against when there is nothing real to compare, so a miss costs what a wrong secret costs. */
const DUMMY_DIGEST = digest(`${CLIENT_SECRET_PREFIX}dummy-${randomBytes(SECRET_BYTES).toString('base64url')}`);

/**
 * True when the secret matches one of the stored hashes. Every hash is compared in constant time
 * and none is skipped after a match, and an empty list still costs one comparison, so the answer
 * time says nothing about which part was wrong or whether the client exists.
 */
export function secretMatchesAny(secret: string, hashes: readonly string[]): boolean {
  const candidate = digest(secret);
  let matched = false;
  const stored = hashes.length > 0 ? hashes.map((hash) => storedDigest(hash)) : [undefined];
  for (const expected of stored) {
    const equal = timingSafeEqual(candidate, expected ?? DUMMY_DIGEST);
    matched = (equal && expected !== undefined) || matched;
  }
  return matched;
}
