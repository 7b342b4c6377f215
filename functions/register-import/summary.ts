import { logger } from '../../shared/observability/logger';
import { BusinessMetric, count } from '../../shared/observability/metrics';
import { observed } from '../../shared/observability/middleware';
import { type MapRunResults, type SummaryDigest, type SweepResult, writeImportSummary } from '../../shared/register/import/import-summary';
import type { SplitOutcome } from '../../shared/register/import/split-upload';
import type { SnapshotCoverage } from '../../shared/register/import/sweep-guard';
import { uploadsBucket } from '../uploads-bucket';

interface SummaryEvent {
  readonly key: string;
  readonly asOf: string;
  readonly split: SplitOutcome;
  readonly batches: MapRunResults;
  readonly sweep?: readonly SweepResult[];
  /** Each scan segment's count of what the snapshot covers, once counted. */
  readonly coverage?: readonly SnapshotCoverage[];
  /** The jurisdiction an operator named in the execution's input to sweep whatever the coverage. */
  readonly forceSweep?: string;
}

/**
 * The register import's summary: the batches added up into summary.json; failed batches counted for
 * their alarm; once the snapshot's coverage is counted, the sweep guard's decision, and a refusal counted.
 */
const objects = uploadsBucket();

export const handler = observed<SummaryEvent, SummaryDigest>(async (event) => {
  const { digest, summary } = await writeImportSummary(objects, { uploadKey: event.key, ...event });
  count(BusinessMetric.registerImportFailedBatches, digest.failedBatches);
  // Counted where the guard decides, once per import: a later summary (after a forced sweep) does not count it again.
  if (summary.sweepGuard && !summary.sweepGuard.allowed && !event.sweep) {
    count(BusinessMetric.sweepRefused);
    logger.warn('register import sweep refused', { upload: event.key, reason: summary.sweepGuard.refusedBecause });
  }
  logger.info('register import summarized', {
    upload: event.key,
    read: summary.read,
    created: summary.created,
    updated: summary.updated,
    unchanged: summary.unchanged,
    rejected: summary.rejected,
    failedBatches: summary.failedBatches.map((batch) => batch.key),
  });
  return digest;
});
