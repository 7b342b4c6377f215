import ipaddr from 'ipaddr.js';
import { isLoopbackHost } from './loopback';

/**
 * Where a subscriber may ask to receive deliveries. Each rule has a stable name that the API reports
 * when it refuses a URL, so a client knows exactly what to fix.
 */
export type UrlRule =
  | 'not_a_url'
  | 'https_only'
  | 'no_credentials'
  | 'no_fragment'
  | 'too_long'
  | 'address_not_public'
  | 'does_not_resolve'
  | 'resolves_to_non_public_address';

export class EndpointUrlError extends Error {
  constructor(
    readonly rule: UrlRule,
    message: string,
  ) {
    super(message);
    this.name = 'EndpointUrlError';
  }
}

export const MAX_URL_LENGTH = 2048;

/** Resolves a host name to every address it has; empty when it has none. */
export type HostResolver = (hostname: string) => Promise<string[]>;

/**
 * Only ipaddr.js's 'unicast' range is public: loopback, private, link-local (169.254.169.254 too),
 * carrier-grade NAT, unique-local, multicast, unspecified, documentation and reserved ranges all have
 * names of their own. An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
export function isPublicAddress(text: string): boolean {
  if (!ipaddr.isValid(text)) return false;
  let address = ipaddr.parse(text);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
  return address.range() === 'unicast';
}

/** The host as an address when the URL gives an IP literal; WHATWG URL has already read any IPv4 spelling. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : undefined;
}

/**
 * Checks a subscriber URL: https only, no user info, no fragment, at most MAX_URL_LENGTH characters,
 * and a host that is, or resolves only to, public addresses. The WHATWG parser has already turned
 * decimal, hex and octal IPv4 spellings (https://2130706433/, https://0x7f.1/) into dotted form.
 * Returns the URL as parsed, the form that is stored. With allowLoopback (the local runtime only),
 * loopback receivers are accepted over http or https.
 */
export async function checkEndpointUrl(text: string, resolve: HostResolver, options: { allowLoopback?: boolean } = {}): Promise<string> {
  if (text.length > MAX_URL_LENGTH) throw new EndpointUrlError('too_long', `url must be at most ${MAX_URL_LENGTH} characters long.`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new EndpointUrlError('not_a_url', 'url is not an absolute URL.');
  }
  const loopback = options.allowLoopback === true && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !(loopback && url.protocol === 'http:'))
    throw new EndpointUrlError('https_only', 'url must begin with https://.');
  if (url.username !== '' || url.password !== '')
    throw new EndpointUrlError('no_credentials', 'url must not carry a user name or password.');
  if (url.hash !== '' || text.includes('#')) throw new EndpointUrlError('no_fragment', 'url must not have a fragment (#…).');
  if (loopback) return url.href;

  const literal = literalAddress(url.hostname);
  if (literal !== undefined) {
    if (!isPublicAddress(literal)) {
      throw new EndpointUrlError('address_not_public', `url's host ${url.hostname} is not a public internet address.`);
    }
    return url.href;
  }
  const addresses = await resolve(url.hostname);
  if (addresses.length === 0) throw new EndpointUrlError('does_not_resolve', `url's host ${url.hostname} does not resolve.`);
  const hidden = addresses.find((address) => !isPublicAddress(address));
  if (hidden !== undefined) {
    throw new EndpointUrlError(
      'resolves_to_non_public_address',
      `url's host ${url.hostname} resolves to ${hidden}, which is not a public internet address.`,
    );
  }
  return url.href;
}
