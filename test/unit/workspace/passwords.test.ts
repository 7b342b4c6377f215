import { describe, expect, it } from 'vitest';
import { hashPassword, MAX_PASSWORD_LENGTH, passwordProblem, verifyPassword } from '../../../shared/workspace/passwords';

describe('workspace passwords', () => {
  it('hashes with scrypt, its parameters and a random salt in the hash, and verifies only the same password', async () => {
    const first = await hashPassword('harbour lantern quietly orbits');
    const second = await hashPassword('harbour lantern quietly orbits');

    expect(first).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(second).not.toBe(first);
    await expect(verifyPassword('harbour lantern quietly orbits', first)).resolves.toBe(true);
    await expect(verifyPassword('harbour lantern quietly orbitz', first)).resolves.toBe(false);
  });

  it('refuses every password when there is no hash, after doing the same work', async () => {
    const started = performance.now();
    await expect(verifyPassword('anything at all', undefined)).resolves.toBe(false);
    expect(performance.now() - started).toBeGreaterThan(5);
  });

  it('treats a malformed stored hash as no match', async () => {
    await expect(verifyPassword('x', 'md5$abc')).resolves.toBe(false);
    await expect(verifyPassword('x', 'scrypt$1$')).resolves.toBe(false);
  });

  it('asks for 12 characters or more, and not more than it can hash', async () => {
    await expect(passwordProblem('Tr0ub4dor&3', [])).resolves.toMatch(/at least 12/);
    await expect(passwordProblem('x'.repeat(MAX_PASSWORD_LENGTH + 1), [])).resolves.toMatch(/at most/);
  });

  it('refuses common passwords, sequences and keyboard patterns, and accepts a passphrase', async () => {
    for (const weak of ['password1234', 'qwertyuiopasdf', '123456789012', 'aaaaaaaaaaaa']) {
      await expect(passwordProblem(weak, []), weak).resolves.toMatch(/too easy to guess/);
    }
    await expect(passwordProblem('harbour lantern quietly orbits', [])).resolves.toBeUndefined();
  });
});
