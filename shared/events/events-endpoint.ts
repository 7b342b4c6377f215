import { type ProtectedHandler, type ProtectionDeps, protectedRoute } from '../auth/protect';
import { BLOCK_NAMES, type BlockName } from '../companies/profile';
import { companyNumberOf, jurisdictionParam, limitParam, singleParam } from '../companies/request-params';
import { badRequest } from '../http/errors';
import { parseInstant } from '../http/instant';
import { json } from '../http/responses';
import type { HttpHandler } from '../http/types';
import { type ClientEventStore, EVENT_DAYS, type EventQuery, InvalidEventCursorError } from './client-events';
import { PROFILE_EVENT_TYPES, type ProfileEventType } from './envelope';

const DAY_MS = 24 * 3600 * 1000;
/**
 * A since this much older than the window is read as its start: a client's own "30 days ago" arrives a
 * moment late, or from a clock a little behind, and still asks for everything kept.
 */
const SINCE_LEEWAY_MS = 3600 * 1000;

function oneOf<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[]): T | undefined {
  const value = singleParam(query, name, `invalid_${name}`);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw badRequest(`invalid_${name}`, `${name} must be one of ${allowed.join(', ')}, not "${value.slice(0, 40)}".`, { parameter: name });
  }
  return value as T;
}

function instantParam(query: URLSearchParams, name: 'since' | 'until'): Date | undefined {
  const value = singleParam(query, name, `invalid_${name}`);
  if (value === undefined) return undefined;
  const at = parseInstant(value);
  if (!at) {
    throw badRequest(`invalid_${name}`, `${name} must be an RFC 3339 date-time with its offset, such as 2026-11-24T09:00:00Z.`, {
      parameter: name,
    });
  }
  return at;
}

/** What GET /v1/events was asked, checked: every refusal names its parameter. */
export function eventQueryOf(query: URLSearchParams, now: Date): EventQuery {
  const limit = limitParam(query);
  const cursor = singleParam(query, 'cursor', 'invalid_cursor');
  const type = oneOf<ProfileEventType>(query, 'type', PROFILE_EVENT_TYPES);
  const block = oneOf<BlockName>(query, 'block', BLOCK_NAMES);
  const jurisdiction = jurisdictionParam(query);
  const numberText = singleParam(query, 'companyNumber', 'invalid_company_number');
  const companyNumber = numberText === undefined ? undefined : companyNumberOf(numberText, jurisdiction).companyNumber;
  const oldest = new Date(now.getTime() - EVENT_DAYS * DAY_MS);
  const asked = instantParam(query, 'since') ?? oldest;
  const until = instantParam(query, 'until');
  if (asked.getTime() < oldest.getTime() - SINCE_LEEWAY_MS) {
    throw badRequest(
      'invalid_since',
      `since must be within the last ${EVENT_DAYS} days (from ${oldest.toISOString()}): events are kept that long.`,
      { parameter: 'since' },
    );
  }
  const since = asked.getTime() < oldest.getTime() ? oldest : asked;
  if (since.getTime() > now.getTime()) throw badRequest('invalid_since', 'since must not be in the future.', { parameter: 'since' });
  if (until && until.getTime() < since.getTime()) {
    throw badRequest('invalid_until', `until must not be before since (${since.toISOString()}).`, { parameter: 'until' });
  }
  return {
    limit,
    since,
    ...(cursor === undefined ? {} : { cursor }),
    ...(until ? { until } : {}),
    ...(type ? { type } : {}),
    ...(block ? { block } : {}),
    ...(jurisdiction ? { jurisdiction } : {}),
    ...(companyNumber ? { companyNumber } : {}),
  };
}

/**
 * GET /v1/events: the caller's events of the last 30 days (those of the companies it watches), newest
 * first, with the webhooks' envelope: to poll without an endpoint, or to catch up after an outage.
 */
export function createEventsEndpoint(deps: {
  readonly events: Pick<ClientEventStore, 'list'>;
  readonly clock: () => Date;
}): ProtectedHandler {
  return async (request, principal) => {
    const query = eventQueryOf(request.query, deps.clock());
    try {
      const page = await deps.events.list(principal.clientId, query);
      return json(200, { items: page.items, nextCursor: page.nextCursor ?? null }, { 'cache-control': 'private, no-cache' });
    } catch (error) {
      if (error instanceof InvalidEventCursorError) throw badRequest('invalid_cursor', `${error.message}.`, { parameter: 'cursor' });
      throw error;
    }
  };
}

/**
 * GET /v1/events behind the bearer check and the client's rate limit. The limit answers before the
 * route starts: a page can read up to 1,000 events, so a refused call must cost the table nothing.
 */
export function eventsRoute(
  protection: ProtectionDeps,
  deps: { readonly events: Pick<ClientEventStore, 'list'>; readonly clock: () => Date },
): HttpHandler {
  return protectedRoute(protection, createEventsEndpoint(deps));
}
