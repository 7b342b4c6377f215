import type { ClientLookup, ClientRecord } from '../auth/client-registry';
import type { ProtectedHandler } from '../auth/protect';
import { clientRateKey, type RateLimiter, type RateLimitResult, rateLimitedHeaders, rateLimitHeaders } from '../auth/rate-limit';
import type { CompanyStore } from '../companies/company-store';
import { InvalidCompanyNumberError, parseCompanyNumber } from '../companies/numbers';
import { JURISDICTIONS, type Jurisdiction } from '../companies/profile';
import { badRequest, HttpError, notFound } from '../http/errors';
import { jsonObjectBody } from '../http/json-body';
import { json } from '../http/responses';
import type { HttpHandler, HttpRequest, HttpResponse } from '../http/types';
import { InvalidWatchCursorError, type WatchStore } from '../watches/watch-store';
import type { Deliveries } from '../webhooks/deliveries';
import { WEBHOOKS_PATH } from '../webhooks/webhooks-endpoint';
import {
  assertCsrfToken,
  assertSameOrigin,
  type CookiePolicy,
  changesState,
  clearSessionCookie,
  originOf,
  sessionCookieOf,
  setSessionCookie,
} from './browser-guard';
import { deliveryRows } from './delivery-rows';
import { deliveriesPerDay } from './delivery-stats';
import { eventRows } from './event-rows';
import {
  PasskeyCheckRefusedError,
  PasskeyNotFoundError,
  PasskeyRefusedError,
  type Passkeys,
  relyingPartyOf,
  TooManyPasskeysError,
} from './passkeys';
import { InvitationUnusableError, MAX_PASSKEY_NAME_LENGTH, type Person, type Session, SessionEndedError } from './people';
import { type PortfolioSources, parsePortfolioQuery, portfolioPage, readPortfolio, recentPortfolios } from './portfolio';
import type { AcceptedInvitationView, SessionView } from './wire';
import {
  PasswordRefusedError,
  RecentCheckRequiredError,
  type SignedIn,
  SignInRefusedError,
  TooManyInvitationAttemptsError,
  TooManySignInsError,
  WeakPasswordError,
  type WorkspaceAuth,
} from './workspace-auth';

export const WORKSPACE_API_PATH = '/workspace/api';
/** The API route the workspace's events feed answers as. */
const EVENTS_PATH = '/v1/events';

export interface WorkspaceEndpointDeps {
  readonly auth: WorkspaceAuth;
  readonly passkeys: Passkeys;
  readonly clients: ClientLookup;
  /** The API's own per-client counter: the workspace is a second door to the same rooms, counted alike. */
  readonly limiter: Pick<RateLimiter, 'consume'>;
  readonly defaultRateLimitPerMinute: number;
  /** /v1/webhooks…, answered for the signed-in person's client. */
  readonly webhooks: ProtectedHandler;
  /** GET /v1/events, answered for the signed-in person's client: the API's filters, checks and paging. */
  readonly events: ProtectedHandler;
  readonly deliveries: Pick<Deliveries, 'attempts'>;
  readonly watches: Pick<WatchStore, 'listWatches' | 'isWatching'>;
  readonly companies: Pick<CompanyStore, 'get' | 'getMany'>;
  /** The portfolio's columns of many profiles (portfolio-profiles.ts); whole profiles from `companies` when absent. */
  readonly portfolioProfiles?: PortfolioSources['profiles'];
  readonly cookies: CookiePolicy;
  /** The workspace's public origin when deployed; locally the request's own. */
  readonly origin?: string;
  readonly tokenPath: string;
  readonly clock: () => Date;
}

interface Caller {
  readonly session: Session;
  readonly person: Person;
  readonly client: ClientRecord;
  readonly cookieValue: string;
}

/** Every answer is about one person's session or data: never cached, anywhere. */
const NO_STORE = { 'cache-control': 'no-store' };
/**
 * How long a client's portfolio, once read, answers its pages, filters and orders: long enough for a
 * person going through it, short enough that a change shows on the next look.
 */
const PORTFOLIO_HOLD_MS = 15_000;
/** Portfolios held at once by one instance (each at most 5,000 rows). */
const PORTFOLIOS_HELD = 20;

const stringField = (body: Record<string, unknown>, field: string, maxLength: number): string => {
  const value = body[field];
  if (typeof value !== 'string' || value === '') throw badRequest(`invalid_${field}`, `"${field}" must be a non-empty string.`, { field });
  if (value.length > maxLength) throw badRequest(`invalid_${field}`, `"${field}" must be at most ${maxLength} characters.`, { field });
  return value;
};

/** A WebAuthn answer: an object, read further by the verifier. */
const responseField = (body: Record<string, unknown>): object => {
  const response = body.response;
  if (typeof response !== 'object' || response === null) throw badRequest('invalid_response', '"response" must be an object.');
  return response;
};

/**
 * The workspace's JSON API under /workspace/api: signing in and out, and the client's webhooks,
 * deliveries and watched companies for a signed-in person. A person acts only on their own client:
 * every data route takes the client from the session, never from the request.
 */
export function createWorkspaceEndpoint(deps: WorkspaceEndpointDeps): HttpHandler {
  const heldPortfolios = recentPortfolios({
    holdMs: PORTFOLIO_HOLD_MS,
    clients: PORTFOLIOS_HELD,
    // Elapsed time, not the clock the rules read: a test's frozen clock must not hold a portfolio for ever.
    clock: () => new Date(),
  });
  const signedInResponse = async (status: number, signedIn: SignedIn): Promise<HttpResponse> =>
    json(status, await sessionView(signedIn.session, signedIn.person), {
      ...NO_STORE,
      'set-cookie': setSessionCookie(signedIn.cookieValue, deps.cookies),
    });

  async function sessionView(session: Session, person: Person, known?: ClientRecord): Promise<SessionView> {
    const client = known ?? (await deps.clients.get(person.clientId));
    return {
      person: { email: person.email },
      client: { clientId: person.clientId, name: client?.name ?? null, status: client?.status ?? null },
      csrfToken: session.csrfToken,
      sessionExpiresAt: new Date(session.expiresAt * 1000).toISOString(),
      tokenPath: deps.tokenPath,
    };
  }

  async function anonymous(request: HttpRequest, route: string): Promise<HttpResponse | undefined> {
    if (request.method !== 'POST') return undefined;
    const origin = originOf(request, deps.origin);
    switch (route) {
      case 'sign-in': {
        const body = jsonObjectBody(request, ['email', 'password']);
        return signedInResponse(
          200,
          await deps.auth.signIn(stringField(body, 'email', 320), stringField(body, 'password', 1024), request.sourceIp),
        );
      }
      case 'invitations/accept': {
        const body = jsonObjectBody(request, ['token', 'password']);
        const redeemed = await deps.auth.acceptInvitation(
          stringField(body, 'token', 100),
          stringField(body, 'password', 1024),
          request.sourceIp,
        );
        const answer = await signedInResponse(200, redeemed);
        const view: AcceptedInvitationView = { ...(answer.body as SessionView), passkeysRemoved: redeemed.passkeysRemoved.length };
        return { ...answer, body: view };
      }
      case 'passkey-sign-in/options':
        return json(200, await deps.passkeys.signInOptions(relyingPartyOf(origin)), NO_STORE);
      case 'passkey-sign-in': {
        const body = jsonObjectBody(request, ['challengeId', 'response']);
        return signedInResponse(
          200,
          await deps.passkeys.signIn(relyingPartyOf(origin), stringField(body, 'challengeId', 100), responseField(body) as never),
        );
      }
      default:
        return undefined;
    }
  }

  async function signedIn(request: HttpRequest, route: string, caller: Caller): Promise<HttpResponse> {
    const { person } = caller;
    if (route === 'session' && request.method === 'GET')
      return json(200, await sessionView(caller.session, person, caller.client), NO_STORE);
    if (route === 'sign-out' && request.method === 'POST') {
      await deps.auth.signOut(caller.cookieValue);
      return { status: 204, headers: { ...NO_STORE, 'set-cookie': clearSessionCookie(deps.cookies) } };
    }
    if (route === 'sign-out-everywhere' && request.method === 'POST') {
      await deps.auth.signOutEverywhere(person);
      return { status: 204, headers: { ...NO_STORE, 'set-cookie': clearSessionCookie(deps.cookies) } };
    }
    // A disabled client's people may see that it is disabled and sign out, and nothing else.
    if (caller.client.status !== 'active') {
      throw new HttpError(
        403,
        'client_disabled',
        'This account is disabled: its API and its workspace are closed until Bureau enables it again.',
      );
    }
    if (route === 'passkeys' || route.startsWith('passkeys/') || route.startsWith('reauthenticate')) {
      return passkeyRoutes(request, route, caller);
    }
    if (route === 'portfolio' && request.method === 'GET') return portfolio(request, caller);
    if (route === 'events' && request.method === 'GET') {
      const answer = await deps.events({ ...request, path: EVENTS_PATH, pathParameters: {} }, principalOf(caller));
      return json(answer.status, await eventRows(answer.body, deps.companies), NO_STORE);
    }
    const company = /^companies\/([A-Za-z]{2})\/([^/]+)$/.exec(route);
    if (company && request.method === 'GET') return companyProfile(person.clientId, company[1] ?? '', company[2] ?? '');
    const stats = /^webhooks\/([^/]+)\/delivery-stats$/.exec(route);
    if (stats && request.method === 'GET') {
      // The subscription's own listing decides whether it belongs to this client (404 otherwise).
      await deps.webhooks(webhooksRequest(request, `webhooks/${stats[1]}`), principalOf(caller));
      return json(200, await deliveriesPerDay(deps.deliveries, person.clientId, stats[1] ?? '', deps.clock()), NO_STORE);
    }
    if (/^webhooks\/[^/]+\/deliveries$/.test(route) && request.method === 'GET') {
      // The API's own listing (its filters, checks and paging), each attempt with its company's name.
      const answer = await deps.webhooks(webhooksRequest(request, route), principalOf(caller));
      return json(answer.status, await deliveryRows(answer.body, deps.companies), NO_STORE);
    }
    if (route === 'webhooks' || route.startsWith('webhooks/')) return deps.webhooks(webhooksRequest(request, route), principalOf(caller));
    throw notFound('not_found', `No route matches ${request.method} ${request.path}.`);
  }

  /** The person's own passkeys, and the checks that let them add one. */
  async function passkeyRoutes(request: HttpRequest, route: string, caller: Caller): Promise<HttpResponse> {
    const { person, session, cookieValue } = caller;
    const rp = () => relyingPartyOf(originOf(request, deps.origin));
    const done: HttpResponse = { status: 204, headers: NO_STORE };
    if (route === 'reauthenticate' && request.method === 'POST') {
      const body = jsonObjectBody(request, ['password']);
      await deps.auth.confirmPassword(person, cookieValue, stringField(body, 'password', 1024), request.sourceIp);
      return done;
    }
    if (route === 'reauthenticate/passkey-options' && request.method === 'POST') {
      return json(200, await deps.passkeys.checkOptions(person, rp()), NO_STORE);
    }
    if (route === 'reauthenticate/passkey' && request.method === 'POST') {
      const body = jsonObjectBody(request, ['challengeId', 'response']);
      await deps.passkeys.check(person, cookieValue, rp(), stringField(body, 'challengeId', 100), responseField(body) as never);
      return done;
    }
    if (route === 'passkeys' && request.method === 'GET') return json(200, { items: await deps.passkeys.list(person) }, NO_STORE);
    if (route === 'passkeys/registration-options' && request.method === 'POST') {
      return json(200, await deps.passkeys.registrationOptions(person, session, rp()), NO_STORE);
    }
    if (route === 'passkeys' && request.method === 'POST') {
      const body = jsonObjectBody(request, ['challengeId', 'response', 'name']);
      const name = body.name === undefined ? undefined : stringField(body, 'name', MAX_PASSKEY_NAME_LENGTH).trim();
      await deps.passkeys.register(
        person,
        session,
        rp(),
        stringField(body, 'challengeId', 100),
        responseField(body) as never,
        name || undefined,
      );
      return done;
    }
    const passkey = /^passkeys\/([A-Za-z0-9_-]+)$/.exec(route);
    if (passkey && request.method === 'DELETE') {
      await deps.passkeys.remove(person, passkey[1] ?? '');
      return done;
    }
    throw notFound('not_found', `No route matches ${request.method} ${request.path}.`);
  }

  /** The watched companies as one table (shared/workspace/portfolio.ts). */
  async function portfolio(request: HttpRequest, caller: Caller): Promise<HttpResponse> {
    const query = parsePortfolioQuery(request.query);
    const sources: PortfolioSources = {
      watches: deps.watches,
      profiles: deps.portfolioProfiles ?? ((keys) => deps.companies.getMany(keys)),
      clock: deps.clock,
    };
    const page = await portfolioPage(sources, caller.person.clientId, query, (clientId) =>
      heldPortfolios(clientId, () => readPortfolio(sources, clientId)),
    );
    return json(200, page, NO_STORE);
  }

  async function companyProfile(clientId: string, jurisdictionText: string, numberText: string): Promise<HttpResponse> {
    const jurisdiction = jurisdictionText.toUpperCase() as Jurisdiction;
    if (!JURISDICTIONS.includes(jurisdiction)) throw badRequest('invalid_jurisdiction', 'The jurisdiction must be GB or IE.');
    let number: string;
    try {
      number = parseCompanyNumber(decodeURIComponent(numberText), jurisdiction).companyNumber;
    } catch (error) {
      if (error instanceof InvalidCompanyNumberError || error instanceof URIError) {
        throw badRequest('invalid_company_number', `"${numberText.slice(0, 40)}" is not a ${jurisdiction} company number.`);
      }
      throw error;
    }
    // Only what the client's systems fetched through the API: the workspace is no way around the API's
    // per-call limit, and looking at a profile here records no watch.
    const [watching, profile] = await Promise.all([
      deps.watches.isWatching(clientId, jurisdiction, number),
      deps.companies.get(jurisdiction, number),
    ]);
    if (!watching) throw notFound('company_not_watched', `${jurisdiction} ${number} is not among the companies this client watches.`);
    if (!profile) throw notFound('company_not_found', `No ${jurisdiction} company ${number}.`);
    return json(200, profile, NO_STORE);
  }

  return async (request) => {
    try {
      const route = request.path.slice(WORKSPACE_API_PATH.length + 1);
      if (changesState(request)) assertSameOrigin(request, originOf(request, deps.origin));
      if (ANONYMOUS_ROUTES.has(route)) {
        const answer = await anonymous(request, route);
        if (answer) return answer;
      }
      const cookieValue = sessionCookieOf(request, deps.cookies);
      const current = await deps.auth.current(cookieValue);
      if (!current || cookieValue === undefined) throw new HttpError(401, 'not_signed_in', 'Sign in to the workspace first.');
      // A client that has been removed leaves its people nothing to manage (its record is cached briefly).
      const client = await deps.clients.get(current.person.clientId);
      if (!client) throw new HttpError(403, 'client_removed', 'The client this workspace belongs to has been removed.');
      if (changesState(request)) assertCsrfToken(request, current.session.csrfToken);
      const usage = await deps.limiter.consume(clientRateKey(client.clientId), client.rateLimitPerMinute ?? deps.defaultRateLimitPerMinute);
      if (!usage.allowed) throw rateLimited(usage);
      return withHeaders(
        await signedIn(request, route, { ...current, client, cookieValue }).catch(withRateHeaders(usage)),
        rateLimitHeaders(usage),
      );
    } catch (error) {
      throw httpErrorOf(error);
    }
  };
}

const rateLimited = (usage: RateLimitResult) =>
  new HttpError(
    429,
    'rate_limited',
    `Rate limit of ${usage.limit} requests per minute exceeded; retry in ${usage.resetSeconds} s.`,
    rateLimitedHeaders(usage),
  );

const withHeaders = (response: HttpResponse, headers: Record<string, string>): HttpResponse => ({
  ...response,
  headers: { ...headers, ...response.headers },
});

/** A refusal after the call was counted carries the counter too, as the API's do. */
const withRateHeaders =
  (usage: RateLimitResult) =>
  (error: unknown): never => {
    const answer = httpErrorOf(error);
    if (answer instanceof HttpError)
      throw new HttpError(answer.status, answer.code, answer.message, { ...rateLimitHeaders(usage), ...answer.headers }, answer.details);
    throw answer;
  };

/** Answered without a session: they are how a session begins. */
const ANONYMOUS_ROUTES = new Set(['sign-in', 'invitations/accept', 'passkey-sign-in/options', 'passkey-sign-in']);

const principalOf = (caller: Caller) => ({ clientId: caller.person.clientId, tokenId: 'workspace', expiresAt: caller.session.expiresAt });

/** The same request as the API's /v1/webhooks… route would see it. */
function webhooksRequest(request: HttpRequest, route: string): HttpRequest {
  const [, id, sub, deliveryId] = route.split('/');
  const pathParameters: Record<string, string> = {};
  if (id) pathParameters.id = id;
  if (sub === 'deliveries' && deliveryId) pathParameters.deliveryId = deliveryId;
  return { ...request, path: `${WEBHOOKS_PATH}${route.slice('webhooks'.length)}`, pathParameters };
}

function httpErrorOf(error: unknown): unknown {
  if (error instanceof SignInRefusedError) return new HttpError(401, 'sign_in_refused', error.message);
  if (error instanceof TooManySignInsError) {
    return new HttpError(429, 'too_many_sign_ins', error.message, { 'retry-after': String(error.retryAfterSeconds) });
  }
  if (error instanceof TooManyInvitationAttemptsError) {
    return new HttpError(429, 'too_many_attempts', error.message, { 'retry-after': String(error.retryAfterSeconds) });
  }
  if (error instanceof WeakPasswordError) return badRequest('weak_password', error.message, { field: 'password' });
  if (error instanceof InvitationUnusableError) return new HttpError(410, 'invitation_unusable', error.message);
  if (error instanceof PasskeyRefusedError) return new HttpError(401, 'passkey_refused', error.message);
  if (error instanceof PasskeyCheckRefusedError) return new HttpError(403, 'passkey_refused', error.message);
  if (error instanceof PasswordRefusedError) return new HttpError(403, 'password_refused', error.message);
  if (error instanceof RecentCheckRequiredError) return new HttpError(403, 'recent_check_required', error.message);
  if (error instanceof PasskeyNotFoundError) return notFound('passkey_not_found', error.message);
  if (error instanceof TooManyPasskeysError) return new HttpError(409, 'too_many_passkeys', error.message);
  if (error instanceof SessionEndedError) return new HttpError(401, 'not_signed_in', error.message);
  if (error instanceof InvalidWatchCursorError) return badRequest('invalid_cursor', `${error.message}.`, { parameter: 'cursor' });
  return error;
}
