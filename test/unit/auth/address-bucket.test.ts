import { describe, expect, it } from 'vitest';
import { addressBucket, ipFailureRateKey } from '../../../shared/auth/rate-limit';

describe('the address a per-address limit counts by', () => {
  it('is the /64 of an IPv6 address, however the address is written', () => {
    expect(addressBucket('2001:db8:aaaa:bbbb:1:2:3:4')).toBe('2001:db8:aaaa:bbbb::/64');
    expect(addressBucket('2001:0db8:aaaa:bbbb:ffff:ffff:ffff:ffff')).toBe('2001:db8:aaaa:bbbb::/64');
    expect(addressBucket('2001:DB8:AAAA:BBBB::9')).toBe('2001:db8:aaaa:bbbb::/64');
    expect(addressBucket('2001:db8:aaaa:bbbc::1')).toBe('2001:db8:aaaa:bbbc::/64');
    expect(addressBucket('::1')).toBe('::/64');
  });

  it('is the IPv4 address itself, also when it arrives mapped into IPv6', () => {
    expect(addressBucket('198.51.100.7')).toBe('198.51.100.7');
    expect(addressBucket('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(addressBucket('::ffff:c633:6407')).toBe('198.51.100.7');
  });

  it('keeps what is not an address, cut to the length of the longest one', () => {
    expect(addressBucket('unknown')).toBe('unknown');
    expect(addressBucket('x'.repeat(500))).toHaveLength(45);
  });

  it('keys the failed-token bucket by it', () => {
    expect(ipFailureRateKey('2001:db8:1:2:3:4:5:6')).toBe(ipFailureRateKey('2001:db8:1:2:ffff::'));
    expect(ipFailureRateKey('198.51.100.7')).toBe('ip#198.51.100.7');
  });
});
