import type { Token } from './generated/api-types.js';
import { Transport, type TransportOptions } from './transport.js';

export interface Credentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface AccessToken {
  readonly accessToken: string;
  /** Seconds the token is valid for from when it was issued. */
  readonly expiresIn: number;
}

const TOKEN_PATH = '/v1/oauth/token';

/** Asks for a new access token (client credentials); retried like any idempotent call, since asking twice only issues two tokens. */
export async function fetchAccessToken(transport: Transport, credentials: Credentials, signal?: AbortSignal): Promise<AccessToken> {
  const spec = {
    method: 'POST',
    path: TOKEN_PATH,
    body: { grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret },
    idempotent: true,
    signal,
  } as const;
  const response = await transport.send(spec);
  if (response.status !== 200) throw transport.error(spec, response);
  const token = response.body as Partial<Token> | undefined;
  if (typeof token?.access_token !== 'string' || typeof token.expires_in !== 'number') throw transport.error(spec, response);
  return { accessToken: token.access_token, expiresIn: token.expires_in };
}

/** One token request, outside any client: for scripts and tools that need a bearer token of their own. */
export function requestToken(options: TransportOptions & Credentials & { readonly signal?: AbortSignal }): Promise<AccessToken> {
  return fetchAccessToken(new Transport(options), options, options.signal);
}

/** Renewed this long before the token runs out, so a call never leaves with a token that expires in flight. */
export const RENEW_BEFORE_EXPIRY_MS = 60_000;

/**
 * The client's access token: asked for once and shared by every call until about a minute before it
 * expires, or until the API refuses it. Concurrent callers that find it missing or stale wait on the
 * same request rather than each asking for a token.
 */
export class TokenCache {
  private current: { readonly value: string; readonly renewAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly request: () => Promise<AccessToken>,
    private readonly now: () => number,
  ) {}

  get(): Promise<string> {
    const current = this.current;
    if (current && this.now() < current.renewAt) return Promise.resolve(current.value);
    return this.renew();
  }

  /** The API refused `token`: the next get() renews, unless another caller already has. */
  refused(token: string): void {
    if (this.current?.value === token) this.current = undefined;
  }

  private renew(): Promise<string> {
    if (this.pending) return this.pending;
    const issuedAt = this.now();
    const renewal = this.request().then(
      ({ accessToken, expiresIn }) => {
        const lifetimeMs = expiresIn * 1000;
        // A lifetime under two minutes (never the API's 3600 s) is renewed halfway rather than at once.
        const margin = Math.min(RENEW_BEFORE_EXPIRY_MS, lifetimeMs / 2);
        this.current = { value: accessToken, renewAt: issuedAt + lifetimeMs - margin };
        this.pending = undefined;
        return accessToken;
      },
      (error: unknown) => {
        this.pending = undefined;
        throw error;
      },
    );
    this.pending = renewal;
    return renewal;
  }
}
