import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_RETRY_DELAY_SECONDS,
  nextRetryDelaySeconds,
  RETRY_DELAYS_SECONDS,
  retryAfterSeconds,
  retryDelaysFrom,
} from '../../../shared/webhooks/retry-schedule';
import { propertyRuns } from '../../support/property-runs';

const runs = propertyRuns(1000, 20261125);

/** The default schedule, or any a DELIVERY_RETRY_DELAYS could set. */
const schedule = fc.oneof(
  fc.constant(RETRY_DELAYS_SECONDS),
  fc.array(fc.integer({ min: 0, max: MAX_RETRY_DELAY_SECONDS }), { minLength: 1, maxLength: 15 }),
);
const random = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
/** What a receiver's Retry-After can come to: whole or fractional seconds, huge, or nonsense the parser let through. */
const asked = fc.option(
  fc.oneof(
    fc.integer({ min: 0, max: 10 ** 7 }),
    fc.double({ min: 0, max: 10 ** 6, noNaN: true }),
    fc.constantFrom(Number.POSITIVE_INFINITY, Number.NaN),
  ),
  { nil: undefined },
);

describe('the retry schedule, for any schedule, attempt, draw and Retry-After', () => {
  it('waits within ±10 % of the step, never less than the step allows when Retry-After asks for less, longer when it asks for more, capped at 12 h, and gives up after the last step', () => {
    fc.assert(
      fc.property(
        schedule.chain((delays) => fc.tuple(fc.constant(delays), fc.integer({ min: 1, max: delays.length + 3 }))),
        random,
        asked,
        ([delays, attempt], draw, retryAfter) => {
          const delay = nextRetryDelaySeconds(attempt, { delaysSeconds: delays, random: () => draw }, retryAfter);
          const step = delays[attempt - 1];
          if (step === undefined) {
            expect(delay).toBeUndefined();
            return;
          }
          expect(Number.isInteger(delay)).toBe(true);
          const wait = delay as number;
          // Jitter rounds to whole seconds: half a second of slack either side.
          const floor = step * 0.9 - 0.5;
          const ceiling = step * 1.1 + 0.5;
          expect(wait).toBeLessThanOrEqual(MAX_RETRY_DELAY_SECONDS);
          expect(wait).toBeGreaterThanOrEqual(floor);
          const honoured = retryAfter !== undefined && Number.isFinite(retryAfter);
          if (!honoured || retryAfter <= floor) expect(wait).toBeLessThanOrEqual(ceiling);
          if (honoured) expect(wait).toBeGreaterThanOrEqual(Math.min(MAX_RETRY_DELAY_SECONDS, retryAfter));
          if (honoured && retryAfter > ceiling) expect(wait).toBe(Math.min(MAX_RETRY_DELAY_SECONDS, Math.ceil(retryAfter)));
          // Retry-After only lengthens the wait the same draw gives without it, to exactly what it asks (whole seconds), up to the cap.
          const jittered = nextRetryDelaySeconds(attempt, { delaysSeconds: delays, random: () => draw }) as number;
          expect(wait).toBe(honoured ? Math.min(MAX_RETRY_DELAY_SECONDS, Math.max(jittered, Math.ceil(retryAfter))) : jittered);
        },
      ),
      runs,
    );
  });

  it('spreads the jitter over the whole band: the lowest draw waits 10 % less, the highest 10 % more (up to the cap), and a higher draw never waits less', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_RETRY_DELAY_SECONDS }), random, random, (step, first, second) => {
        const wait = (draw: number) => nextRetryDelaySeconds(1, { delaysSeconds: [step], random: () => draw }) as number;
        expect(wait(0)).toBe(Math.round(step * 0.9));
        expect(Math.abs(wait(1 - Number.EPSILON) - Math.min(MAX_RETRY_DELAY_SECONDS, step * 1.1))).toBeLessThanOrEqual(0.5 + 1e-9);
        expect(wait(Math.max(first, second))).toBeGreaterThanOrEqual(wait(Math.min(first, second)));
      }),
      runs,
    );
  });

  it('reads DELIVERY_RETRY_DELAYS back exactly when it lists 11 whole seconds within the cap, and refuses anything else', () => {
    const spacing = fc.constantFrom('', ' ', '  ');
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: MAX_RETRY_DELAY_SECONDS }), { minLength: 11, maxLength: 11 }),
        spacing,
        (delays, space) => {
          expect(retryDelaysFrom({ DELIVERY_RETRY_DELAYS: delays.join(`${space},${space}`) })).toEqual(delays);
        },
      ),
      runs,
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(fc.integer({ min: 0, max: MAX_RETRY_DELAY_SECONDS }), { maxLength: 20 }).filter((delays) => delays.length !== 11),
          fc
            .tuple(
              fc.array(fc.integer({ min: 0, max: MAX_RETRY_DELAY_SECONDS }), { minLength: 10, maxLength: 10 }),
              fc.oneof(
                fc.integer({ min: MAX_RETRY_DELAY_SECONDS + 1 }),
                fc.integer({ max: -1 }),
                fc.double({ noInteger: true, noNaN: true }),
              ),
              fc.nat(10),
            )
            .map(([good, bad, at]) => [...good.slice(0, at), bad, ...good.slice(at)]),
        ),
        (delays) => {
          fc.pre(delays.length > 0);
          expect(() => retryDelaysFrom({ DELIVERY_RETRY_DELAYS: delays.join(',') })).toThrow(/DELIVERY_RETRY_DELAYS/);
        },
      ),
      runs,
    );
  });

  it('reads Retry-After as seconds or as an HTTP date, a date past as no wait', () => {
    const now = new Date('2026-11-25T12:00:00.000Z');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 0, max: 999_999_999 }).map((seconds) => ({ header: ` ${seconds} `, seconds })),
          fc
            .integer({ min: -10_000_000, max: 10_000_000 })
            .map((seconds) => ({ header: new Date(now.getTime() + seconds * 1000).toUTCString(), seconds: Math.max(0, seconds) })),
        ),
        ({ header, seconds }) => {
          expect(retryAfterSeconds(header, now)).toBe(seconds);
        },
      ),
      runs,
    );
  });
});
