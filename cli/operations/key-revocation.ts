import { type Clock, systemClock } from '../../shared/auth/clock';
import { type KeySetVault, type PublicJwks, publicJwks, revokeKey, UnknownSigningKeyError } from '../../shared/auth/signing-keys';

/** What operators see of a signing key: never the private half. */
export interface SigningKeyInfo {
  readonly kid: string;
  readonly createdAt?: string;
  /** Signs new tokens. */
  readonly current: boolean;
  /** In the public key set verifiers accept. */
  readonly published: boolean;
}

export interface RevocationResult {
  readonly revoked: string;
  /** kid that signs new tokens from now on. */
  readonly current: string | undefined;
  /** The revoked key was the current one and a new key took its place. */
  readonly replacedCurrent: boolean;
}

export interface KeyRevocationDeps {
  readonly vault: KeySetVault;
  /** Must read the table each time (no cache): it decides what is published. */
  readonly jwks: { get(): Promise<PublicJwks>; publish(jwks: PublicJwks): Promise<void> };
  readonly clock?: Clock;
}

/**
 * Emergency removal of a signing key, for a key that may have leaked. Unlike a rotation, which keeps
 * retired keys published while their tokens live, a revoked key leaves the published set at once,
 * so every verifier refuses its tokens when its cached copy expires (JWKS_CACHE_SECONDS).
 */
export class KeyRevocation {
  private readonly clock: Clock;

  constructor(private readonly deps: KeyRevocationDeps) {
    this.clock = deps.clock ?? systemClock;
  }

  async list(): Promise<SigningKeyInfo[]> {
    const [keySet, published] = await Promise.all([this.deps.vault.read(), this.deps.jwks.get()]);
    const publishedKids = new Set(published.keys.map((key) => key.kid));
    const held = (keySet?.keys ?? []).map((key) => ({
      kid: key.kid,
      createdAt: key.createdAt,
      current: key.kid === keySet?.current,
      published: publishedKids.has(key.kid),
    }));
    const heldKids = new Set(held.map((key) => key.kid));
    const publishedOnly = published.keys
      .filter((key) => !heldKids.has(key.kid))
      .map((key) => ({ kid: key.kid, current: false, published: true }));
    return [...held, ...publishedOnly];
  }

  /**
   * Publishes the reduced public set before the private set changes: from the first step on, no
   * verifier that refreshes accepts the revoked key, and the replacement key is known before it signs.
   * Safe to run again after a failure part way.
   */
  async revoke(kid: string): Promise<RevocationResult> {
    const [keySet, published] = await Promise.all([this.deps.vault.read(), this.deps.jwks.get()]);
    const held = keySet?.keys.some((key) => key.kid === kid) ?? false;
    if (!held && !published.keys.some((key) => key.kid === kid)) throw new UnknownSigningKeyError(kid);
    if (!keySet || !held) {
      await this.deps.jwks.publish({ keys: published.keys.filter((key) => key.kid !== kid) });
      return { revoked: kid, current: keySet?.current, replacedCurrent: false };
    }
    const next = await revokeKey(keySet, kid, new Date(this.clock()));
    await this.deps.jwks.publish(publicJwks(next));
    await this.deps.vault.replace(next);
    return { revoked: kid, current: next.current, replacedCurrent: kid === keySet.current };
  }
}
