import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Jurisdiction } from '../../../shared/companies/profile';
import type { WebhookEnvelope } from '../../../shared/events/envelope';
import { deliveriesTable } from '../../../shared/storage/tables';
import { attemptStart } from '../../../shared/webhooks/delivery-attempt';
import { ATTEMPT_READ_BUDGET, type AttemptQuery, type DeliveryAttempt, type LogEntry } from '../../../shared/webhooks/delivery-log';
import { DynamoDeliveryLog } from '../../../shared/webhooks/dynamo-delivery-log';
import { deliveryIdOf, testEvent } from '../../../shared/webhooks/events';
import { presentMinuteMs } from '../../support/clock';
import { createTestTables, type TestTables } from '../../support/dynamo';

const SUBSCRIPTION = 'wh_LISTINGLISTINGLI';
const now = new Date(presentMinuteMs());
/** The i-th attempt written, i seconds before now: the higher i, the older. */
const secondsAgo = (i: number) => new Date(now.getTime() - i * 1000);

let tables: TestTables;
let log: DynamoDeliveryLog;

const envelopeOf = (jurisdiction: Jurisdiction, companyNumber: string, version: number): WebhookEnvelope => ({
  type: 'profile.changed',
  apiVersion: 'v1',
  occurredAt: now.toISOString(),
  idempotencyKey: `profile.changed:${jurisdiction}:${companyNumber}:riskOfFailure:v${version}`,
  block: 'riskOfFailure',
  data: { jurisdiction, companyNumber },
});

/** An attempt as the sender logs it, through the same start every attempt is built from. */
function entry(envelope: WebhookEnvelope, at: Date, outcome: DeliveryAttempt['outcome']): LogEntry {
  const deliveryId = deliveryIdOf(envelope.idempotencyKey, SUBSCRIPTION);
  const start = attemptStart({ deliveryId, clientId: 'cli_listing', subscriptionId: SUBSCRIPTION, envelope }, 1, at);
  const attempt: DeliveryAttempt = { ...start, outcome, durationMs: 40, ...(outcome === 'delivered' ? { httpStatus: 200 } : {}) };
  return {
    delivery: {
      deliveryId,
      clientId: 'cli_listing',
      subscriptionId: SUBSCRIPTION,
      envelope,
      status: outcome,
      attempts: 1,
      lastAttemptAt: attempt.attemptedAt,
    },
    attempt,
  };
}

/** Every page of a listing, following its cursors to the end. */
async function everyPage(query: Omit<AttemptQuery, 'cursor'>): Promise<Array<readonly DeliveryAttempt[]>> {
  const pages: Array<readonly DeliveryAttempt[]> = [];
  let cursor: string | undefined;
  do {
    const page = await log.attempts(SUBSCRIPTION, { ...query, ...(cursor === undefined ? {} : { cursor }) });
    pages.push(page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

const ABSENT = '00000002';
const BUSY = '00000001';
const BUSY_ATTEMPTS = ATTEMPT_READ_BUDGET + 100;

beforeAll(async () => {
  tables = await createTestTables([deliveriesTable]);
  log = new DynamoDeliveryLog(tables.doc, tables.names.deliveries as string, () => now);
  // Newest first: two attempts logged before the company was kept, then the busy company's, then three more of the first.
  for (const [i, version] of [
    [1, 1],
    [2, 2],
  ] as const) {
    const envelope = envelopeOf('GB', ABSENT, version);
    const { companyNumber: _n, jurisdiction: _j, block: _b, ...older } = entry(envelope, secondsAgo(i), 'failed').attempt;
    await tables.doc.send(
      new PutCommand({
        TableName: tables.names.deliveries,
        Item: { pk: `WEBHOOK#${SUBSCRIPTION}`, sk: `ATTEMPT#${older.attemptedAt}#${older.deliveryId}#000001`, ...older },
      }),
    );
  }
  const busy = Array.from({ length: BUSY_ATTEMPTS }, (_, i) => entry(envelopeOf('GB', BUSY, i + 1), secondsAgo(10 + i), 'delivered'));
  const rest = [3, 4, 5].map((version, i) => entry(envelopeOf('GB', ABSENT, version), secondsAgo(10 + BUSY_ATTEMPTS + i), 'failed'));
  const test = testEvent(SUBSCRIPTION, now, 'nonce');
  await log.recordMany([...busy, ...rest, entry(test, secondsAgo(5), 'dropped')]);
}, 60_000);

describe('the delivery log listing', () => {
  it("names each attempt's company and block, as logged or as an older attempt's key names them, and none for a test event", async () => {
    const page = await log.attempts(SUBSCRIPTION, { limit: 4 });

    expect(
      page.items.map(({ eventType, jurisdiction, companyNumber, block }) => ({ eventType, jurisdiction, companyNumber, block })),
    ).toEqual([
      { eventType: 'profile.changed', jurisdiction: 'GB', companyNumber: ABSENT, block: 'riskOfFailure' },
      { eventType: 'profile.changed', jurisdiction: 'GB', companyNumber: ABSENT, block: 'riskOfFailure' },
      { eventType: 'webhook.test', jurisdiction: undefined, companyNumber: undefined, block: undefined },
      { eventType: 'profile.changed', jurisdiction: 'GB', companyNumber: BUSY, block: 'riskOfFailure' },
    ]);
    expect(page.nextCursor).toBeDefined();
  });

  it(`finds a company's attempts, older ones by their key, reading at most ${ATTEMPT_READ_BUDGET} a page and going on where the budget ended`, async () => {
    const pages = await everyPage({ limit: 20, jurisdiction: 'GB', companyNumber: ABSENT });

    // The two newest, then the budget runs out among the busy company's attempts; the next page finds the rest.
    expect(pages.map((page) => page.length)).toEqual([2, 3]);
    expect(pages.flat().map((attempt) => attempt.idempotencyKey)).toEqual(
      [1, 2, 3, 4, 5].map((version) => `profile.changed:GB:${ABSENT}:riskOfFailure:v${version}`),
    );
  });

  it('keeps only the attempts with the outcome asked for', async () => {
    const failed = (await everyPage({ limit: 20, outcome: 'failed' })).flat();
    const dropped = (await everyPage({ limit: 20, outcome: 'dropped' })).flat();

    expect(failed.map((attempt) => attempt.companyNumber)).toEqual([ABSENT, ABSENT, ABSENT, ABSENT, ABSENT]);
    expect(dropped.map((attempt) => attempt.eventType)).toEqual(['webhook.test']);
  });

  it('pages a filter that matches more than a page holds without skipping or repeating an attempt, never past the limit', async () => {
    const filtered = await everyPage({ limit: 100, outcome: 'delivered', jurisdiction: 'GB', companyNumber: BUSY });
    const unfiltered = (await everyPage({ limit: 100 })).flat().filter((attempt) => attempt.companyNumber === BUSY);

    expect(Math.max(...filtered.map((page) => page.length))).toBeLessThanOrEqual(100);
    expect(filtered.flat().map((attempt) => attempt.attemptedAt)).toEqual(unfiltered.map((attempt) => attempt.attemptedAt));
    expect(filtered.flat()).toHaveLength(BUSY_ATTEMPTS);
  });

  it('finds nothing for a company it never delivered for, and nothing in the other jurisdiction', async () => {
    expect((await everyPage({ limit: 20, jurisdiction: 'GB', companyNumber: '00000009' })).flat()).toEqual([]);
    expect((await everyPage({ limit: 20, jurisdiction: 'IE', companyNumber: '1' })).flat()).toEqual([]);
    expect((await everyPage({ limit: 20, jurisdiction: 'IE' })).flat()).toEqual([]);
  });
});
