import type { CompanyStore } from '../companies/company-store';
import type { DeliveryAttemptView, DeliveryRowView } from '../webhooks/wire';

interface AttemptPageBody {
  readonly items: readonly DeliveryAttemptView[];
  readonly nextCursor: string | null;
}

/**
 * A page of GET /v1/webhooks/{id}/deliveries as the workspace shows it: each attempt with its company's
 * name. The page's companies are read in one batch, never more than the page holds (at most the API's
 * page limit), so a page costs the same whatever the log's size.
 */
export async function deliveryRows(
  page: unknown,
  companies: Pick<CompanyStore, 'getMany'>,
): Promise<{ items: DeliveryRowView[]; nextCursor: string | null }> {
  const { items, nextCursor } = page as AttemptPageBody;
  const keys = items.flatMap(({ jurisdiction, companyNumber }) => (jurisdiction && companyNumber ? [{ jurisdiction, companyNumber }] : []));
  const profiles = keys.length > 0 ? await companies.getMany(keys) : new Map();
  return {
    items: items.map((attempt) => ({
      ...attempt,
      companyName: (attempt.companyNumber && profiles.get(`${attempt.jurisdiction}#${attempt.companyNumber}`)?.name) || null,
    })),
    nextCursor,
  };
}
