import type { DynamoDBRecord } from 'aws-lambda';
import { logger } from '../observability/logger';
import { BusinessMetric, count } from '../observability/metrics';
import type { ChangeDetector } from './change-detector';
import { profileChangeOf } from './profile-stream-record';

/**
 * One companies stream record through the detector, counted and logged: the change detector's step
 * for each record, and the stream replayer's for each record it reads back. Returns the events queued.
 */
export async function detectRecord(detector: ChangeDetector, record: DynamoDBRecord): Promise<number> {
  const change = profileChangeOf(record);
  if (!change) return 0;
  const events = await detector.detect(change);
  count(BusinessMetric.changeEventsDetected, events.length);
  if (events.length > 0) {
    logger.info('change events queued for fan-out', {
      company: `${change.after.jurisdiction}:${change.after.companyNumber}`,
      version: change.after.version,
      events: events.map((event) => event.idempotencyKey),
    });
  }
  return events.length;
}
