import type { ProtectedHandler } from '../auth/protect';
import { limitParam, singleParam } from '../companies/request-params';
import { badRequest, HttpError, notFound } from '../http/errors';
import { jsonObjectBody } from '../http/json-body';
import { json } from '../http/responses';
import type { HttpRequest, HttpResponse } from '../http/types';
import {
  currentSecret,
  InvalidSubscriptionCursorError,
  type Subscription,
  SubscriptionLimitError,
  SubscriptionNotFoundError,
} from './subscription';
import { InvalidSubscriptionError, NothingToChangeError, type Subscriptions } from './subscriptions';

export const WEBHOOKS_PATH = '/v1/webhooks';
/** Every answer may hold a signing secret. */
const NO_STORE = { 'cache-control': 'no-store' };

/** What the API shows of a subscription: its current signing secret included, as the spec asks. */
export function representationOf(subscription: Subscription) {
  return {
    id: subscription.id,
    name: subscription.name,
    url: subscription.url,
    status: subscription.status,
    signingSecret: currentSecret(subscription).secret,
    createdAt: subscription.createdAt,
    updatedAt: subscription.updatedAt,
  };
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
  if (error instanceof InvalidSubscriptionCursorError) return badRequest('invalid_cursor', `${error.message}.`, { parameter: 'cursor' });
  return error;
}

/**
 * /v1/webhooks and /v1/webhooks/{id}[/rotate-secret]: the caller's own subscriptions. The store is
 * keyed by client, so another client's id is a 404 like an unknown one.
 */
export function createWebhooksEndpoint(subscriptions: Subscriptions): ProtectedHandler {
  async function route(request: HttpRequest, clientId: string): Promise<HttpResponse> {
    const id = request.pathParameters.id;
    if (id === undefined && request.method === 'POST') {
      const created = await subscriptions.register(clientId, jsonObjectBody(request, ['name', 'url']));
      return json(201, representationOf(created), { ...NO_STORE, location: `${WEBHOOKS_PATH}/${created.id}` });
    }
    if (id === undefined) {
      const cursor = singleParam(request.query, 'cursor', 'invalid_cursor');
      const page = await subscriptions.list(clientId, { limit: limitParam(request.query), ...(cursor === undefined ? {} : { cursor }) });
      return json(200, { items: page.items.map(representationOf), nextCursor: page.nextCursor ?? null }, NO_STORE);
    }
    switch (request.method) {
      case 'GET':
        return json(200, representationOf(await subscriptions.get(clientId, id)), NO_STORE);
      case 'PATCH':
        return json(
          200,
          representationOf(await subscriptions.change(clientId, id, jsonObjectBody(request, ['name', 'url', 'status']))),
          NO_STORE,
        );
      case 'DELETE':
        await subscriptions.remove(clientId, id);
        return { status: 204, headers: NO_STORE };
      case 'POST': {
        // The one POST under an id: /v1/webhooks/{id}/rotate-secret.
        const { subscription, previousExpiresAt } = await subscriptions.rotateSecret(clientId, id);
        return json(200, { ...representationOf(subscription), previousSigningSecretExpiresAt: previousExpiresAt }, NO_STORE);
      }
      default:
        throw notFound('not_found', `No route matches ${request.method} ${request.path}.`);
    }
  }

  return async (request, principal) => {
    try {
      return await route(request, principal.clientId);
    } catch (error) {
      throw httpErrorOf(error);
    }
  };
}
