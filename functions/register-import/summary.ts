import { logger } from '../../shared/observability/logger';
import { BusinessMetric, count } from '../../shared/observability/metrics';
import { observed } from '../../shared/observability/middleware';
import { type MapRunResults, type SummaryDigest, type SweepResult, writeImportSummary } from '../../shared/register/import/import-summary';
import type { SplitOutcome } from '../../shared/register/import/split-upload';
import { uploadsBucket } from '../uploads-bucket';

interface SummaryEvent {
  readonly key: string;
  readonly asOf: string;
  readonly split: SplitOutcome;
  readonly batches: MapRunResults;
  readonly sweep?: readonly SweepResult[];
}

/** Last step of a register import: the batches added up into summary.json; failed batches counted for their alarm. */
const objects = uploadsBucket();

export const handler = observed<SummaryEvent, SummaryDigest>(async (event) => {
  const { digest, summary } = await writeImportSummary(objects, { uploadKey: event.key, ...event });
  count(BusinessMetric.registerImportFailedBatches, digest.failedBatches);
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
