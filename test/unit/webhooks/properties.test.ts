import fc from 'fast-check';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { DeliveryClient } from '../../../shared/webhooks/delivery-client';
import { checkEndpointUrl, EndpointUrlError, type UrlRule } from '../../../shared/webhooks/endpoint-url';
import { DELIVERY_ID, deliveryIdOf } from '../../../shared/webhooks/events';
import { MAX_RETRY_DELAY_SECONDS, nextRetryDelaySeconds, RETRY_DELAYS_SECONDS } from '../../../shared/webhooks/retry-schedule';
import { sign, signedHeaders } from '../../../shared/webhooks/signature';
import { generateSigningSecret } from '../../../shared/webhooks/subscription';

/** Seeded: a failure names its seed and path, and replays the same way. */
const runs = { seed: 20261125, numRuns: 300 } as const;

type Octets = readonly [number, number, number, number];
const octet = fc.nat(255);

/** IPv4 addresses no webhook may reach: private, loopback, link-local (metadata), CGNAT, this network, broadcast. */
const forbiddenV4: fc.Arbitrary<Octets> = fc.oneof(
  fc.tuple(fc.constant(10), octet, octet, octet),
  fc.tuple(fc.constant(127), octet, octet, octet),
  fc.tuple(fc.constant(169), fc.constant(254), octet, octet),
  fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), octet, octet),
  fc.tuple(fc.constant(192), fc.constant(168), octet, octet),
  fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), octet, octet),
  fc.tuple(fc.constant(0), octet, octet, octet),
  fc.constant([255, 255, 255, 255] as const),
);

/**
 * Public unicast addresses, from /8s wholly outside every special-purpose range (no documentation,
 * benchmarking or reserved block starts with these): what the rules must let through, so that a rule
 * which refused everything would fail here.
 */
const publicV4: fc.Arbitrary<Octets> = fc.tuple(
  fc.oneof(fc.integer({ min: 11, max: 99 }), fc.integer({ min: 130, max: 168 })),
  octet,
  octet,
  octet,
);

type Base = 'decimal' | 'hex' | 'HEX' | 'octal';
const base = fc.constantFrom<Base>('decimal', 'hex', 'HEX', 'octal');
const inBase = (value: number, how: Base): string =>
  how === 'hex'
    ? `0x${value.toString(16)}`
    : how === 'HEX'
      ? `0X${value.toString(16).toUpperCase()}`
      : how === 'octal'
        ? `0${value.toString(8)}`
        : String(value);

/**
 * One spelling of an IPv4 address as a URL host may carry it: four, three, two or one number(s), each
 * part in decimal, hex or octal, with or without a trailing dot, or the address inside IPv4-mapped
 * IPv6 in its dotted or hex form, compressed or written out in full.
 */
const spellingOf = (octets: Octets): fc.Arbitrary<string> => {
  const [a, b, c, d] = octets;
  const parts = [[a, b, c, d], [a, b, c * 256 + d], [a, b * 65_536 + c * 256 + d], [((a * 256 + b) * 256 + c) * 256 + d]];
  const numeric = fc
    .tuple(fc.constantFrom(...parts), fc.array(base, { minLength: 4, maxLength: 4 }), fc.boolean())
    .map(([chosen, bases, dot]) => `${chosen.map((value, index) => inBase(value, bases[index] as Base)).join('.')}${dot ? '.' : ''}`);
  const high = (a * 256 + b).toString(16);
  const low = (c * 256 + d).toString(16);
  const mapped = fc.constantFrom(
    `[::ffff:${a}.${b}.${c}.${d}]`,
    `[::FFFF:${high}:${low}]`,
    `[0:0:0:0:0:ffff:${high}:${low}]`,
    `[0000:0000:0000:0000:0000:ffff:${a}.${b}.${c}.${d}]`,
  );
  return fc.oneof({ weight: 3, arbitrary: numeric }, { weight: 1, arbitrary: mapped });
};

const hextet = fc.nat(0xffff);
/** IPv6 addresses no webhook may reach: loopback, link-local, unique-local, IPv4-mapped forbidden IPv4, and IPv4-compatible. */
const forbiddenV6: fc.Arbitrary<readonly number[]> = fc.oneof(
  fc.constant([0, 0, 0, 0, 0, 0, 0, 1]),
  fc.tuple(fc.integer({ min: 0xfe80, max: 0xfebf }), ...Array.from({ length: 7 }, () => hextet)),
  fc.tuple(fc.integer({ min: 0xfc00, max: 0xfdff }), ...Array.from({ length: 7 }, () => hextet)),
  forbiddenV4.map(([a, b, c, d]) => [0, 0, 0, 0, 0, 0xffff, a * 256 + b, c * 256 + d]),
  // The deprecated IPv4-compatible range, unrouted: refused whatever address it carries.
  fc.tuple(hextet, hextet).map(([high, low]) => [0, 0, 0, 0, 0, 0, high, low]),
);

/** The longest run of zero groups, as :: compresses it (or -1 when there is none worth it). */
const longestZeros = (groups: readonly number[]): [number, number] => {
  let best: [number, number] = [-1, 0];
  for (let start = 0; start < groups.length; start++) {
    let length = 0;
    while (groups[start + length] === 0) length++;
    if (length > 1 && length > best[1]) best = [start, length];
  }
  return best;
};

/** The same IPv6 address bracketed, compressed or in full, padded or not, upper or lower case. */
const v6SpellingOf = (groups: readonly number[]): fc.Arbitrary<string> =>
  fc.tuple(fc.constantFrom('compressed', 'full', 'padded'), fc.boolean()).map(([form, upper]) => {
    const hex = groups.map((group) => (form === 'padded' ? group.toString(16).padStart(4, '0') : group.toString(16)));
    let text = hex.join(':');
    if (form === 'compressed') {
      const [start, length] = longestZeros(groups);
      if (start >= 0) text = `${hex.slice(0, start).join(':')}::${hex.slice(start + length).join(':')}`;
    }
    return `[${upper ? text.toUpperCase() : text}]`;
  });

const userinfo = fc.constantFrom('', 'user:pass@', 'hooks.example.com@', 'user@');

/** The rule a URL breaks, or undefined when it is accepted. */
const ruleBroken = async (url: string, resolve: (host: string) => Promise<string[]> = async () => []): Promise<UrlRule | undefined> => {
  try {
    await checkEndpointUrl(url, resolve);
    return undefined;
  } catch (error) {
    if (error instanceof EndpointUrlError) return error.rule;
    throw error;
  }
};

/** The sender's own check, made again on every attempt, must agree: a stored URL is not trusted for having once passed. */
const client = new DeliveryClient();
afterAll(() => client.close());

describe('properties of endpoint URLs', () => {
  it('refuses every private, loopback, link-local or reserved IPv4 address, however the host spells it, with or without userinfo', async () => {
    const hosts = forbiddenV4.chain((octets) => fc.tuple(fc.constant(octets), spellingOf(octets)));
    await fc.assert(
      fc.asyncProperty(hosts, userinfo, async ([octets, host], user) => {
        const url = `https://${user}${host}/hook`;
        expect(await ruleBroken(url), url).toBe(user === '' ? 'address_not_public' : 'no_credentials');
        if (user === '') expect(client.refusal(new URL(url)), `${url} (${octets.join('.')})`).toBeDefined();
      }),
      runs,
    );
  });

  it('refuses every loopback, link-local, unique-local, IPv4-mapped or IPv4-compatible IPv6 address, however it is written', async () => {
    await fc.assert(
      fc.asyncProperty(forbiddenV6.chain(v6SpellingOf), userinfo, async (host, user) => {
        const url = `https://${user}${host}/hook`;
        expect(await ruleBroken(url), url).toBe(user === '' ? 'address_not_public' : 'no_credentials');
        if (user === '') expect(client.refusal(new URL(url)), url).toBeDefined();
      }),
      runs,
    );
  });

  it('accepts a public IPv4 address in any of those spellings, as its dotted form, and only over https', async () => {
    const hosts = publicV4.chain((octets) => fc.tuple(fc.constant(octets), spellingOf(octets)));
    await fc.assert(
      fc.asyncProperty(hosts, async ([octets, host]) => {
        const url = `https://${host}/hook`;
        expect(await ruleBroken(url), url).toBeUndefined();
        const stored = new URL(await checkEndpointUrl(url, async () => []));
        const dotted = octets.join('.');
        expect([dotted, `[::ffff:${(octets[0] * 256 + octets[1]).toString(16)}:${(octets[2] * 256 + octets[3]).toString(16)}]`]).toContain(
          stored.hostname,
        );
        expect(client.refusal(stored)).toBeUndefined();
        expect(await ruleBroken(`http://${host}/hook`)).toBe('https_only');
      }),
      runs,
    );
  });

  it('refuses a public name that resolves to any forbidden address among public ones, and every http URL', async () => {
    await fc.assert(
      fc.asyncProperty(forbiddenV4, publicV4, fc.domain(), async (octets, other, name) => {
        const addresses = [other.join('.'), octets.join('.')];
        expect(await ruleBroken(`https://${name}/hook`, async () => addresses)).toBe('resolves_to_non_public_address');
        expect(await ruleBroken(`https://${name}/hook`, async () => [other.join('.')])).toBeUndefined();
        expect(await ruleBroken(`http://${name}/hook`, async () => [other.join('.')])).toBe('https_only');
      }),
      runs,
    );
  });
});

describe('properties of the retry schedule', () => {
  it('schedules each retry within 10 % of its step, lets Retry-After only lengthen it up to the cap, and stops after the last attempt', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: RETRY_DELAYS_SECONDS.length + 3 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.option(fc.oneof(fc.integer({ min: 0, max: 10 ** 7 }), fc.double({ min: 0, max: 10 ** 6, noNaN: true })), { nil: undefined }),
        (attempt, random, retryAfter) => {
          const policy = { delaysSeconds: RETRY_DELAYS_SECONDS, random: () => random };
          const delay = nextRetryDelaySeconds(attempt, policy, retryAfter);
          const step = RETRY_DELAYS_SECONDS[attempt - 1];
          if (step === undefined) {
            expect(delay).toBeUndefined();
            return;
          }
          const jittered = nextRetryDelaySeconds(attempt, policy) as number;
          expect(Number.isInteger(jittered)).toBe(true);
          expect(jittered).toBeGreaterThanOrEqual(Math.floor(step * 0.9));
          expect(jittered).toBeLessThanOrEqual(Math.ceil(step * 1.1));
          expect(delay).toBeGreaterThanOrEqual(Math.min(jittered, MAX_RETRY_DELAY_SECONDS));
          expect(delay).toBeLessThanOrEqual(MAX_RETRY_DELAY_SECONDS);
          // Honoured whole: never a retry sooner than the receiver asked, unless the cap forbids it.
          if (retryAfter !== undefined) expect(delay).toBeGreaterThanOrEqual(Math.min(retryAfter, MAX_RETRY_DELAY_SECONDS));
          expect(delay).toBe(Math.min(MAX_RETRY_DELAY_SECONDS, Math.max(jittered, Math.ceil(retryAfter ?? 0))));
        },
      ),
      runs,
    );
  });
});

/** Verifies as a receiver would at `at`: the reference checks the timestamp against its own clock. */
function verifyAt(verifier: Webhook, at: Date, payload: string, headers: Record<string, string>): void {
  const now = Date.now;
  Date.now = () => at.getTime();
  try {
    verifier.verify(payload, headers, { jsonParse: false });
  } finally {
    Date.now = now;
  }
}

/** The same text with the character at `position` (wrapped) replaced by another. */
const alter = (text: string, position: number): string => {
  const index = position % text.length;
  return `${text.slice(0, index)}${text[index] === 'x' ? 'y' : 'x'}${text.slice(index + 1)}`;
};

describe('properties of signatures', () => {
  it('signs so that the Standard Webhooks reference verifies any body, id and time, with either secret during a rotation, and nothing altered', () => {
    const [older, newer, expired] = [generateSigningSecret(), generateSigningSecret(), generateSigningSecret()];
    fc.assert(
      fc.property(
        fc.oneof(fc.json({ maxDepth: 3 }), fc.string({ unit: 'binary' })),
        fc.oneof(fc.stringMatching(/^msg_[A-Za-z0-9_-]{27}$/), fc.string({ unit: 'grapheme-ascii', minLength: 1 })),
        fc.integer({ min: 1_600_000_000, max: 2_100_000_000 }),
        fc.nat(),
        (body, id, seconds, position) => {
          const at = new Date(seconds * 1000);
          const headers = signedHeaders(
            [
              { secret: expired as string, createdAt: new Date(at.getTime() - 86_400_000).toISOString(), expiresAt: at.toISOString() },
              {
                secret: older as string,
                createdAt: new Date(at.getTime() - 3_600_000).toISOString(),
                expiresAt: new Date(at.getTime() + 1000).toISOString(),
              },
              { secret: newer as string, createdAt: at.toISOString() },
            ],
            id,
            at,
            body,
          );
          expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
          expect(() => verifyAt(new Webhook(expired as string), at, body, { ...headers })).toThrow(WebhookVerificationError);
          for (const secret of [older, newer] as string[]) {
            const verifier = new Webhook(secret);
            expect(() => verifyAt(verifier, at, body, { ...headers })).not.toThrow();
            if (body.length > 0)
              expect(() => verifyAt(verifier, at, alter(body, position), { ...headers })).toThrow(WebhookVerificationError);
            expect(() => verifyAt(verifier, at, body, { ...headers, 'webhook-id': alter(id, position) })).toThrow(WebhookVerificationError);
            const later = { ...headers, 'webhook-timestamp': String(seconds + 1 + (position % 60)) };
            expect(() => verifyAt(verifier, at, body, later)).toThrow(WebhookVerificationError);
          }
        },
      ),
      { ...runs, numRuns: 150 },
    );
  });

  it('gives a different signature for a different key, id, time or body', () => {
    const key = Buffer.from('k'.repeat(32));
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        fc.string({ unit: 'binary' }),
        fc.nat(),
        (id, time, body, position) => {
          const signature = sign(key, id, time, body);
          expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
          expect(sign(key, id, time, body)).toBe(signature);
          expect(sign(Buffer.from('K'.repeat(32)), id, time, body)).not.toBe(signature);
          expect(sign(key, alter(id, position), time, body)).not.toBe(signature);
          expect(sign(key, id, time + 1, body)).not.toBe(signature);
          expect(sign(key, id, time, `${body} `)).not.toBe(signature);
        },
      ),
      runs,
    );
  });
});

/** Subscription ids as generateSubscriptionId makes them. */
const subscriptionId = fc.stringMatching(/^wh_[A-Za-z0-9_-]{16}$/);
/** Event keys of any text, line breaks included: none may make two pairs share an id. */
const eventKey = fc.string({ unit: 'binary', minLength: 1 });

describe('properties of delivery ids', () => {
  it('names each delivery after its event and subscription: the same every time, in the webhook-id shape', () => {
    fc.assert(
      fc.property(eventKey, subscriptionId, (event, subscription) => {
        const id = deliveryIdOf(event, subscription);
        expect(id).toMatch(DELIVERY_ID);
        expect(id).toMatch(/^msg_[A-Za-z0-9_-]{27}$/);
        expect(deliveryIdOf(event, subscription)).toBe(id);
      }),
      runs,
    );
  });

  it('gives every other (event, subscription) pair another id, even one whose text runs across the boundary', () => {
    const pairs = fc.tuple(eventKey, subscriptionId).chain(([event, subscription]) =>
      fc.tuple(
        fc.constant([event, subscription] as const),
        fc.oneof(
          fc.tuple(eventKey, fc.constant(subscription)),
          fc.tuple(fc.constant(event), subscriptionId),
          fc.tuple(eventKey, subscriptionId),
          // The same characters split elsewhere: part of the key moved into the subscription, or back.
          fc.constant([`${event}\n${subscription.slice(0, 3)}`, subscription.slice(3)] as const),
          fc.constant([event.slice(0, -1), `${event.slice(-1)}${subscription}`] as const),
        ),
      ),
    );
    fc.assert(
      fc.property(pairs, ([[event, subscription], [otherEvent, otherSubscription]]) => {
        fc.pre(event !== otherEvent || subscription !== otherSubscription);
        expect(deliveryIdOf(otherEvent, otherSubscription)).not.toBe(deliveryIdOf(event, subscription));
      }),
      runs,
    );
  });
});
