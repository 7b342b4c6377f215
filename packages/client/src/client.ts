import type {
  ClientEvent,
  DeliveriesPage,
  DeliveryAttempt,
  EventsPage,
  NewSubscription,
  Profile,
  Recovery,
  RetryQueued,
  RotatedSubscription,
  SearchPage,
  SearchResult,
  Subscription,
  SubscriptionChange,
  SubscriptionsPage,
  SubscriptionWithSecret,
  TestDelivery,
  Watch,
  WatchesPage,
  WebhookEvent,
} from './generated/api-types.js';
import { type Credentials, fetchAccessToken, TokenCache } from './token.js';
import { type ApiResponse, type RequestSpec, Transport, type TransportOptions } from './transport.js';

export type Jurisdiction = SearchResult['jurisdiction'];
export type Block = NonNullable<WebhookEvent['block']>;
export type ProfileEventType = Exclude<WebhookEvent['type'], 'webhook.test'>;

export interface ClientOptions extends TransportOptions, Credentials {
  /** Profiles whose ETag and body are kept for conditional re-fetches. Default 256; 0 keeps none. */
  readonly profileCacheSize?: number;
}

export interface CallOptions {
  /** Cancels the call, its retries and waits included. */
  readonly signal?: AbortSignal;
}

export interface PageParams {
  /** 1–100; the API's default is 20. */
  readonly limit?: number;
  readonly cursor?: string;
}

export interface SearchParams extends PageParams {
  readonly q: string;
  readonly jurisdiction: Jurisdiction;
}

export interface ProfileParams extends CallOptions {
  /** Needed for a plain number of up to 7 digits, which either register could hold. */
  readonly jurisdiction?: Jurisdiction;
}

export interface EventsParams extends PageParams {
  readonly type?: ProfileEventType;
  readonly block?: Block;
  readonly jurisdiction?: Jurisdiction;
  readonly companyNumber?: string;
  /** Inclusive; the API's default is 30 days ago. */
  readonly since?: string | Date;
  readonly until?: string | Date;
}

export interface DeliveriesParams extends PageParams {
  /** The attempt's outcome. */
  readonly status?: DeliveryAttempt['outcome'];
  readonly jurisdiction?: Jurisdiction;
  /** Needs `jurisdiction` for a plain number of up to 7 digits. */
  readonly companyNumber?: string;
}

export interface RecoverParams {
  readonly since: string | Date;
  readonly cursor?: string;
}

type WithoutCursor<Params> = Omit<Params, 'cursor'>;

export interface BureauClient {
  search(params: SearchParams, options?: CallOptions): Promise<SearchPage>;
  /** Every result of a search, page after page. */
  searchAll(params: WithoutCursor<SearchParams>, options?: CallOptions): AsyncGenerator<SearchResult>;
  /**
   * A company's profile. Fetched again with the ETag of the copy kept from the last time, so an
   * unchanged profile costs a 304 with no body and is answered from that copy.
   */
  profile(companyNumber: string, params?: ProfileParams): Promise<Profile>;
  readonly watches: {
    list(params?: PageParams, options?: CallOptions): Promise<WatchesPage>;
    all(params?: WithoutCursor<PageParams>, options?: CallOptions): AsyncGenerator<Watch>;
  };
  readonly events: {
    list(params?: EventsParams, options?: CallOptions): Promise<EventsPage>;
    all(params?: WithoutCursor<EventsParams>, options?: CallOptions): AsyncGenerator<ClientEvent>;
  };
  readonly webhooks: {
    create(subscription: NewSubscription, options?: CallOptions): Promise<SubscriptionWithSecret>;
    list(params?: PageParams, options?: CallOptions): Promise<SubscriptionsPage>;
    all(params?: WithoutCursor<PageParams>, options?: CallOptions): AsyncGenerator<Subscription>;
    get(id: string, options?: CallOptions): Promise<SubscriptionWithSecret>;
    update(id: string, change: SubscriptionChange, options?: CallOptions): Promise<SubscriptionWithSecret>;
    delete(id: string, options?: CallOptions): Promise<void>;
    /** A new secret; the previous one keeps signing beside it for 24 hours. */
    rotateSecret(id: string, options?: CallOptions): Promise<RotatedSubscription>;
    /** Queues a `webhook.test` delivery. */
    test(id: string, options?: CallOptions): Promise<TestDelivery>;
    /** A filtered page reads at most 1,000 attempts: it may hold fewer than `limit` and still have a `nextCursor`. */
    deliveries(id: string, params?: DeliveriesParams, options?: CallOptions): Promise<DeliveriesPage>;
    allDeliveries(id: string, params?: WithoutCursor<DeliveriesParams>, options?: CallOptions): AsyncGenerator<DeliveryAttempt>;
    retryDelivery(id: string, deliveryId: string, options?: CallOptions): Promise<RetryQueued>;
    /** One page of a recovery (up to 1,000 deliveries); call again with `nextCursor` until it is null. */
    recover(id: string, params: RecoverParams, options?: CallOptions): Promise<Recovery>;
  };
  /** The access token the next call will send, asked for if there is none or it is about to expire. */
  accessToken(): Promise<string>;
}

interface CachedProfile {
  readonly etag: string;
  readonly text: string;
}

const DEFAULT_PROFILE_CACHE_SIZE = 256;

async function* paginate<Item>(page: (cursor: string | undefined) => Promise<{ items: Item[]; nextCursor: string | null }>) {
  let cursor: string | undefined;
  do {
    const { items, nextCursor } = await page(cursor);
    yield* items;
    cursor = nextCursor ?? undefined;
  } while (cursor !== undefined);
}

const segment = (value: string) => encodeURIComponent(value);

export function createClient(options: ClientOptions): BureauClient {
  const transport = new Transport(options);
  const tokens = new TokenCache(() => fetchAccessToken(transport, options), transport.now);
  const profiles = new Map<string, CachedProfile>();
  const profileCacheSize = Math.max(0, options.profileCacheSize ?? DEFAULT_PROFILE_CACHE_SIZE);

  /** A protected call: renews the token and repeats once if the API refuses it (revoked, or the client's secret rotated). */
  async function exchange(spec: RequestSpec): Promise<ApiResponse> {
    let sent: string | undefined;
    const authorization = async () => {
      sent = await tokens.get();
      return sent;
    };
    let response = await transport.send(spec, authorization);
    if (response.status === 401 && sent !== undefined) {
      tokens.refused(sent);
      response = await transport.send(spec, authorization);
    }
    return response;
  }

  async function call<Body>(spec: RequestSpec): Promise<Body> {
    const response = await exchange(spec);
    if (response.status >= 400) throw transport.error(spec, response);
    return response.body as Body;
  }

  const get = <Body>(path: string, query: RequestSpec['query'], options?: CallOptions) =>
    call<Body>({ method: 'GET', path, query, idempotent: true, signal: options?.signal });
  const post = <Body>(path: string, body: unknown, options?: CallOptions) =>
    call<Body>({ method: 'POST', path, body, idempotent: false, signal: options?.signal });

  async function profile(companyNumber: string, params: ProfileParams = {}): Promise<Profile> {
    const spec: RequestSpec = {
      method: 'GET',
      path: `/v1/profile/${segment(companyNumber)}`,
      query: { jurisdiction: params.jurisdiction },
      idempotent: true,
      signal: params.signal,
    };
    const key = `${params.jurisdiction ?? ''}:${companyNumber}`;
    const cached = profiles.get(key);
    const response = await exchange(cached ? { ...spec, headers: { 'if-none-match': cached.etag } } : spec);
    if (response.status === 304 && cached) {
      // Most recently used last: the first key is the one to evict.
      profiles.delete(key);
      profiles.set(key, cached);
      return JSON.parse(cached.text) as Profile;
    }
    if (response.status !== 200) throw transport.error(spec, response);
    const etag = response.headers.get('etag');
    if (etag && profileCacheSize > 0) {
      profiles.delete(key);
      profiles.set(key, { etag, text: response.text });
      if (profiles.size > profileCacheSize) profiles.delete(profiles.keys().next().value as string);
    }
    return response.body as Profile;
  }

  const webhook = (id: string) => `/v1/webhooks/${segment(id)}`;

  return {
    search: (params, callOptions) => get<SearchPage>('/v1/search', { ...params }, callOptions),
    searchAll: (params, callOptions) => paginate((cursor) => get<SearchPage>('/v1/search', { ...params, cursor }, callOptions)),
    profile,
    watches: {
      list: (params = {}, callOptions) => get<WatchesPage>('/v1/watches', { ...params }, callOptions),
      all: (params = {}, callOptions) => paginate((cursor) => get<WatchesPage>('/v1/watches', { ...params, cursor }, callOptions)),
    },
    events: {
      list: (params = {}, callOptions) => get<EventsPage>('/v1/events', { ...params }, callOptions),
      all: (params = {}, callOptions) => paginate((cursor) => get<EventsPage>('/v1/events', { ...params, cursor }, callOptions)),
    },
    webhooks: {
      create: (subscription, callOptions) => post<SubscriptionWithSecret>('/v1/webhooks', subscription, callOptions),
      list: (params = {}, callOptions) => get<SubscriptionsPage>('/v1/webhooks', { ...params }, callOptions),
      all: (params = {}, callOptions) => paginate((cursor) => get<SubscriptionsPage>('/v1/webhooks', { ...params, cursor }, callOptions)),
      get: (id, callOptions) => get<SubscriptionWithSecret>(webhook(id), undefined, callOptions),
      update: (id, change, callOptions) =>
        call<SubscriptionWithSecret>({ method: 'PATCH', path: webhook(id), body: change, idempotent: false, signal: callOptions?.signal }),
      delete: async (id, callOptions) => {
        const spec: RequestSpec = { method: 'DELETE', path: webhook(id), idempotent: true, signal: callOptions?.signal };
        const response = await exchange(spec);
        // A 404 to a repeated DELETE means an earlier attempt, whose answer was lost, did the deleting.
        if (response.status === 404 && response.attempts > 1) return;
        if (response.status >= 400) throw transport.error(spec, response);
      },
      rotateSecret: (id, callOptions) => post<RotatedSubscription>(`${webhook(id)}/rotate-secret`, undefined, callOptions),
      test: (id, callOptions) => post<TestDelivery>(`${webhook(id)}/test`, undefined, callOptions),
      deliveries: (id, params = {}, callOptions) => get<DeliveriesPage>(`${webhook(id)}/deliveries`, { ...params }, callOptions),
      allDeliveries: (id, params = {}, callOptions) =>
        paginate((cursor) => get<DeliveriesPage>(`${webhook(id)}/deliveries`, { ...params, cursor }, callOptions)),
      retryDelivery: (id, deliveryId, callOptions) =>
        post<RetryQueued>(`${webhook(id)}/deliveries/${segment(deliveryId)}/retry`, undefined, callOptions),
      recover: (id, params, callOptions) =>
        post<Recovery>(
          `${webhook(id)}/recover`,
          {
            since: params.since instanceof Date ? params.since.toISOString() : params.since,
            ...(params.cursor === undefined ? {} : { cursor: params.cursor }),
          },
          callOptions,
        ),
    },
    accessToken: () => tokens.get(),
  };
}
