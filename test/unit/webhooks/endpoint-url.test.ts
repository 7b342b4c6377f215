import { describe, expect, it } from 'vitest';
import {
  checkEndpointUrl,
  deliveryPortsFrom,
  EndpointUrlError,
  type HostResolver,
  isPublicAddress,
} from '../../../shared/webhooks/endpoint-url';

/** A resolver with a fixed answer per name: no lookup ever leaves the test. */
const resolver =
  (answers: Record<string, string[]>): HostResolver =>
  async (hostname) =>
    answers[hostname] ?? [];

const resolve = resolver({
  'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'internal.example.com': ['10.0.0.8'],
  'mixed.example.com': ['93.184.215.14', '127.0.0.1'],
  'metadata.example.com': ['169.254.169.254'],
  'v6-local.example.com': ['fd00::1'],
  'v4-compatible.example.com': ['::7f00:1'],
});

async function ruleOf(url: string): Promise<string> {
  try {
    await checkEndpointUrl(url, resolve);
    return 'accepted';
  } catch (error) {
    if (error instanceof EndpointUrlError) return error.rule;
    throw error;
  }
}

describe('webhook endpoint URLs', () => {
  it.each([
    ['https://hooks.example.com/bureau', 'https://hooks.example.com/bureau'],
    ['https://hooks.example.com:8443/a?b=c', 'https://hooks.example.com:8443/a?b=c'],
    ['https://93.184.215.14/in', 'https://93.184.215.14/in'],
    ['https://[2606:4700::1111]/in', 'https://[2606:4700::1111]/in'],
  ])('accepts %s', async (url, stored) => {
    await expect(checkEndpointUrl(url, resolve)).resolves.toBe(stored);
  });

  it.each([
    ['not a url', 'not_a_url'],
    ['/relative/path', 'not_a_url'],
    ['http://hooks.example.com/in', 'https_only'],
    ['ftp://hooks.example.com/in', 'https_only'],
    ['https://user:pass@hooks.example.com/in', 'no_credentials'],
    ['https://user@hooks.example.com/in', 'no_credentials'],
    ['https://hooks.example.com/in#part', 'no_fragment'],
    ['https://hooks.example.com/in#', 'no_fragment'],
    [`https://hooks.example.com/${'a'.repeat(2100)}`, 'too_long'],
    ['https://127.0.0.1/in', 'address_not_public'],
    ['https://2130706433/in', 'address_not_public'],
    ['https://0x7f.1/in', 'address_not_public'],
    ['https://017700000001/in', 'address_not_public'],
    ['https://10.1.2.3/in', 'address_not_public'],
    ['https://172.16.0.1/in', 'address_not_public'],
    ['https://192.168.1.1/in', 'address_not_public'],
    ['https://169.254.169.254/latest/meta-data', 'address_not_public'],
    ['https://100.64.0.1/in', 'address_not_public'],
    ['https://0.0.0.0/in', 'address_not_public'],
    ['https://224.0.0.1/in', 'address_not_public'],
    ['https://255.255.255.255/in', 'address_not_public'],
    ['https://[::1]/in', 'address_not_public'],
    ['https://[::]/in', 'address_not_public'],
    ['https://[::ffff:127.0.0.1]/in', 'address_not_public'],
    ['https://[::ffff:a00:1]/in', 'address_not_public'],
    ['https://[fd00::1]/in', 'address_not_public'],
    ['https://[fe80::1]/in', 'address_not_public'],
    ['https://[ff02::1]/in', 'address_not_public'],
    ['https://[64:ff9b::7f00:1]/in', 'address_not_public'],
    ['https://[::127.0.0.1]/in', 'address_not_public'],
    ['https://[::a9fe:a9fe]/in', 'address_not_public'],
    ['https://[::8.8.8.8]/in', 'address_not_public'],
    ['https://[0:0:0:0:0:0:a00:1]/in', 'address_not_public'],
    ['https://v4-compatible.example.com/in', 'resolves_to_non_public_address'],
    ['https://hooks.example.com:22/in', 'port_not_allowed'],
    ['https://hooks.example.com:8080/in', 'port_not_allowed'],
    ['https://93.184.215.14:6379/in', 'port_not_allowed'],
    ['https://nowhere.example.com/in', 'does_not_resolve'],
    ['https://internal.example.com/in', 'resolves_to_non_public_address'],
    ['https://mixed.example.com/in', 'resolves_to_non_public_address'],
    ['https://metadata.example.com/in', 'resolves_to_non_public_address'],
    ['https://v6-local.example.com/in', 'resolves_to_non_public_address'],
  ])('refuses %s: %s', async (url, rule) => {
    expect(await ruleOf(url)).toBe(rule);
  });

  it("take the ports an operator allows instead of 443 and 8443, and always the scheme's own when none is named", async () => {
    const ports = [443, 9443];
    await expect(checkEndpointUrl('https://hooks.example.com:9443/in', resolve, { ports })).resolves.toBe(
      'https://hooks.example.com:9443/in',
    );
    await expect(checkEndpointUrl('https://hooks.example.com/in', resolve, { ports })).resolves.toBe('https://hooks.example.com/in');
    await expect(checkEndpointUrl('https://hooks.example.com:8443/in', resolve, { ports })).rejects.toMatchObject({
      rule: 'port_not_allowed',
    });
    // A loopback receiver of the local runtime keeps any port.
    await expect(checkEndpointUrl('http://127.0.0.1:4000/in', resolve, { allowLoopback: true })).resolves.toBe('http://127.0.0.1:4000/in');
  });

  it('read the allowed ports from the stage, and refuse to start on a bad value', () => {
    expect(deliveryPortsFrom({})).toEqual([443, 8443]);
    expect(deliveryPortsFrom({ WEBHOOK_PORTS: '443, 9443' })).toEqual([443, 9443]);
    expect(() => deliveryPortsFrom({ WEBHOOK_PORTS: '443,http' })).toThrow('WEBHOOK_PORTS');
    expect(() => deliveryPortsFrom({ WEBHOOK_PORTS: '70000' })).toThrow('WEBHOOK_PORTS');
  });

  it('judge addresses by range: only ordinary unicast is public', () => {
    expect(['8.8.8.8', '2606:4700::1111'].map(isPublicAddress)).toEqual([true, true]);
    expect(['192.0.2.1', '198.18.0.1', '2001:db8::1', 'not-an-address'].map(isPublicAddress)).toEqual([false, false, false, false]);
  });
});
