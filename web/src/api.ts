/** The workspace's JSON API on this origin. Every change carries the session's CSRF token. */
import type { DeliveryRowView, PageView, RevealedSubscriptionView, SubscriptionView } from '../../shared/webhooks/wire';
import type {
  AcceptedInvitationView,
  DayOfDeliveries,
  EventRowView,
  PasskeyView,
  PortfolioPageView,
  PortfolioRowView,
  SessionView,
} from '../../shared/workspace/wire';

// The API's own types (one definition for the server and this app), under the names the pages use.
export type { AcceptedInvitationView, DayOfDeliveries, PasskeyView, SessionView };
export type PortfolioRow = PortfolioRowView;
export type PortfolioPage = PortfolioPageView;
export type Subscription = SubscriptionView;
export type RevealedSubscription = RevealedSubscriptionView;
export type Attempt = DeliveryRowView;
/** What the delivery log is filtered by; each absent means any. */
export interface AttemptFilter {
  readonly status?: 'delivered' | 'failed' | 'dropped';
  readonly companyNumber?: string;
  readonly jurisdiction?: 'GB' | 'IE';
}
export type Page<T> = PageView<T>;
export type EventRow = EventRowView;

/** An answer that was not 2xx: the API's own words for what went wrong. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

const BASE = '/workspace/api';
let csrfToken = '';

export function rememberSession(session: SessionView): SessionView {
  csrfToken = session.csrfToken;
  return session;
}

export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  const response = await fetch(`${BASE}${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status === 204) return undefined as T;
  const payload = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    const message = String(payload.detail ?? payload.error_description ?? payload.message ?? `The workspace answered ${response.status}.`);
    throw new ApiError(
      response.status,
      String(payload.error ?? 'error'),
      message,
      // The field of a body, or the query parameter (GET /v1/events names its parameter).
      typeof payload.field === 'string' ? payload.field : typeof payload.parameter === 'string' ? payload.parameter : undefined,
    );
  }
  return payload as T;
}

export const api = {
  session: () => call<SessionView>('GET', '/session').then(rememberSession),
  signIn: (email: string, password: string) => call<SessionView>('POST', '/sign-in', { email, password }).then(rememberSession),
  acceptInvitation: (token: string, password: string) =>
    call<AcceptedInvitationView>('POST', '/invitations/accept', { token, password }).then((view) => {
      rememberSession(view);
      return view;
    }),
  signOut: () => call<void>('POST', '/sign-out'),
  signOutEverywhere: () => call<void>('POST', '/sign-out-everywhere'),
  webhooks: () => call<Page<Subscription>>('GET', '/webhooks?limit=100'),
  webhook: (id: string) => call<RevealedSubscription>('GET', `/webhooks/${encodeURIComponent(id)}`),
  createWebhook: (name: string, url: string) => call<RevealedSubscription>('POST', '/webhooks', { name, url }),
  changeWebhook: (id: string, change: { name?: string; url?: string; status?: 'ACTIVE' | 'DISABLED'; filters?: Subscription['filters'] }) =>
    call<RevealedSubscription>('PATCH', `/webhooks/${encodeURIComponent(id)}`, change),
  deleteWebhook: (id: string) => call<void>('DELETE', `/webhooks/${encodeURIComponent(id)}`),
  rotateSecret: (id: string) => call<RevealedSubscription>('POST', `/webhooks/${encodeURIComponent(id)}/rotate-secret`),
  sendTest: (id: string) => call<{ deliveryId: string }>('POST', `/webhooks/${encodeURIComponent(id)}/test`),
  deliveries: (id: string, filter: AttemptFilter = {}, cursor?: string, limit = 50) =>
    call<Page<Attempt>>(
      'GET',
      `/webhooks/${encodeURIComponent(id)}/deliveries?${new URLSearchParams({
        limit: String(limit),
        ...filter,
        ...(cursor ? { cursor } : {}),
      })}`,
    ),
  deliveryStats: (id: string) =>
    call<{ days: DayOfDeliveries[]; truncated: boolean }>('GET', `/webhooks/${encodeURIComponent(id)}/delivery-stats`),
  recover: (id: string, since: string, cursor?: string) =>
    call<{ since: string; queued: number; nextCursor: string | null }>('POST', `/webhooks/${encodeURIComponent(id)}/recover`, {
      since,
      ...(cursor ? { cursor } : {}),
    }),
  retry: (id: string, deliveryId: string) =>
    call<{ deliveryId: string }>('POST', `/webhooks/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(deliveryId)}/retry`),
  /** GET /portfolio: `query` holds its filters and order (q, jurisdiction, status, risk, signal, changedWithinDays, sort, order). */
  portfolio: (query: Readonly<Record<string, string>>, cursor?: string) => {
    const params = new URLSearchParams(query);
    if (cursor) params.set('cursor', cursor);
    return call<PortfolioPageView>('GET', `/portfolio?${params}`);
  },
  /** GET /v1/events for the session's client: `query` holds its filters (type, block, jurisdiction, companyNumber, since, until). */
  events: (query: Readonly<Record<string, string>>, cursor?: string) =>
    call<{ items: EventRow[]; nextCursor: string | null }>(
      'GET',
      `/events?${new URLSearchParams({ ...query, limit: '50', ...(cursor ? { cursor } : {}) }).toString()}`,
    ),
  company: (jurisdiction: string, number: string) =>
    call<Record<string, unknown>>('GET', `/companies/${encodeURIComponent(jurisdiction)}/${encodeURIComponent(number)}`),
  passkeyRegistrationOptions: () => call<{ challengeId: string; options: unknown }>('POST', '/passkeys/registration-options'),
  registerPasskey: (challengeId: string, response: unknown, name?: string) =>
    call<void>('POST', '/passkeys', { challengeId, response, ...(name ? { name } : {}) }),
  passkeys: () => call<{ items: PasskeyView[] }>('GET', '/passkeys'),
  removePasskey: (id: string) => call<void>('DELETE', `/passkeys/${encodeURIComponent(id)}`),
  reauthenticate: (password: string) => call<void>('POST', '/reauthenticate', { password }),
  reauthenticationOptions: () => call<{ challengeId: string; options: unknown }>('POST', '/reauthenticate/passkey-options'),
  reauthenticateWithPasskey: (challengeId: string, response: unknown) =>
    call<void>('POST', '/reauthenticate/passkey', { challengeId, response }),
  passkeySignInOptions: () => call<{ challengeId: string; options: unknown }>('POST', '/passkey-sign-in/options'),
  passkeySignIn: (challengeId: string, response: unknown) =>
    call<SessionView>('POST', '/passkey-sign-in', { challengeId, response }).then(rememberSession),
};
