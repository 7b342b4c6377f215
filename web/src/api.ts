/** The workspace's JSON API on this origin. Every change carries the session's CSRF token. */
import type { DeliveryAttemptView, PageView, RevealedSubscriptionView, SubscriptionView } from '../../shared/webhooks/wire';
import type { AcceptedInvitationView, DayOfDeliveries, PasskeyView, SessionView, WatchedCompanyView } from '../../shared/workspace/wire';

// The API's own types (one definition for the server and this app), under the names the pages use.
export type { AcceptedInvitationView, DayOfDeliveries, PasskeyView, SessionView };
export type Subscription = SubscriptionView;
export type RevealedSubscription = RevealedSubscriptionView;
export type Attempt = DeliveryAttemptView;
export type Watched = WatchedCompanyView;
export type Page<T> = PageView<T>;

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
      typeof payload.field === 'string' ? payload.field : undefined,
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
  deliveries: (id: string, cursor?: string) =>
    call<Page<Attempt>>(
      'GET',
      `/webhooks/${encodeURIComponent(id)}/deliveries?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
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
  watches: (q: string, cursor?: string) =>
    call<Page<Watched>>('GET', `/watches?q=${encodeURIComponent(q)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
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
