import type { AccountsSplitOutcome } from '../../shared/accounts/import/accounts-split';
import { type AccountsSummaryDigest, writeAccountsSummary } from '../../shared/accounts/import/accounts-summary';
import { logger } from '../../shared/observability/logger';
import { observed } from '../../shared/observability/middleware';
import type { MapRunResults } from '../../shared/register/import/import-summary';
import { uploadsBucket } from '../uploads-bucket';

interface SummaryEvent {
  readonly key: string;
  readonly split: AccountsSplitOutcome;
  readonly items: MapRunResults;
}

/** The accounts import's summary: the items added up into summary.json beside the archive; a failed item fails the execution after it, which its alarm watches. */
const objects = uploadsBucket();

export const handler = observed<SummaryEvent, AccountsSummaryDigest>(async (event) => {
  const { digest, summary } = await writeAccountsSummary(objects, event);
  logger.info('accounts import summarized', {
    archive: summary.archive,
    filingsRead: summary.filingsRead,
    companiesUpdated: summary.companiesUpdated,
    unchanged: summary.unchanged,
    notHeld: summary.notHeld,
    rejected: summary.rejected,
    entriesNotRead: summary.entriesNotRead,
    failedItems: summary.failedItems.map((item) => item.first),
  });
  return digest;
});
