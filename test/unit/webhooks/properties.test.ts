import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { checkEndpointUrl, EndpointUrlError } from '../../../shared/webhooks/endpoint-url';
import { DELIVERY_ID, deliveryIdOf } from '../../../shared/webhooks/events';
import { MAX_RETRY_DELAY_SECONDS, nextRetryDelaySeconds, RETRY_DELAYS_SECONDS } from '../../../shared/webhooks/retry-schedule';
import { signedHeaders } from '../../../shared/webhooks/signature';
import { generateSigningSecret } from '../../../shared/webhooks/subscription';

/** Seeded: a failure names its seed and replays the same way. */
const runs = { seed: 20261125, numRuns: 300 } as const;

/** IPv4 addresses no webhook may reach: private, loopback, link-local (metadata), CGNAT, this network, broadcast. */
const forbiddenV4 = fc.oneof(
  fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(0), fc.nat(255), fc.nat(255), fc.nat(255)),
  fc.constant([255, 255, 255, 255] as [number, number, number, number]),
);

/** The same address as a URL host may spell it: dotted, one decimal number, hex, octal, IPv4-mapped IPv6, a trailing dot. */
const spellings = (octets: readonly number[]): string[] => {
  const value = octets.reduce((sum, octet) => sum * 256 + octet, 0);
  const dotted = octets.join('.');
  return [
    dotted,
    `${dotted}.`,
    String(value),
    `0x${value.toString(16)}`,
    octets.map((octet) => `0${octet.toString(8)}`).join('.'),
    `[::ffff:${dotted}]`,
    `[::ffff:${((octets[0] as number) * 256 + (octets[1] as number)).toString(16)}:${((octets[2] as number) * 256 + (octets[3] as number)).toString(16)}]`,
  ];
};

const refused = async (url: string, resolve: (host: string) => Promise<string[]> = async () => []) => {
  try {
    await checkEndpointUrl(url, resolve);
    return false;
  } catch (error) {
    if (error instanceof EndpointUrlError) return true;
    throw error;
  }
};

describe('properties of webhook delivery', () => {
  it('refuses every private, loopback, link-local or reserved IPv4 address, however the host spells it, with or without userinfo', async () => {
    await fc.assert(
      fc.asyncProperty(forbiddenV4, fc.constantFrom('', 'user:pass@', 'hooks.example.com@'), async (octets, userinfo) => {
        for (const host of spellings(octets)) expect(await refused(`https://${userinfo}${host}/hook`), host).toBe(true);
      }),
      runs,
    );
  });

  it('refuses a public name that resolves to any such address, and every http URL', async () => {
    await fc.assert(
      fc.asyncProperty(forbiddenV4, fc.domain(), async (octets, name) => {
        expect(await refused(`https://${name}/hook`, async () => ['93.184.215.14', octets.join('.')])).toBe(true);
        expect(await refused(`http://${name}/hook`, async () => ['93.184.215.14'])).toBe(true);
      }),
      runs,
    );
  });

  it('schedules each retry within 10 % of its step, lets Retry-After only lengthen it up to the cap, and stops after the last attempt', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: RETRY_DELAYS_SECONDS.length + 3 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.option(fc.integer({ min: 0, max: 10 ** 7 }), { nil: undefined }),
        (attempt, random, retryAfter) => {
          const delay = nextRetryDelaySeconds(attempt, { delaysSeconds: RETRY_DELAYS_SECONDS, random: () => random }, retryAfter);
          const step = RETRY_DELAYS_SECONDS[attempt - 1];
          if (step === undefined) {
            expect(delay).toBeUndefined();
            return;
          }
          const jittered = nextRetryDelaySeconds(attempt, { delaysSeconds: RETRY_DELAYS_SECONDS, random: () => random }) as number;
          expect(jittered).toBeGreaterThanOrEqual(Math.floor(step * 0.9));
          expect(jittered).toBeLessThanOrEqual(Math.ceil(step * 1.1));
          expect(delay).toBe(Math.min(MAX_RETRY_DELAY_SECONDS, Math.max(jittered, retryAfter ?? 0)));
        },
      ),
      runs,
    );
  });

  it('signs so that the Standard Webhooks reference verifies any body, id and time, with either secret during a rotation, and no altered byte', () => {
    const secrets = [generateSigningSecret(), generateSigningSecret()];
    fc.assert(
      fc.property(
        // The reference parses what it verifies: bodies are JSON, as every delivery's is.
        fc.json({ maxDepth: 3 }),
        fc.stringMatching(/^msg_[A-Za-z0-9_-]{27}$/),
        fc.integer({ min: 1_600_000_000, max: 2_100_000_000 }),
        fc.nat(),
        (body, id, seconds, position) => {
          const at = new Date(seconds * 1000);
          const headers = signedHeaders(
            secrets.map((secret) => ({ secret, createdAt: at.toISOString() })),
            id,
            at,
            body,
          );
          for (const secret of secrets) {
            const verifier = new Webhook(secret);
            // The reference checks the timestamp against its clock: verify at the signing time.
            const verify = (payload: string) => {
              const now = Date.now;
              Date.now = () => at.getTime();
              try {
                return verifier.verify(payload, headers);
              } finally {
                Date.now = now;
              }
            };
            expect(() => verify(body)).not.toThrow();
            if (body.length > 0) {
              const index = position % body.length;
              const altered = `${body.slice(0, index)}${body[index] === 'x' ? 'y' : 'x'}${body.slice(index + 1)}`;
              expect(() => verify(altered)).toThrow();
            }
          }
        },
      ),
      { ...runs, numRuns: 150 },
    );
  });

  it('names each delivery after its event and subscription: the same every time, different for any other pair, in the webhook-id shape', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (event, subscription, other) => {
        const id = deliveryIdOf(event, subscription);
        expect(id).toMatch(DELIVERY_ID);
        expect(deliveryIdOf(event, subscription)).toBe(id);
        if (other !== subscription) expect(deliveryIdOf(event, other)).not.toBe(id);
        if (other !== event) expect(deliveryIdOf(other, subscription)).not.toBe(id);
      }),
      runs,
    );
  });
});
