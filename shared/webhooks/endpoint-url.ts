import ipaddr from 'ipaddr.js';
import { numberListSetting } from '../config/number-settings';
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
  | 'port_not_allowed'
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

/**
 * Destination ports a delivery may go to: HTTPS's own and its common alternative. Any other port on
 * any public address would make Bureau, from the fixed addresses its customers allow, a probe of
 * whatever listens there; an operator who needs more allows them per stage (egress.ports).
 */
export const DEFAULT_DELIVERY_PORTS: readonly number[] = [443, 8443];
export const DELIVERY_PORTS_VARIABLE = 'WEBHOOK_PORTS';

/** The stage's allowed ports, read once at cold start; a bad value stops the function from starting. */
export function deliveryPortsFrom(env: NodeJS.ProcessEnv = process.env): readonly number[] {
  return numberListSetting(env, DELIVERY_PORTS_VARIABLE, DEFAULT_DELIVERY_PORTS, { min: 1, max: 65_535, whole: true });
}

/** Where a URL's connection goes: its port, or its scheme's own when it names none. */
export const portOf = (url: URL): number => (url.port === '' ? (url.protocol === 'http:' ? 80 : 443) : Number(url.port));

export interface EndpointRules {
  /** The local runtime only: loopback receivers, over http or https, on any port. */
  readonly allowLoopback?: boolean;
  /** Default DEFAULT_DELIVERY_PORTS. */
  readonly ports?: readonly number[];
}

/** Resolves a host name to every address it has; empty when it has none. */
export type HostResolver = (hostname: string) => Promise<string[]>;

/** The deprecated IPv4-compatible IPv6 range (RFC 4291 §2.5.5.1): ::a.b.c.d, which ipaddr.js names only at ::/128 and ::1/128. */
const IPV4_COMPATIBLE: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('::'), 96];

/**
 * The only IPv6 space IANA allocates for global unicast. ipaddr.js calls anything it has no name for
 * 'unicast', the reserved and unassigned rest of IPv6 (4000::/2, ::1:0:0, …) included, which no
 * public network routes.
 */
const GLOBAL_UNICAST: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];

/**
 * Only ipaddr.js's 'unicast' range is public: loopback, private, link-local (169.254.169.254 too),
 * carrier-grade NAT, unique-local, multicast, unspecified, documentation and reserved ranges all have
 * names of their own. An IPv4-mapped IPv6 address is judged as the IPv4 address it carries; the
 * whole IPv4-compatible range (::/96), deprecated and unrouted, is refused, whatever it carries, and
 * so is any other IPv6 address outside 2000::/3.
 */
export function isPublicAddress(text: string): boolean {
  if (!ipaddr.isValid(text)) return false;
  let address = ipaddr.parse(text);
  if (address.kind() === 'ipv6') {
    const v6 = address as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) address = v6.toIPv4Address();
    else if (v6.match(IPV4_COMPATIBLE) || !v6.match(GLOBAL_UNICAST)) return false;
  }
  return address.range() === 'unicast';
}

/** The host as an address when the URL gives an IP literal; WHATWG URL has already read any IPv4 spelling. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : undefined;
}

/**
 * Checks a subscriber URL: https only, no user info, no fragment, at most MAX_URL_LENGTH characters,
 * an allowed port, and a host that is, or resolves only to, public addresses. The WHATWG parser has already turned
 * decimal, hex and octal IPv4 spellings (https://2130706433/, https://0x7f.1/) into dotted form.
 * Returns the URL as parsed, the form that is stored. With allowLoopback (the local runtime only),
 * loopback receivers are accepted over http or https.
 */
export async function checkEndpointUrl(text: string, resolve: HostResolver, options: EndpointRules = {}): Promise<string> {
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
  const ports = options.ports ?? DEFAULT_DELIVERY_PORTS;
  if (!ports.includes(portOf(url))) {
    throw new EndpointUrlError('port_not_allowed', `url may name port ${ports.join(' or ')} only (or none, for 443).`);
  }

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
