import { describe, expect, it } from 'vitest';
import { RATE_LIMIT_KEY_PREFIX, SIGNING_KEYS_KEY_PREFIX } from '../../../infra/catalogue';
import { RATE_KEY_PREFIX } from '../../../shared/auth/rate-limit';
import { SIGNING_KEYS_PK } from '../../../shared/auth/signing-keys';

describe('table keys written on the request path', () => {
  it('fall under the prefixes the IAM policy allows', () => {
    expect(RATE_KEY_PREFIX.startsWith(RATE_LIMIT_KEY_PREFIX)).toBe(true);
    expect(SIGNING_KEYS_PK.startsWith(SIGNING_KEYS_KEY_PREFIX)).toBe(true);
  });
});
