import { randomUUID } from 'node:crypto';
import { errors, importJWK, type JWK, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import { ExpiringPromises } from '../cache/expiring-promises';
import type { ClientLookup } from './client-registry';
import { type Clock, epochSeconds, systemClock } from './clock';
import { currentSigningKey, type JwksSource, type KeySetSource, SIGNING_ALGORITHM } from './signing-keys';
import { CLOCK_TOLERANCE_SECONDS, TOKEN_LIFETIME_SECONDS } from './token-policy';

/** The caller of a protected route, as established by its access token. */
export interface Principal {
  readonly clientId: string;
  readonly tokenId: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

export interface IssuedToken {
  readonly accessToken: string;
  readonly tokenId: string;
  readonly expiresIn: number;
  readonly expiresAt: number;
}

export interface TokenAudience {
  readonly issuer: string;
  readonly audience: string;
}

/** RFC 9068 media type of JWT access tokens; checking it stops other JWTs being replayed as access tokens. */
const ACCESS_TOKEN_TYPE = 'at+jwt';
/** Longer than any token this service signs; refuses junk before any parsing. */
const MAX_TOKEN_LENGTH = 4096;

type ImportedKey = Awaited<ReturnType<typeof importJWK>>;

/** Imported CryptoKeys by kid and public point, so a reused kid with a different key is never confused. */
class ImportedKeys {
  private readonly keys = new ExpiringPromises<string, ImportedKey>(Number.POSITIVE_INFINITY);

  get(jwk: JWK & { kid: string; x?: string }): Promise<ImportedKey> {
    const id = `${jwk.kid}:${jwk.x ?? ''}:${jwk.d === undefined ? 'public' : 'private'}`;
    return this.keys.get(id, () => importJWK(jwk, SIGNING_ALGORITHM));
  }
}

export class TokenIssuer {
  private readonly imported = new ImportedKeys();
  private readonly clock: Clock;

  constructor(
    private readonly keys: KeySetSource,
    private readonly settings: TokenAudience & { clock?: Clock },
  ) {
    this.clock = settings.clock ?? systemClock;
  }

  /**
   * `notBefore` is the client's tokensNotBefore: verifiers refuse a token issued at or before that
   * second, so a token issued in the same second as a revocation but after it is dated one second
   * later (well inside the verifiers' skew allowance) to stay valid.
   */
  async issue(clientId: string, options: { notBefore?: number } = {}): Promise<IssuedToken> {
    const signingKey = currentSigningKey(await this.keys.get());
    const { kty, crv, x, d, kid } = signingKey;
    const key = await this.imported.get({ kty, crv, x, d, kid });
    const issuedAt = Math.max(epochSeconds(this.clock), (options.notBefore ?? 0) + 1);
    const expiresAt = issuedAt + TOKEN_LIFETIME_SECONDS;
    const tokenId = randomUUID();
    const accessToken = await new SignJWT({ client_id: clientId })
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid, typ: ACCESS_TOKEN_TYPE })
      .setIssuer(this.settings.issuer)
      .setAudience(this.settings.audience)
      .setSubject(clientId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .setJti(tokenId)
      .sign(key);
    return { accessToken, tokenId, expiresIn: TOKEN_LIFETIME_SECONDS, expiresAt };
  }
}

export type InvalidTokenReason = 'expired' | 'invalid' | 'revoked';

const descriptions: Record<InvalidTokenReason, string> = {
  expired: 'The access token has expired; request a new one.',
  invalid: 'The access token is not valid.',
  revoked: 'The access token is no longer valid; request a new one.',
};

/** A token that must be refused; the description is safe to show to the caller. */
export class InvalidTokenError extends Error {
  constructor(readonly reason: InvalidTokenReason) {
    super(descriptions[reason]);
    this.name = 'InvalidTokenError';
  }
}

export interface TokenVerifierDeps extends TokenAudience {
  readonly jwks: JwksSource;
  /** Should be cached (CachedClientLookup): it is consulted on every request. */
  readonly clients: ClientLookup;
  readonly clock?: Clock;
}

export class TokenVerifier {
  private readonly imported = new ImportedKeys();
  private readonly clock: Clock;

  constructor(private readonly deps: TokenVerifierDeps) {
    this.clock = deps.clock ?? systemClock;
  }

  async verify(token: string): Promise<Principal> {
    if (token.length > MAX_TOKEN_LENGTH) throw new InvalidTokenError('invalid');
    const payload = await this.verifySignatureAndClaims(token);
    const clientId = payload.sub as string;
    const client = await this.deps.clients.get(clientId);
    // tokensNotBefore is the second of the revocation: a token dated that second may predate it.
    if (client?.status !== 'active' || (payload.iat as number) <= client.tokensNotBefore) {
      throw new InvalidTokenError('revoked');
    }
    return { clientId, tokenId: payload.jti as string, expiresAt: payload.exp as number };
  }

  private async verifySignatureAndClaims(token: string): Promise<JWTPayload> {
    try {
      const { payload } = await jwtVerify(
        token,
        async (header) => {
          const jwk = header.kid === undefined ? undefined : await this.deps.jwks.find(header.kid);
          if (!jwk || header.kid === undefined) throw new InvalidTokenError('invalid');
          return this.imported.get({ ...jwk, kid: header.kid });
        },
        {
          algorithms: [SIGNING_ALGORITHM],
          issuer: this.deps.issuer,
          audience: this.deps.audience,
          typ: ACCESS_TOKEN_TYPE,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['sub', 'jti', 'iat', 'exp'],
          // Refuses an iat in the future and any token older than its lifetime, whatever its exp says.
          maxTokenAge: TOKEN_LIFETIME_SECONDS,
          currentDate: new Date(this.clock()),
        },
      );
      if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string') throw new InvalidTokenError('invalid');
      // No key of ours signs a longer lifetime: one that claims it was not issued by this service.
      if ((payload.exp as number) - (payload.iat as number) > TOKEN_LIFETIME_SECONDS) throw new InvalidTokenError('invalid');
      return payload;
    } catch (error) {
      if (error instanceof InvalidTokenError) throw error;
      if (error instanceof errors.JWTExpired) throw new InvalidTokenError('expired');
      if (error instanceof errors.JOSEError) throw new InvalidTokenError('invalid');
      throw error;
    }
  }
}
