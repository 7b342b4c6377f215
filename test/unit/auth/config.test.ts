import { describe, expect, it } from 'vitest';
import { loadAuthConfig, loadSigningKeySecretId } from '../../../shared/auth/config';

const base = { CLIENTS_TABLE: 'clients-test' };

describe('auth configuration', () => {
  it('falls back to documented defaults', () => {
    expect(loadAuthConfig(base)).toEqual({
      clientsTable: 'clients-test',
      issuer: 'https://bureau.example',
      audience: 'bureau-api',
      rateLimitPerMinute: 600,
      tokenFailuresPerIpPerMinute: 20,
      tokenFailuresPerClientIdPerMinute: 20,
      clientCacheSeconds: 30,
    });
  });

  it('reads every setting from the environment', () => {
    const config = loadAuthConfig({
      ...base,
      TOKEN_ISSUER: 'https://issuer.test',
      TOKEN_AUDIENCE: 'aud',
      RATE_LIMIT_PER_MINUTE: '120',
      TOKEN_FAILURES_PER_IP_PER_MINUTE: '5',
      TOKEN_FAILURES_PER_CLIENT_ID_PER_MINUTE: '7',
      CLIENT_CACHE_SECONDS: '0',
    });

    expect(config).toMatchObject({
      issuer: 'https://issuer.test',
      audience: 'aud',
      rateLimitPerMinute: 120,
      tokenFailuresPerIpPerMinute: 5,
      tokenFailuresPerClientIdPerMinute: 7,
      clientCacheSeconds: 0,
    });
  });

  it.each([
    ['RATE_LIMIT_PER_MINUTE', 'lots'],
    ['RATE_LIMIT_PER_MINUTE', '0'],
    ['TOKEN_FAILURES_PER_IP_PER_MINUTE', '2.5'],
    ['TOKEN_FAILURES_PER_CLIENT_ID_PER_MINUTE', '0'],
    ['CLIENT_CACHE_SECONDS', '61'],
  ])('refuses %s=%s at start-up, naming the variable', (name, value) => {
    expect(() => loadAuthConfig({ ...base, [name]: value })).toThrow(name);
  });

  it('needs the clients table', () => {
    expect(() => loadAuthConfig({})).toThrow('CLIENTS_TABLE');
  });

  it('takes the signing keys from the Secrets Manager secret it names, and refuses to start without one', () => {
    expect(loadSigningKeySecretId({ SIGNING_KEY_SECRET_ID: ' arn:secret ' })).toBe('arn:secret');
    expect(() => loadSigningKeySecretId({})).toThrow('SIGNING_KEY_SECRET_ID');
  });
});
