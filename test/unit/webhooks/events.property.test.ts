import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CompanyProfile, EarlySignal } from '../../../shared/companies/profile';
import { CHANGE_TRACKED_BLOCKS, changeEvents, DELIVERY_ID, deliveryIdOf } from '../../../shared/webhooks/events';
import { profileContent } from '../../support/profile-fixture';
import { propertyRuns } from '../../support/property-runs';

const runs = propertyRuns(300, 20261125);

type Block = (typeof CHANGE_TRACKED_BLOCKS)[number];

/** One edit per tracked block, each changing its content and nothing else. */
const EDITS: Record<Block, (profile: CompanyProfile) => CompanyProfile> = {
  overview: (p) => ({ ...p, overview: { ...p.overview, registeredOffice: `${p.overview.registeredOffice}, Floor 2` } }),
  tradingStatus: (p) => ({ ...p, tradingStatus: { ...p.tradingStatus, registerStatus: `${p.tradingStatus.registerStatus} (amended)` } }),
  filingBehaviour: (p) => ({
    ...p,
    filingBehaviour: { ...p.filingBehaviour, lateFilingsLast5Years: p.filingBehaviour.lateFilingsLast5Years + 1 },
  }),
  riskOfFailure: (p) => ({ ...p, riskOfFailure: { ...p.riskOfFailure, score: p.riskOfFailure.score + 1 } }),
  creditCapacity: (p) => ({
    ...p,
    creditCapacity: {
      ...p.creditCapacity,
      creditLimit: { currency: 'GBP', amountMinor: (p.creditCapacity.creditLimit?.amountMinor ?? 0) + 1 },
    },
  }),
};

const signal = (id: string, state: EarlySignal['state']): EarlySignal => ({
  id,
  kind: 'charge_registered',
  state,
  severity: 'warning',
  summary: 'A charge over company assets was registered',
  detectedAt: '2026-04-01T00:00:00.000Z',
  updatedAt: '2026-04-01T00:00:00.000Z',
});

/**
 * A profile write: some tracked blocks edited, some signals new, some known ones moved to another
 * state, and the version moved on; with the number of events it must make, counted independently.
 */
const profileWrite = fc
  .record({
    jurisdiction: fc.constantFrom('GB' as const, 'IE' as const),
    number: fc.integer({ min: 0, max: 99_999_999 }).map((value) => String(value).padStart(8, '0')),
    version: fc.integer({ min: 1, max: 10_000 }),
    edited: fc.subarray([...CHANGE_TRACKED_BLOCKS]),
    known: fc.uniqueArray(
      fc.nat().map((value) => `sig-${value.toString(36)}`),
      { maxLength: 4 },
    ),
    added: fc.uniqueArray(
      fc.nat().map((value) => `new-${value.toString(36)}`),
      { maxLength: 3 },
    ),
    moves: fc.array(fc.constantFrom<EarlySignal['state']>('active', 'superseded', 'expired'), { minLength: 4, maxLength: 4 }),
  })
  .map(({ jurisdiction, number, version, edited, known, added, moves }) => {
    const base = profileContent({ jurisdiction, companyNumber: number, name: `Company ${number} Ltd` });
    const before: CompanyProfile = {
      ...base,
      earlySignals: { signals: known.map((id) => signal(id, 'active')) },
      version,
      updatedAt: '2026-05-01T08:00:00.000Z',
    };
    let after: CompanyProfile = { ...before, version: version + 1, updatedAt: '2026-05-04T10:00:00.000Z' };
    for (const block of edited) after = EDITS[block](after);
    const moved = known.map((id, index) => signal(id, moves[index] as EarlySignal['state']));
    after = { ...after, earlySignals: { signals: [...moved, ...added.map((id) => signal(id, 'active'))] } };
    const updates = moved.filter((each) => each.state !== 'active').length;
    return { before, after, expected: edited.length + added.length + updates };
  });

/** The same content with every object's keys in reverse order, as DynamoDB may hand a map back. */
const reversedKeys = <T>(value: T): T => {
  if (Array.isArray(value)) return value.map(reversedKeys) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([key, member]) => [key, reversedKeys(member)]),
    ) as T;
  }
  return value;
};

/** As generateSubscriptionId makes them. */
const subscriptionId = fc.uint8Array({ minLength: 12, maxLength: 12 }).map((bytes) => `wh_${Buffer.from(bytes).toString('base64url')}`);

describe('idempotency keys and delivery ids, for any change and subscription', () => {
  it('give one event per change with a key of its own, the same however often and in whatever key order the images are read', () => {
    fc.assert(
      fc.property(profileWrite, ({ before, after, expected }) => {
        const events = changeEvents(before, after);
        expect(events).toHaveLength(expected);
        expect(new Set(events.map((event) => event.idempotencyKey)).size).toBe(events.length);
        expect(changeEvents(before, after)).toEqual(events);
        expect(changeEvents(reversedKeys(before), reversedKeys(after))).toEqual(events);
        expect(changeEvents(after, after)).toEqual([]);
      }),
      runs,
    );
  });

  it('never reuse a key for a later version of the same block, nor for another company', () => {
    fc.assert(
      fc.property(profileWrite, profileWrite, (first, second) => {
        const keys = (write: typeof first) =>
          changeEvents(write.before, write.after)
            .filter((event) => event.type === 'profile.changed')
            .map((event) => event.idempotencyKey);
        const sameBlockSameVersion =
          first.after.jurisdiction === second.after.jurisdiction &&
          first.after.companyNumber === second.after.companyNumber &&
          first.after.version === second.after.version;
        fc.pre(!sameBlockSameVersion);
        const shared = keys(first).filter((key) => keys(second).includes(key));
        expect(shared).toEqual([]);
      }),
      runs,
    );
  });

  it('name each delivery after its event and subscription: always the same, in the webhook-id shape, and different for any other pair', () => {
    const key = fc.oneof(
      profileWrite.map(({ before, after }) => changeEvents(before, after).map((event) => event.idempotencyKey)),
      fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { minLength: 1, maxLength: 3 }),
    );
    fc.assert(
      fc.property(
        key.filter((keys) => keys.length > 0),
        fc.uniqueArray(subscriptionId, { minLength: 1, maxLength: 4 }),
        (keys, subscriptions) => {
          const pairs = [...new Set(keys)].flatMap((event) => subscriptions.map((subscription) => [event, subscription] as const));
          const ids = pairs.map(([event, subscription]) => deliveryIdOf(event, subscription));
          for (const deliveryId of ids) expect(deliveryId).toMatch(DELIVERY_ID);
          expect(new Set(ids).size).toBe(pairs.length);
          expect(pairs.map(([event, subscription]) => deliveryIdOf(event, subscription))).toEqual(ids);
        },
      ),
      runs,
    );
  });

  it('give another id to a pair whose text runs across the boundary: part of the event key moved into the subscription id, or back', () => {
    /** Event keys of any text, line breaks included: none may make two pairs share an id. */
    const eventKey = fc.string({ unit: 'binary', minLength: 1 });
    const shifted = fc
      .tuple(eventKey, subscriptionId)
      .chain(([event, subscription]) =>
        fc.tuple(
          fc.constant([event, subscription] as const),
          fc.constantFrom(
            [`${event}\n${subscription.slice(0, 3)}`, subscription.slice(3)] as const,
            [`${event}${subscription.slice(0, 3)}`, subscription.slice(3)] as const,
            [event.slice(0, -1), `${event.slice(-1)}${subscription}`] as const,
            [event.slice(0, -1), `${event.slice(-1)}\n${subscription}`] as const,
          ),
        ),
      );
    fc.assert(
      fc.property(shifted, ([[event, subscription], [otherEvent, otherSubscription]]) => {
        fc.pre(event !== otherEvent || subscription !== otherSubscription);
        expect(deliveryIdOf(otherEvent, otherSubscription)).not.toBe(deliveryIdOf(event, subscription));
      }),
      runs,
    );
  });
});
