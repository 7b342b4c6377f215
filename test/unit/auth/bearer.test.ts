import { describe, expect, it } from 'vitest';
import { authenticateBearer, type TokenCheck } from '../../../shared/auth/bearer';
import { InvalidTokenError, type InvalidTokenReason, type Principal } from '../../../shared/auth/tokens';
import { HttpError } from '../../../shared/http/errors';
import { httpRequest } from '../../support/http-fixtures';

const TOKEN = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhY21lIn0.c2lnbmF0dXJl';
const principal: Principal = { clientId: 'acme', tokenId: 'jti-1', expiresAt: 1_900_000_000 };

function verifierThat(outcome: Principal | InvalidTokenReason): TokenCheck & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    verify: async (token) => {
      seen.push(token);
      if (typeof outcome === 'string') throw new InvalidTokenError(outcome);
      return outcome;
    },
  };
}

async function refusal(authorization: string | undefined, verifier: TokenCheck = verifierThat(principal)): Promise<HttpError> {
  const request = httpRequest({ headers: authorization === undefined ? {} : { authorization } });
  const error = await authenticateBearer(request, verifier).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(HttpError);
  return error as HttpError;
}

describe('bearer authentication', () => {
  it('hands the token to the verifier and returns its principal', async () => {
    const verifier = verifierThat(principal);

    const result = await authenticateBearer(httpRequest({ headers: { authorization: `bearer  ${TOKEN}` } }), verifier);

    expect(result).toEqual(principal);
    expect(verifier.seen).toEqual([TOKEN]);
  });

  it('answers a request without credentials with the bare challenge (RFC 6750 §3.1)', async () => {
    for (const authorization of [undefined, '', '   ']) {
      const error = await refusal(authorization);

      expect(error.status).toBe(401);
      expect(error.code).toBe('missing_token');
      expect(error.headers['www-authenticate']).toBe('Bearer realm="bureau"');
    }
  });

  it.each([
    ['another scheme', `Basic ${TOKEN}`],
    ['no token', 'Bearer'],
    ['no space', `Bearer${TOKEN}`],
    ['characters outside token68', `Bearer ${TOKEN}"`],
    ['two tokens', `Bearer ${TOKEN}, Bearer ${TOKEN}`],
  ])('answers invalid_token for a malformed header: %s', async (_case, authorization) => {
    const error = await refusal(authorization);

    expect(error.status).toBe(401);
    expect(error.code).toBe('invalid_token');
    expect(error.headers['www-authenticate']).toMatch(/^Bearer realm="bureau", error="invalid_token", error_description="[^"\\]+"$/);
  });

  it.each(['expired', 'invalid', 'revoked'] as const)(
    'answers invalid_token with a description when the token is %s, never echoing it',
    async (reason) => {
      const error = await refusal(`Bearer ${TOKEN}`, verifierThat(reason));

      expect(error.status).toBe(401);
      expect(error.code).toBe('invalid_token');
      expect(error.headers['www-authenticate']).toBe(
        `Bearer realm="bureau", error="invalid_token", error_description="${new InvalidTokenError(reason).message}"`,
      );
      expect(JSON.stringify({ message: error.message, headers: error.headers, details: error.details })).not.toContain(TOKEN);
    },
  );

  it('lets infrastructure failures through rather than blaming the token', async () => {
    const failing: TokenCheck = {
      verify: async () => {
        throw new Error('DynamoDB unreachable');
      },
    };

    await expect(authenticateBearer(httpRequest({ headers: { authorization: `Bearer ${TOKEN}` } }), failing)).rejects.toThrow(
      'DynamoDB unreachable',
    );
  });
});
