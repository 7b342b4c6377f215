/** Lifetime of an access token, as the interface promises (expires_in). */
export const TOKEN_LIFETIME_SECONDS = 3600;
/** Clock difference tolerated between the token signer and a verifier. */
export const CLOCK_TOLERANCE_SECONDS = 30;
/**
 * How long a signer keeps its copy of the private key set before reading it again. Short, because
 * after an emergency revocation a signer keeps using the revoked key until it re-reads.
 */
export const KEY_SET_CACHE_SECONDS = 60;
/**
 * A retired signing key must stay published until every token it may have signed has expired:
 * signers can still use it until their cached key set refreshes, then the token lives its lifetime
 * plus the tolerated skew.
 */
export const RETIRED_KEY_RETENTION_SECONDS = KEY_SET_CACHE_SECONDS + TOKEN_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS;
/**
 * Verifiers' copy of the published public keys: the longest a revoked key can still be accepted
 * after `bureau keys revoke`.
 */
export const JWKS_CACHE_SECONDS = 60;
/** An unknown kid triggers a re-read at most this often, so forged kids cannot hammer the table. */
export const JWKS_MIN_REFRESH_SECONDS = 30;
