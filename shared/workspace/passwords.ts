import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/**
 * People's passwords, unlike client secrets, are chosen by people: they are hashed with scrypt, a
 * memory-hard KDF (32 MiB and about 100 ms per hash here), so a stolen table does not give them up
 * to a GPU farm. The parameters travel with each hash, so they can be raised without a migration.
 */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, keyLength: 32, saltLength: 16 } as const;
const SCHEME = 'scrypt';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;
/** zxcvbn's scale: 3 is "safely unguessable: moderate protection from offline slow-hash scenario". */
const MIN_STRENGTH = 3;

const derive = promisify(scrypt) as (password: string, salt: Buffer, keyLength: number, options: object) => Promise<Buffer>;
const scryptOptions = (n: number, r: number, p: number) => ({ N: n, r, p, maxmem: 128 * n * r * 2 });

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SCRYPT.saltLength);
  const key = await derive(password, salt, SCRYPT.keyLength, scryptOptions(SCRYPT.N, SCRYPT.r, SCRYPT.p));
  return [SCHEME, SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** A hash to compare against when there is no person, so an unknown address costs what a wrong password costs. */
let dummyHash: Promise<string> | undefined;
function dummy(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(24).toString('base64url'));
  return dummyHash;
}

/** True when the password matches; `hash` undefined still does the work, so timing says nothing. */
export async function verifyPassword(password: string, hash: string | undefined): Promise<boolean> {
  const stored = hash ?? (await dummy());
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== SCHEME || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), expected.length, scryptOptions(Number(n), Number(r), Number(p)));
  return timingSafeEqual(actual, expected) && hash !== undefined;
}

/** Built on first use: the dictionaries take a while to load, and only setting a password needs them. */
let strength: Promise<ZxcvbnFactory> | undefined;
function strengthEstimator(): Promise<ZxcvbnFactory> {
  strength ??= Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common')]).then(
    ([core, common]) => new core.ZxcvbnFactory({ dictionary: common.dictionary, graphs: common.adjacencyGraphs }),
  );
  return strength;
}

/**
 * Why a new password is refused, or undefined when it is good enough: long enough, not too long to
 * hash, and not guessable from common passwords, names, sequences or keyboard patterns (zxcvbn).
 */
export async function passwordProblem(password: string, context: readonly string[]): Promise<string | undefined> {
  const length = Array.from(password).length;
  if (length < MIN_PASSWORD_LENGTH) return `Use at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (length > MAX_PASSWORD_LENGTH) return `Use at most ${MAX_PASSWORD_LENGTH} characters.`;
  if ((await strengthEstimator()).check(password, [...context]).score >= MIN_STRENGTH) return undefined;
  return 'This password is too easy to guess (a common password or a pattern); a few unrelated words make a strong one.';
}
