import type { ProtectedHandler } from '../auth/protect';
import { rateLimitedHeaders } from '../auth/rate-limit';
import { companyNumberOf, jurisdictionParam, limitParam, singleParam } from '../companies/request-params';
import { badRequest, HttpError, notFound } from '../http/errors';
import { parseInstant } from '../http/instant';
import { jsonObjectBody } from '../http/json-body';
import { json } from '../http/responses';
import type { HttpRequest, HttpResponse } from '../http/types';
import {
  type Deliveries,
  InvalidRecoveryError,
  RecoveryBacklogError,
  SubscriptionDisabledError,
  TooManyManualSendsError,
} from './deliveries';
import { type AttemptQuery, type DeliveryAttempt, DeliveryNotFoundError, InvalidAttemptCursorError } from './delivery-log';
import { InvalidSubscriptionCursorError, type Subscription, SubscriptionLimitError, SubscriptionNotFoundError } from './subscription';
import { InvalidSubscriptionError, NothingToChangeError, type RevealedSubscription, type Subscriptions } from './subscriptions';
import type { DeliveryAttemptView, RevealedSubscriptionView, SubscriptionView } from './wire';

export const WEBHOOKS_PATH = '/v1/webhooks';
/** Every answer may hold a signing secret. */
const NO_STORE = { 'cache-control': 'no-store' };

/**
 * What the API shows of a subscription. Its current signing secret, opened, is given for an explicit
 * read or change of that one subscription, as the spec asks; a listing shows none.
 */
export function representationOf(subscription: Subscription, signingSecret?: string): SubscriptionView {
  return {
    id: subscription.id,
    name: subscription.name,
    url: subscription.url,
    status: subscription.status,
    ...(signingSecret === undefined ? {} : { signingSecret }),
    createdAt: subscription.createdAt,
    updatedAt: subscription.updatedAt,
    disabledReason: subscription.disabledReason ?? null,
    failingSince: subscription.failingSince ?? null,
    filters: subscription.filters ?? null,
  };
}

const revealed = ({ subscription, signingSecret }: RevealedSubscription): RevealedSubscriptionView => ({
  ...representationOf(subscription),
  signingSecret,
});

/** One attempt in the delivery log; absent facts are null, so every item has the same fields. */
export function attemptRepresentationOf(attempt: DeliveryAttempt): DeliveryAttemptView {
  return {
    deliveryId: attempt.deliveryId,
    eventType: attempt.eventType,
    idempotencyKey: attempt.idempotencyKey,
    jurisdiction: attempt.jurisdiction ?? null,
    companyNumber: attempt.companyNumber ?? null,
    block: attempt.block ?? null,
    attempt: attempt.attempt,
    attemptedAt: attempt.attemptedAt,
    outcome: attempt.outcome,
    httpStatus: attempt.httpStatus ?? null,
    responseBody: attempt.responseBody ?? null,
    responseBodyTruncated: attempt.responseBodyTruncated ?? null,
    error: attempt.error ?? null,
    errorMessage: attempt.errorMessage ?? null,
    durationMs: attempt.durationMs,
    nextAttemptAt: attempt.nextAttemptAt ?? null,
  };
}

const ATTEMPT_STATUSES: readonly DeliveryAttempt['outcome'][] = ['delivered', 'failed', 'dropped'];

/**
 * What GET …/deliveries was asked, checked: every refusal names its parameter. `status` is the
 * attempt's outcome; `companyNumber` is read as a profile's number is, in `jurisdiction` when given.
 */
export function attemptQueryOf(query: URLSearchParams): AttemptQuery {
  const limit = limitParam(query);
  const cursor = singleParam(query, 'cursor', 'invalid_cursor');
  const status = singleParam(query, 'status', 'invalid_status');
  if (status !== undefined && !(ATTEMPT_STATUSES as readonly string[]).includes(status)) {
    throw badRequest('invalid_status', `status must be one of ${ATTEMPT_STATUSES.join(', ')}, not "${status.slice(0, 40)}".`, {
      parameter: 'status',
    });
  }
  const jurisdiction = jurisdictionParam(query);
  const numberText = singleParam(query, 'companyNumber', 'invalid_company_number');
  const company = numberText === undefined ? undefined : companyNumberOf(numberText, jurisdiction);
  return {
    limit,
    ...(cursor === undefined ? {} : { cursor }),
    ...(status === undefined ? {} : { outcome: status as DeliveryAttempt['outcome'] }),
    ...(company ? { jurisdiction: company.jurisdiction, companyNumber: company.companyNumber } : jurisdiction ? { jurisdiction } : {}),
  };
}

/** POST …/recover's body: `since`, an RFC 3339 instant, and the `cursor` of the previous page if any. */
export function recoveryRequest(body: Record<string, unknown>): { since: Date; cursor?: string } {
  if (body.since === undefined)
    throw badRequest('invalid_since', 'since is required: the instant from which to recover deliveries.', { field: 'since' });
  const since = typeof body.since === 'string' ? parseInstant(body.since) : undefined;
  if (!since) {
    throw badRequest('invalid_since', 'since must be an RFC 3339 date-time with its offset, such as 2026-11-24T09:00:00Z.', {
      field: 'since',
    });
  }
  if (body.cursor !== undefined && body.cursor !== null && typeof body.cursor !== 'string') {
    throw badRequest('invalid_cursor', 'cursor must be the nextCursor a recovery returned.', { field: 'cursor' });
  }
  return typeof body.cursor === 'string' ? { since, cursor: body.cursor } : { since };
}

/** Domain refusals as the API answers them. */
function httpErrorOf(error: unknown): unknown {
  if (error instanceof SubscriptionNotFoundError)
    return notFound('webhook_not_found', `No webhook subscription with id "${error.id.slice(0, 40)}".`);
  if (error instanceof SubscriptionLimitError) return new HttpError(409, 'webhook_limit_reached', `${error.message}.`);
  if (error instanceof InvalidSubscriptionError) {
    return badRequest(`invalid_${error.field}`, error.message, { field: error.field, ...(error.rule ? { rule: error.rule } : {}) });
  }
  if (error instanceof NothingToChangeError) return badRequest('invalid_body', error.message);
  if (error instanceof DeliveryNotFoundError)
    return notFound('delivery_not_found', `No delivery with id "${error.deliveryId.slice(0, 40)}" for this webhook.`);
  if (error instanceof InvalidAttemptCursorError) return badRequest('invalid_cursor', `${error.message}.`, { parameter: 'cursor' });
  if (error instanceof InvalidSubscriptionCursorError) return badRequest('invalid_cursor', `${error.message}.`, { parameter: 'cursor' });
  if (error instanceof SubscriptionDisabledError) return new HttpError(409, 'webhook_disabled', `${error.message}.`);
  if (error instanceof InvalidRecoveryError) return badRequest(`invalid_${error.field}`, error.message, { field: error.field });
  if (error instanceof RecoveryBacklogError) {
    return new HttpError(429, 'recovery_backlog', `${error.message}.`, { 'retry-after': String(error.retryAfterSeconds) });
  }
  if (error instanceof TooManyManualSendsError) {
    return new HttpError(429, 'too_many_manual_sends', error.message, rateLimitedHeaders(error.usage, 'manual-sends'));
  }
  return error;
}

/**
 * /v1/webhooks…: the caller's own subscriptions and their deliveries. The store is keyed by client,
 * so another client's id is a 404 like an unknown one.
 */
export function createWebhooksEndpoint(subscriptions: Subscriptions, deliveries: Deliveries): ProtectedHandler {
  async function route(request: HttpRequest, clientId: string): Promise<HttpResponse> {
    const id = request.pathParameters.id;
    if (id === undefined && request.method === 'POST') {
      const { subscription, signingSecret } = await subscriptions.register(clientId, jsonObjectBody(request, ['name', 'url', 'filters']));
      return json(201, representationOf(subscription, signingSecret), { ...NO_STORE, location: `${WEBHOOKS_PATH}/${subscription.id}` });
    }
    if (id === undefined) {
      const cursor = singleParam(request.query, 'cursor', 'invalid_cursor');
      const page = await subscriptions.list(clientId, { limit: limitParam(request.query), ...(cursor === undefined ? {} : { cursor }) });
      return json(200, { items: page.items.map((item) => representationOf(item)), nextCursor: page.nextCursor ?? null }, NO_STORE);
    }
    // What follows /v1/webhooks/{id}: '' or a sub-resource such as /rotate-secret.
    const underId = request.path.slice(WEBHOOKS_PATH.length + 1);
    const action = underId.includes('/') ? underId.slice(underId.indexOf('/')) : '';
    if (action !== '') return subresource(request, clientId, id, action);
    switch (request.method) {
      case 'GET':
        return json(200, revealed(await subscriptions.reveal(clientId, id)), NO_STORE);
      case 'PATCH':
        return json(
          200,
          revealed(await subscriptions.change(clientId, id, jsonObjectBody(request, ['name', 'url', 'status', 'filters']))),
          NO_STORE,
        );
      case 'DELETE':
        await subscriptions.remove(clientId, id);
        return { status: 204, headers: NO_STORE };
      default:
        throw notFound('not_found', `No route matches ${request.method} ${request.path}.`);
    }
  }

  async function subresource(request: HttpRequest, clientId: string, id: string, action: string): Promise<HttpResponse> {
    if (request.method === 'POST' && action === '/rotate-secret') {
      const { previousExpiresAt, ...rotated } = await subscriptions.rotateSecret(clientId, id);
      return json(200, { ...revealed(rotated), previousSigningSecretExpiresAt: previousExpiresAt }, NO_STORE);
    }
    if (request.method === 'POST' && action === '/test') {
      const { deliveryId, event } = await deliveries.sendTest(clientId, id);
      return json(202, { deliveryId, event }, NO_STORE);
    }
    if (request.method === 'POST' && action === '/recover') {
      const recovery = await deliveries.recover(clientId, id, recoveryRequest(jsonObjectBody(request, ['since', 'cursor'])));
      return json(202, { ...recovery, nextCursor: recovery.nextCursor ?? null }, NO_STORE);
    }
    if (request.method === 'GET' && action === '/deliveries') {
      const page = await deliveries.attempts(clientId, id, attemptQueryOf(request.query));
      return json(200, { items: page.items.map(attemptRepresentationOf), nextCursor: page.nextCursor ?? null }, NO_STORE);
    }
    const deliveryId = request.pathParameters.deliveryId;
    if (request.method === 'POST' && deliveryId !== undefined && /^\/deliveries\/[^/]+\/retry$/.test(action)) {
      return json(202, { ...(await deliveries.retry(clientId, id, deliveryId)), status: 'queued' }, NO_STORE);
    }
    throw notFound('not_found', `No route matches ${request.method} ${request.path}.`);
  }

  return async (request, principal) => {
    try {
      return await route(request, principal.clientId);
    } catch (error) {
      throw httpErrorOf(error);
    }
  };
}
