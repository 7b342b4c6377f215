import type { LookupAddress } from 'node:dns';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { DeliveryClient } from '../../../shared/webhooks/delivery-client';
import { checkEndpointUrl, EndpointUrlError, type HostResolver } from '../../../shared/webhooks/endpoint-url';
import { propertyRuns } from '../../support/property-runs';

const runs = propertyRuns(500, 20261125);

type Cidr = readonly [base: string, bits: number];

const v4Number = (dotted: string) => dotted.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0);
const v4Dotted = (value: number) => [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join('.');
const inV4 = (value: number, [base, bits]: Cidr) => Math.floor(value / 2 ** (32 - bits)) === Math.floor(v4Number(base) / 2 ** (32 - bits));

/**
 * The oracle, written from IANA's registries rather than from the code under test: the special-purpose
 * blocks that are not globally reachable, multicast, and the reserved 240/4 (broadcast included).
 */
const FORBIDDEN_V4: readonly Cidr[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 29],
  ['192.0.0.8', 32],
  ['192.0.0.170', 31],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
/** Special-purpose yet globally reachable (anycast, AS112, AMT, the old 6to4 relay): refusing them is as safe as accepting. */
const SPECIAL_V4: readonly Cidr[] = [
  ['192.0.0.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['192.88.99.0', 24],
  ['192.175.48.0', 24],
];
const isForbiddenV4 = (value: number) => FORBIDDEN_V4.some((cidr) => inV4(value, cidr));
const isPublicV4 = (value: number) => !isForbiddenV4(value) && !SPECIAL_V4.some((cidr) => inV4(value, cidr));

const forbiddenV4 = fc
  .constantFrom(...FORBIDDEN_V4)
  .chain(([base, bits]) => fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((offset) => v4Number(base) + offset));
const anyV4 = fc.oneof(forbiddenV4, fc.integer({ min: 0, max: 2 ** 32 - 1 }));

type Radix = 'dec' | 'hex' | 'oct';
const inRadix = (value: number, radix: Radix, zeros: number, upper: boolean): string => {
  if (radix === 'dec') return String(value);
  if (radix === 'oct') return `0${'0'.repeat(zeros)}${value.toString(8)}`;
  const digits = `${'0'.repeat(zeros)}${value.toString(16)}`;
  return upper ? `0X${digits.toUpperCase()}` : `0x${digits}`;
};
const FULL_WIDTH_DIGITS = '０１２３４５６７８９';

/**
 * Every way a URL host can name one IPv4 address that WHATWG URL (and so the API) reads as that
 * address: dotted with any radix per part, shortened to 3, 2 or 1 parts, with or without a trailing
 * dot, percent-encoded, full-width digits and ideographic dots, and IPv4-mapped IPv6, compressed or
 * written out, its zeros padded or not, its tail in hex or dotted.
 */
const spellingOf = (value: number): fc.Arbitrary<string> => {
  const octets = [24, 16, 8, 0].map((shift) => (value >>> shift) & 255);
  const [a, b, c, d] = octets as [number, number, number, number];
  const radix = fc.constantFrom<Radix>('dec', 'hex', 'oct');
  const zeros = fc.nat(3);
  const parts = (values: number[]) =>
    fc
      .tuple(
        fc.tuple(...values.map((part) => fc.tuple(radix, zeros, fc.boolean()).map(([r, z, upper]) => inRadix(part, r, z, upper)))),
        fc.boolean(),
      )
      .map(([spelled, trailingDot]) => `${spelled.join('.')}${trailingDot ? '.' : ''}`);
  const hexPair = (high: number, low: number, pad: boolean, upper: boolean) => {
    const text = (high * 256 + low).toString(16).padStart(pad ? 4 : 1, '0');
    return upper ? text.toUpperCase() : text;
  };
  return fc.oneof(
    parts([a, b, c, d]),
    parts([a, b, c * 256 + d]),
    parts([a, b * 65_536 + c * 256 + d]),
    parts([value]),
    fc
      .array(fc.boolean(), { minLength: 15, maxLength: 15 })
      .map((encode) => [...`${a}.${b}.${c}.${d}`].map((char, i) => (encode[i] ? `%${char.charCodeAt(0).toString(16)}` : char)).join('')),
    fc
      .constantFrom('．', '。', '.')
      .map((dot) => octets.map((octet) => [...String(octet)].map((digit) => FULL_WIDTH_DIGITS[Number(digit)]).join('')).join(dot)),
    fc
      .record({ compressed: fc.boolean(), pad: fc.boolean(), upper: fc.boolean(), dotted: fc.boolean() })
      .map(({ compressed, pad, upper, dotted }) => {
        // Five zero groups, or the :: that stands for them.
        const head = compressed ? '::' : (pad ? '0000:' : '0:').repeat(5);
        const tail = dotted ? `${a}.${b}.${c}.${d}` : `${hexPair(a, b, pad, upper)}:${hexPair(c, d, pad, upper)}`;
        return `[${head}${upper ? 'FFFF' : 'ffff'}:${tail}]`;
      }),
  );
};

/** 128-bit addresses as hextets, spelled compressed or in full, either case, with or without padding, or with a dotted IPv4 tail. */
const v6Text = (value: bigint, style: { compress: boolean; pad: boolean; upper: boolean; dottedTail: boolean }): string => {
  const hextets = Array.from({ length: 8 }, (_, index) => Number((value >> BigInt(112 - 16 * index)) & 0xffffn));
  let groups = hextets.map((hextet) => hextet.toString(16).padStart(style.pad ? 4 : 1, '0'));
  if (style.dottedTail) {
    const tail = hextets.slice(6) as [number, number];
    groups = [...groups.slice(0, 6), `${tail[0] >> 8}.${tail[0] & 255}.${tail[1] >> 8}.${tail[1] & 255}`];
  }
  let text = groups.join(':');
  if (style.compress) {
    const zeroRun = groups.findIndex((group) => /^0+$/.test(group));
    if (zeroRun >= 0) {
      let end = zeroRun;
      while (end < groups.length && /^0+$/.test(groups[end] as string)) end++;
      text = `${groups.slice(0, zeroRun).join(':')}::${groups.slice(end).join(':')}`;
    }
  }
  return style.upper ? text.toUpperCase() : text;
};
const PLAIN_V6 = { compress: false, pad: false, upper: false, dottedTail: false } as const;
const v6Style = fc.record({ compress: fc.boolean(), pad: fc.boolean(), upper: fc.boolean(), dottedTail: fc.boolean() });

const v6Number = (text: string): bigint => {
  const [head = '', tail = ''] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const all = [...groups(head), ...Array(8 - groups(head).length - groups(tail).length).fill('0'), ...groups(tail)];
  return all.reduce((sum, group) => (sum << 16n) + BigInt(Number.parseInt(group, 16)), 0n);
};
const inV6 = (value: bigint, [base, bits]: Cidr) => value >> BigInt(128 - bits) === v6Number(base) >> BigInt(128 - bits);
const inV6Block = ([base, bits]: Cidr) =>
  fc.bigInt({ min: 0n, max: (1n << BigInt(128 - bits)) - 1n }).map((offset) => v6Number(base) + offset);

/**
 * IPv6 that no webhook may reach: IANA's blocks that are not globally reachable, the whole
 * IPv4-compatible ::/96, NAT64 and 6to4 (which carry an IPv4 address of any kind), and everything
 * outside 2000::/3, the only space IANA hands out for global unicast.
 */
const FORBIDDEN_V6: readonly Cidr[] = [
  ['::', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];
const MAPPED_V6: Cidr = ['::ffff:0:0', 96];
const GLOBAL_UNICAST: Cidr = ['2000::', 3];
const forbiddenV6 = fc.oneof(
  fc.constantFrom(...FORBIDDEN_V6).chain(inV6Block),
  // Outside 2000::/3: reserved or unassigned, routed nowhere on the internet. An IPv4-mapped address is judged as IPv4, above.
  fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).filter((value) => !inV6(value, GLOBAL_UNICAST) && !inV6(value, MAPPED_V6)),
);
/** Global unicast outside every special-purpose block: 2003:: to 3ffe::, AS112's delegation left out. */
const publicV6 = fc
  .bigInt({ min: v6Number('2003::'), max: v6Number('3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff') })
  .filter((value) => !inV6(value, ['2620:4f:8000::', 48]));

/** The host as WHATWG URL normalises it: two spellings name one address when they normalise alike. */
const hostOf = (host: string) => new URL(`https://${host}/`).hostname;

/** A literal host must never be looked up: the rule is about the address written. */
const noLookup: HostResolver = async (hostname) => {
  throw new Error(`looked up ${hostname}`);
};

async function verdict(url: string, resolve: HostResolver = noLookup): Promise<string> {
  try {
    return `accepted ${await checkEndpointUrl(url, resolve)}`;
  } catch (error) {
    if (error instanceof EndpointUrlError) return error.rule;
    throw error;
  }
}

const client = new DeliveryClient({ timeoutMs: 2000 });
afterAll(() => client.close());

describe('webhook URL rules, for any spelling of any address', () => {
  it('refuse every IPv4 address that is not globally reachable and accept every ordinary public one, however the host spells it', async () => {
    await fc.assert(
      fc.asyncProperty(
        anyV4.chain((value) => fc.tuple(fc.constant(value), spellingOf(value))),
        fc.constantFrom('', ':443', ':8443'),
        async ([value, host], port) => {
          const url = `https://${host}${port}/hook`;
          const parsed = new URL(url);
          // The spelling really names this address: as an IPv4 literal, or as the IPv4-mapped IPv6 that carries it.
          expect([v4Dotted(value), hostOf(`[::ffff:${v4Dotted(value)}]`)]).toContain(parsed.hostname);
          const answer = await verdict(url);
          // The connection is vetted again at delivery time, on the URL as stored.
          if (isForbiddenV4(value)) {
            expect(answer, url).toBe('address_not_public');
            expect(client.refusal(parsed), url).toMatch(/not a public internet address/);
          } else if (isPublicV4(value)) {
            expect(answer, url).toBe(`accepted ${parsed.href}`);
            expect(client.refusal(parsed), url).toBeUndefined();
            expect(await verdict(`http://${host}${port}/hook`), url).toBe('https_only');
          }
        },
      ),
      runs,
    );
  });

  it('refuse every IPv6 address outside public global unicast, bracketed in any spelling, and accept public ones', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          forbiddenV6.map((value) => ({ value, forbidden: true })),
          publicV6.map((value) => ({ value, forbidden: false })),
        ),
        v6Style,
        async ({ value, forbidden }, style) => {
          const url = `https://[${v6Text(value, style)}]/hook`;
          const parsed = new URL(url);
          expect(parsed.hostname).toBe(hostOf(`[${v6Text(value, PLAIN_V6)}]`));
          const answer = await verdict(url);
          if (forbidden) {
            expect(answer, url).toBe('address_not_public');
            expect(client.refusal(parsed), url).toMatch(/not a public internet address/);
          } else expect(answer, url).toBe(`accepted ${parsed.href}`);
        },
      ),
      runs,
    );
  });

  it('judge the host the URL really names, not one hidden in userinfo, behind a backslash or in a fragment', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          forbiddenV4.chain(spellingOf),
          fc.tuple(forbiddenV6, v6Style).map(([value, style]) => `[${v6Text(value, style)}]`),
        ),
        fc.constantFrom('93.184.215.14', 'hooks.example.com'),
        fc.constantFrom('userinfo', 'backslash', 'fragment'),
        async (hidden, decoy, trick) => {
          const resolve: HostResolver = async () => ['93.184.215.14'];
          if (trick === 'userinfo') expect(await verdict(`https://${decoy}@${hidden}/hook`, resolve)).toBe('no_credentials');
          // A backslash is a slash to WHATWG URL: the host ends there, and the decoy is only path.
          if (trick === 'backslash') expect(await verdict(`https://${hidden}\\@${decoy}/hook`, resolve)).toBe('address_not_public');
          if (trick === 'fragment') expect(await verdict(`https://${decoy}#@${hidden}/hook`, resolve)).toBe('no_fragment');
        },
      ),
      runs,
    );
  });

  it('refuse a host name if any address it resolves to is not public, and accept it when all are', async () => {
    const resolved = fc.oneof(
      anyV4.map((value) => ({ address: v4Dotted(value), forbidden: isForbiddenV4(value), public: isPublicV4(value) })),
      anyV4.map((value) => ({ address: `::ffff:${v4Dotted(value)}`, forbidden: isForbiddenV4(value), public: isPublicV4(value) })),
      forbiddenV6.map((value) => ({ address: v6Text(value, PLAIN_V6), forbidden: true, public: false })),
      publicV6.map((value) => ({ address: v6Text(value, PLAIN_V6), forbidden: false, public: true })),
    );
    await fc.assert(
      fc.asyncProperty(fc.domain(), fc.array(resolved, { maxLength: 4 }), async (name, addresses) => {
        const answer = await verdict(`https://${name}/hook`, async () => addresses.map((entry) => entry.address));
        if (addresses.length === 0) expect(answer).toBe('does_not_resolve');
        else if (addresses.some((entry) => entry.forbidden)) expect(answer).toBe('resolves_to_non_public_address');
        else if (addresses.every((entry) => entry.public)) expect(answer).toBe(`accepted ${new URL(`https://${name}/hook`).href}`);
      }),
      runs,
    );
  });

  it('refuse every scheme but https', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constantFrom('http', 'HTTP', 'ftp', 'ws', 'wss', 'file', 'gopher', 'data', 'javascript'),
          fc.stringMatching(/^[a-z][a-z0-9+.-]{0,9}$/),
        ),
        async (scheme) => {
          fc.pre(scheme.toLowerCase() !== 'https');
          const answer = await verdict(`${scheme}://hooks.example.com/hook`, async () => ['93.184.215.14']);
          expect(['https_only', 'not_a_url']).toContain(answer);
        },
      ),
      runs,
    );
  });

  it('vet every address a name resolves to as a delivery connects, so a name that changed its answer since registration reaches nothing', async () => {
    const forbiddenAnswer = fc.oneof(
      forbiddenV4.map((value) => ({ address: v4Dotted(value), family: 4 })),
      forbiddenV6.map((value) => ({ address: v6Text(value, PLAIN_V6), family: 6 })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(forbiddenAnswer, { minLength: 1, maxLength: 3 }), fc.boolean(), async (forbidden, withPublic) => {
        const answer: LookupAddress[] = withPublic ? [{ address: '93.184.215.14', family: 4 }, ...forbidden] : forbidden;
        const rebinding = new DeliveryClient({
          timeoutMs: 2000,
          lookup: ((_hostname: string, _options: unknown, callback: (error: null, addresses: LookupAddress[]) => void) =>
            callback(null, answer)) as never,
        });
        try {
          const result = await rebinding.post('https://hooks.example.com/hook', {}, '{}');
          expect(result).toMatchObject({ kind: 'error', error: 'address_not_public' });
        } finally {
          await rebinding.close();
        }
      }),
      propertyRuns(100, 20261125),
    );
  });
});
