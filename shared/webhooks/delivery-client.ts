import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, errors, request } from 'undici';
import { logger } from '../observability/logger';
import { DEFAULT_DELIVERY_PORTS, isPublicAddress, literalAddress, portOf } from './endpoint-url';
import { isLoopbackHost } from './loopback';
import { type ResponseExcerpt, readExcerpt } from './response-excerpt';

/** Why an attempt got no HTTP answer, as the delivery log names it. */
export type TransportErrorKind =
  | 'timeout'
  | 'connection_refused'
  | 'connection_reset'
  | 'dns_failure'
  | 'address_not_public'
  | 'tls_error'
  | 'url_not_allowed'
  | 'connection_error';

export type PostResult =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly retryAfter?: string;
      /** The start of the body, for the subscriber's delivery log. */
      readonly excerpt: ResponseExcerpt;
      /** From before the connection to the excerpt read. */
      readonly durationMs: number;
    }
  | { readonly kind: 'error'; readonly error: TransportErrorKind; readonly message: string; readonly durationMs: number };

export interface DeliveryClientOptions {
  /** Whole attempt, connect to last byte read: Standard Webhooks senders allow about 15 s, we allow 10. */
  readonly timeoutMs?: number;
  /** Local runtime only: also reach loopback receivers, over plain http too, on any port. */
  readonly allowLoopback?: boolean;
  /** Destination ports deliveries may go to; default DEFAULT_DELIVERY_PORTS. */
  readonly ports?: readonly number[];
  /** Tests: trust this CA in addition to the system's. */
  readonly ca?: string;
  /** Resolver; default the system's. */
  readonly lookup?: typeof dnsLookup;
}

class AddressNotPublicError extends Error {
  readonly code = 'EADDRNOTPUBLIC';
  constructor(hostname: string, address: string) {
    super(`${hostname} resolves to ${address}, which is not a public internet address`);
    this.name = 'AddressNotPublicError';
  }
}

/**
 * The connector's resolver: every address a name resolves to is vetted at each new connection, and
 * the socket connects to the address vetted, so a name that changes its answer between the check
 * and the connect (DNS rebinding) reaches nothing it should not.
 */
function vettedLookup(resolve: typeof dnsLookup, allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses as unknown as LookupAddress[];
      const refused = list.find((entry) => !(isPublicAddress(entry.address) || (allowLoopback && isLoopbackHost(hostname))));
      if (refused || list.length === 0) {
        return callback(new AddressNotPublicError(hostname, refused?.address ?? 'nothing'), '', 4);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

/** What the delivery log says of each kind: fixed sentences, never the transport's own text. */
const TRANSPORT_ERROR_SENTENCES: Readonly<Record<TransportErrorKind, string>> = {
  timeout: 'The endpoint did not answer in time.',
  connection_refused: 'The endpoint refused the connection.',
  connection_reset: 'The connection closed before the endpoint answered.',
  dns_failure: "The endpoint's host name did not resolve.",
  address_not_public: "The endpoint's host name resolves to an address that is not public.",
  tls_error: 'The TLS handshake with the endpoint failed.',
  url_not_allowed: 'The URL may not receive deliveries.',
  connection_error: 'The connection to the endpoint failed.',
};

function errorKind(error: unknown): TransportErrorKind {
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  if (
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError ||
    error instanceof errors.ConnectTimeoutError
  )
    return 'timeout';
  if ((error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError') return 'timeout';
  if (code === 'EADDRNOTPUBLIC') return 'address_not_public';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'connection_reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') return 'dns_failure';
  if (typeof code === 'string' && (code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL') || code === 'EPROTO'))
    return 'tls_error';
  return 'connection_error';
}

/**
 * POSTs deliveries the way an untrusted URL deserves: https only (loopback aside, locally), an IP
 * literal or every resolved address public, TLS verified, no redirect followed (a 3xx is an answer
 * like any other non-2xx), only the excerpt of the answer read (the connection closed past it), and
 * the whole attempt bounded in time. The call alone: what its answer means is the sender's to decide.
 */
export class DeliveryClient {
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly allowLoopback: boolean;
  private readonly ports: readonly number[];

  constructor(options: DeliveryClientOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.allowLoopback = options.allowLoopback ?? false;
    this.ports = options.ports ?? DEFAULT_DELIVERY_PORTS;
    this.agent = new Agent({
      connect: {
        lookup: vettedLookup(options.lookup ?? dnsLookup, this.allowLoopback),
        timeout: this.timeoutMs,
        rejectUnauthorized: true,
        ...(options.ca ? { ca: options.ca } : {}),
      },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      keepAliveTimeout: 4000,
      connections: 16,
    });
  }

  /** Why this URL may not be called now, or undefined when it may. */
  refusal(target: URL): string | undefined {
    const loopback = this.allowLoopback && isLoopbackHost(target.hostname);
    if (target.protocol !== 'https:' && !(loopback && target.protocol === 'http:')) return 'only https:// URLs receive deliveries';
    if (target.username || target.password) return 'the URL carries credentials';
    if (!loopback && !this.ports.includes(portOf(target))) return `deliveries go to port ${this.ports.join(' or ')} only`;
    const literal = literalAddress(target.hostname);
    if (!loopback && literal !== undefined && !isPublicAddress(literal)) return `${literal} is not a public internet address`;
    return undefined;
  }

  async post(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<PostResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { kind: 'error', error: 'url_not_allowed', message: 'the URL does not parse', durationMs: 0 };
    }
    const refused = this.refusal(target);
    if (refused) return { kind: 'error', error: 'url_not_allowed', message: refused, durationMs: 0 };
    try {
      const response = await request(target, {
        method: 'POST',
        headers: { ...headers, 'user-agent': 'Bureau-Webhooks/1' },
        body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // The deadline goes on counting while the excerpt is read: a body that trickles is cut off at it.
      const excerpt = await readExcerpt(response.body);
      const retryAfter = response.headers['retry-after'];
      return {
        kind: 'response',
        status: response.statusCode,
        ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
        excerpt,
        durationMs: elapsed(),
      };
    } catch (error) {
      const kind = errorKind(error);
      // The transport's own words (a TLS library's, a socket's) stay in our log: echoed to the client's
      // delivery log they would tell it what listens where, as seen from Bureau's addresses.
      const detail = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      logger.info('delivery got no HTTP answer', { error: kind, detail: detail.slice(0, 300) });
      return { kind: 'error', error: kind, message: TRANSPORT_ERROR_SENTENCES[kind], durationMs: elapsed() };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
