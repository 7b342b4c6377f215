import type { ProtectedHandler } from '../auth/protect';
import { limitParam, singleParam } from '../companies/request-params';
import { badRequest, HttpError, notFound } from '../http/errors';
import { jsonObjectBody } from '../http/json-body';
import { json } from '../http/responses';
import type { HttpRequest, HttpResponse } from '../http/types';
import { checkEndpointUrl, EndpointUrlError, type HostResolver } from './endpoint-url';
import {
  currentSecret,
  generateSigningSecret,
  generateSubscriptionId,
  InvalidSubscriptionCursorError,
  MAX_NAME_LENGTH,
  SECRET_GRACE_SECONDS,
  SUBSCRIPTION_STATUSES,
  type Subscription,
  type SubscriptionChanges,
  SubscriptionLimitError,
  SubscriptionNotFoundError,
  type SubscriptionStatus,
  type SubscriptionStore,
} from './subscription';

export interface WebhooksEndpointDeps {
  readonly subscriptions: SubscriptionStore;
  readonly resolve: HostResolver;
  readonly clock: () => Date;
}

export const WEBHOOKS_PATH = '/v1/webhooks';
const NO_STORE = { 'cache-control': 'no-store' };

/** What the API shows of a subscription: its current signing secret included, as the spec asks. */
function representationOf(subscription: Subscription) {
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

function nameOf(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.trim().length > MAX_NAME_LENGTH) {
    throw badRequest('invalid_name', `name must be text of 1 to ${MAX_NAME_LENGTH} characters.`, { field: 'name' });
  }
  return value.trim();
}

function statusOf(value: unknown): SubscriptionStatus {
  if (!SUBSCRIPTION_STATUSES.includes(value as SubscriptionStatus)) {
    throw badRequest('invalid_status', `status must be one of ${SUBSCRIPTION_STATUSES.join(', ')}.`, { field: 'status' });
  }
  return value as SubscriptionStatus;
}

async function urlOf(value: unknown, resolve: HostResolver): Promise<string> {
  if (typeof value !== 'string')
    throw badRequest('invalid_url', 'url must be text beginning with https://.', { field: 'url', rule: 'not_a_url' });
  try {
    return await checkEndpointUrl(value, resolve);
  } catch (error) {
    if (error instanceof EndpointUrlError) throw badRequest('invalid_url', error.message, { field: 'url', rule: error.rule });
    throw error;
  }
}

const subscriptionNotFound = (id: string) => notFound('webhook_not_found', `No webhook subscription with id "${id.slice(0, 40)}".`);

/**
 * /v1/webhooks and /v1/webhooks/{id}[/rotate-secret]: a client's own subscriptions. The store is
 * keyed by client, so another client's id is a 404 like an unknown one.
 */
export function createWebhooksEndpoint(deps: WebhooksEndpointDeps): ProtectedHandler {
  const now = () => deps.clock().toISOString();

  async function create(request: HttpRequest, clientId: string): Promise<HttpResponse> {
    const body = jsonObjectBody(request, ['name', 'url']);
    const name = nameOf(body.name);
    const url = await urlOf(body.url, deps.resolve);
    const at = now();
    const subscription: Subscription = {
      id: generateSubscriptionId(),
      clientId,
      name,
      url,
      status: 'ACTIVE',
      signingSecrets: [{ secret: generateSigningSecret(), createdAt: at }],
      createdAt: at,
      updatedAt: at,
    };
    try {
      await deps.subscriptions.create(subscription);
    } catch (error) {
      if (error instanceof SubscriptionLimitError) throw new HttpError(409, 'webhook_limit_reached', `${error.message}.`);
      throw error;
    }
    return json(201, representationOf(subscription), { ...NO_STORE, location: `${WEBHOOKS_PATH}/${subscription.id}` });
  }

  async function list(request: HttpRequest, clientId: string): Promise<HttpResponse> {
    const limit = limitParam(request.query);
    const cursor = singleParam(request.query, 'cursor', 'invalid_cursor');
    try {
      const page = await deps.subscriptions.list(clientId, { limit, ...(cursor === undefined ? {} : { cursor }) });
      return json(200, { items: page.items.map(representationOf), nextCursor: page.nextCursor ?? null }, NO_STORE);
    } catch (error) {
      if (error instanceof InvalidSubscriptionCursorError) throw badRequest('invalid_cursor', `${error.message}.`, { parameter: 'cursor' });
      throw error;
    }
  }

  async function change(request: HttpRequest, clientId: string, id: string): Promise<HttpResponse> {
    const body = jsonObjectBody(request, ['name', 'url', 'status']);
    const changes: { -readonly [K in keyof SubscriptionChanges]: SubscriptionChanges[K] } = {};
    if (body.name !== undefined) changes.name = nameOf(body.name);
    if (body.status !== undefined) changes.status = statusOf(body.status);
    if (body.url !== undefined) changes.url = await urlOf(body.url, deps.resolve);
    if (Object.keys(changes).length === 0) throw badRequest('invalid_body', 'Give at least one of name, url, status to change.');
    return json(200, representationOf(await deps.subscriptions.update(clientId, id, changes, now())), NO_STORE);
  }

  async function rotate(clientId: string, id: string): Promise<HttpResponse> {
    const at = deps.clock();
    const previousExpiresAt = new Date(at.getTime() + SECRET_GRACE_SECONDS * 1000).toISOString();
    const next = { secret: generateSigningSecret(), createdAt: at.toISOString() };
    const rotated = await deps.subscriptions.rotateSecret(clientId, id, next, previousExpiresAt);
    return json(200, { ...representationOf(rotated), previousSigningSecretExpiresAt: previousExpiresAt }, NO_STORE);
  }

  async function route(request: HttpRequest, clientId: string): Promise<HttpResponse> {
    const id = request.pathParameters.id;
    if (id === undefined) return request.method === 'POST' ? create(request, clientId) : list(request, clientId);
    if (request.path.endsWith('/rotate-secret')) return rotate(clientId, id);
    switch (request.method) {
      case 'GET': {
        const subscription = await deps.subscriptions.get(clientId, id);
        if (!subscription) throw subscriptionNotFound(id);
        return json(200, representationOf(subscription), NO_STORE);
      }
      case 'PATCH':
        return change(request, clientId, id);
      default:
        await deps.subscriptions.delete(clientId, id);
        return { status: 204, headers: NO_STORE };
    }
  }

  return async (request, principal) => {
    try {
      return await route(request, principal.clientId);
    } catch (error) {
      if (error instanceof SubscriptionNotFoundError) throw subscriptionNotFound(error.id);
      throw error;
    }
  };
}
