import { parseCompanyNumber } from '../companies/numbers';
import { BLOCK_NAMES, type BlockName, JURISDICTIONS, type Jurisdiction } from '../companies/profile';
import { PROFILE_EVENT_TYPES, type ProfileEventType, type WebhookEnvelope } from '../events/envelope';

/** Which events a subscription receives; an absent list means every value. */
export interface SubscriptionFilters {
  readonly eventTypes?: readonly ProfileEventType[];
  readonly blocks?: readonly BlockName[];
  readonly jurisdictions?: readonly Jurisdiction[];
  /** `GB:01234567` or `IE:123456`, as profile lookups normalise the number. */
  readonly companies?: readonly string[];
}

/** Enough for a portfolio watched closely; a longer list is what watching (fetching) is for. */
export const MAX_FILTERED_COMPANIES = 100;

export class InvalidFiltersError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidFiltersError';
  }
}

const FIELDS = ['eventTypes', 'blocks', 'jurisdictions', 'companies'] as const;

function listOf(filters: Record<string, unknown>, field: (typeof FIELDS)[number]): string[] | undefined {
  const value = filters[field];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.some((item) => typeof item !== 'string')) {
    throw new InvalidFiltersError(`filters.${field} must be a non-empty list of text values, or left out for all.`);
  }
  return [...new Set(value as string[])];
}

function known<T extends string>(field: string, values: string[] | undefined, allowed: readonly T[]): T[] | undefined {
  if (!values) return undefined;
  const unknown = values.filter((value) => !(allowed as readonly string[]).includes(value));
  if (unknown.length > 0) {
    throw new InvalidFiltersError(
      `filters.${field} has values it does not know: ${unknown
        .slice(0, 5)
        .map((value) => JSON.stringify(value.slice(0, 40)))
        .join(', ')}. It takes ${allowed.join(', ')}.`,
    );
  }
  return values as T[];
}

function companyKey(text: string): string {
  const match = /^(GB|IE):(.{1,20})$/i.exec(text.trim());
  if (!match)
    throw new InvalidFiltersError(
      `filters.companies: ${JSON.stringify(text.slice(0, 40))} is not JURISDICTION:NUMBER, such as GB:01234567.`,
    );
  const jurisdiction = (match[1] as string).toUpperCase() as Jurisdiction;
  try {
    return `${jurisdiction}:${parseCompanyNumber(match[2] as string, jurisdiction).companyNumber}`;
  } catch {
    throw new InvalidFiltersError(`filters.companies: ${JSON.stringify(text.slice(0, 40))} is not a valid ${jurisdiction} company number.`);
  }
}

/** A client's filters, checked and normalised; null (or an empty object) means none. */
export function filtersOf(value: unknown): SubscriptionFilters | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw new InvalidFiltersError('filters must be an object, or null for none.');
  const body = value as Record<string, unknown>;
  const unexpected = Object.keys(body).filter((key) => !(FIELDS as readonly string[]).includes(key));
  if (unexpected.length > 0) {
    throw new InvalidFiltersError(
      `filters has fields it does not take: ${unexpected.slice(0, 5).join(', ')}. It takes ${FIELDS.join(', ')}.`,
    );
  }
  const eventTypes = known('eventTypes', listOf(body, 'eventTypes'), PROFILE_EVENT_TYPES);
  const blocks = known('blocks', listOf(body, 'blocks'), BLOCK_NAMES);
  const jurisdictions = known('jurisdictions', listOf(body, 'jurisdictions'), JURISDICTIONS);
  // Counted once normalised: gb:1234567 and GB:01234567 are one company. The body's size bounds the work before.
  const companyTexts = listOf(body, 'companies');
  const companies = companyTexts ? [...new Set(companyTexts.map(companyKey))] : undefined;
  if (companies && companies.length > MAX_FILTERED_COMPANIES) {
    throw new InvalidFiltersError(`filters.companies names ${companies.length} companies; at most ${MAX_FILTERED_COMPANIES}.`);
  }
  const filters: SubscriptionFilters = {
    ...(eventTypes ? { eventTypes } : {}),
    ...(blocks ? { blocks } : {}),
    ...(jurisdictions ? { jurisdictions } : {}),
    ...(companies ? { companies } : {}),
  };
  return Object.keys(filters).length === 0 ? null : filters;
}

/** Whether an event goes to a subscription with these filters. A test event names no company: it always does. */
export function matchesFilters(filters: SubscriptionFilters | undefined, event: WebhookEnvelope): boolean {
  if (!filters || event.data.jurisdiction === null) return true;
  const { jurisdiction, companyNumber } = event.data;
  if (filters.eventTypes && !(filters.eventTypes as readonly string[]).includes(event.type)) return false;
  if (filters.blocks && (event.block === null || !filters.blocks.includes(event.block))) return false;
  if (filters.jurisdictions && !filters.jurisdictions.includes(jurisdiction)) return false;
  if (filters.companies && !filters.companies.includes(`${jurisdiction}:${companyNumber}`)) return false;
  return true;
}
