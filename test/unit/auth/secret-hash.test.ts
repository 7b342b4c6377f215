import { describe, expect, it } from 'vitest';
import { CLIENT_SECRET_PREFIX, generateClientSecret, hashClientSecret, secretMatchesAny } from '../../../shared/auth/secret-hash';

describe('client secret hashing', () => {
  it('generates prefixed base64url secrets carrying 32 random bytes', () => {
    const secrets = new Set(Array.from({ length: 50 }, generateClientSecret));

    expect(secrets.size).toBe(50);
    for (const secret of secrets) {
      expect(secret.startsWith(CLIENT_SECRET_PREFIX)).toBe(true);
      expect(Buffer.from(secret.slice(CLIENT_SECRET_PREFIX.length), 'base64url')).toHaveLength(32);
    }
  });

  it('stores a scheme-tagged SHA-256 that never contains the secret', () => {
    const secret = generateClientSecret();

    const hash = hashClientSecret(secret);

    expect(hash).toMatch(/^sha256:[A-Za-z0-9_-]{43}$/);
    expect(hash).not.toContain(secret.slice(CLIENT_SECRET_PREFIX.length));
    expect(hashClientSecret(secret)).toBe(hash);
  });

  it('accepts the secret behind any of the stored versions', () => {
    const [oldSecret, newSecret] = [generateClientSecret(), generateClientSecret()];
    const hashes = [hashClientSecret(oldSecret), hashClientSecret(newSecret)];

    expect(secretMatchesAny(oldSecret, hashes)).toBe(true);
    expect(secretMatchesAny(newSecret, hashes)).toBe(true);
  });

  it('refuses a wrong secret, an empty hash list and a corrupt stored hash', () => {
    const secret = generateClientSecret();

    expect(secretMatchesAny(generateClientSecret(), [hashClientSecret(secret)])).toBe(false);
    expect(secretMatchesAny(secret, [])).toBe(false);
    expect(secretMatchesAny(secret, ['sha256:short', 'md5:whatever'])).toBe(false);
    expect(secretMatchesAny(secret, [hashClientSecret(secret).replace('sha256:', 'sha1:')])).toBe(false);
  });
});
