import type { CompanyStore } from '../companies/company-store';
import type { Jurisdiction } from '../companies/profile';
import type { ClientEvent } from '../events/client-events';
import type { EventRowView } from './wire';

interface EventPageBody {
  readonly items: readonly ClientEvent[];
  readonly nextCursor: string | null;
}

/**
 * A page of GET /v1/events as the workspace shows it: each event with its company's name. The
 * envelope names a company by number only, so the page's companies are read in one batch, never
 * more than the page holds (at most the API's page limit).
 */
export async function eventRows(
  page: unknown,
  companies: Pick<CompanyStore, 'getMany'>,
): Promise<{ items: EventRowView[]; nextCursor: string | null }> {
  const { items, nextCursor } = page as EventPageBody;
  const keys = items.flatMap(({ data: { jurisdiction, companyNumber } }) =>
    jurisdiction && companyNumber ? [{ jurisdiction: jurisdiction as Jurisdiction, companyNumber }] : [],
  );
  const profiles = keys.length > 0 ? await companies.getMany(keys) : new Map();
  return {
    items: items.map((event) => ({
      ...event,
      companyName: profiles.get(`${event.data.jurisdiction}#${event.data.companyNumber}`)?.name ?? null,
    })),
    nextCursor,
  };
}
