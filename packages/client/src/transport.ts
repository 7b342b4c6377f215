import { BureauApiError, BureauConnectionError } from './errors.js';
import { parseRetryAfter, retryDelay, sleep } from './retry.js';

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportOptions {
  /** e.g. https://api.bureau.example or http://127.0.0.1:3000 */
  readonly baseUrl: string;
  readonly fetch?: FetchFunction;
  /** Each attempt's limit, answer body included. Default 10 s. */
  readonly timeoutMs?: number;
  /** Retries after the first attempt of an idempotent call. Default 3. */
  readonly maxRetries?: number;
  /** A `Retry-After` longer than this is not waited out: the error is thrown at once. Default 60 s. */
  readonly maxRetryAfterMs?: number;
  /** Milliseconds since the epoch, as Date.now. */
  readonly now?: () => number;
  /** For tests of the backoff: a number in [0, 1), as Math.random. */
  readonly random?: () => number;
}

export type QueryValue = string | number | Date | null | undefined;

export interface RequestSpec {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Starting with /v1, parameters already encoded. */
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Cancels the call, its waits between retries included. */
  readonly signal?: AbortSignal | undefined;
  /** May be sent again after a 429, a 503 or a lost connection. */
  readonly idempotent: boolean;
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed JSON, undefined when there was none (204, 304). */
  readonly body: unknown;
  /** The body as received, for callers that keep it. */
  readonly text: string;
  /** Requests sent for this answer: more than one when earlier attempts were lost or refused for now. */
  readonly attempts: number;
}

/** Statuses that say "not now" rather than "not this": worth the same request again later. */
const RETRYABLE_STATUS = new Set([429, 503]);

export class Transport {
  readonly baseUrl: string;
  readonly now: () => number;
  private readonly fetch: FetchFunction;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly maxRetryAfterMs: number;
  private readonly random: () => number;

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    // Called through globalThis so a fetch patched in later is used, and so it is never invoked detached (workers refuse that).
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxRetries = Math.max(0, options.maxRetries ?? 3);
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  /**
   * One call: attempts until an answer that is not worth retrying, or the retries run out. Error
   * statuses are returned, not thrown, so the caller can act on a 401 or a 304 first.
   */
  async send(spec: RequestSpec, authorization?: () => Promise<string>): Promise<ApiResponse> {
    const url = this.baseUrl + spec.path + queryString(spec.query);
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const retries = spec.idempotent ? this.maxRetries : 0;
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = { accept: 'application/json', ...spec.headers };
      if (body !== undefined) headers['content-type'] = 'application/json';
      // Read for every attempt: a retry after a long wait goes out with a token still valid.
      if (authorization) headers.authorization = `Bearer ${await authorization()}`;
      // A timer cleared once the answer is read, rather than AbortSignal.timeout: that one costs about 11 µs a
      // call in Node 20 and keeps its timer alive for the whole timeoutMs after the call has ended.
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new DOMException(`No answer within ${this.timeoutMs} ms`, 'TimeoutError'));
      }, this.timeoutMs);
      const signal = spec.signal ? AbortSignal.any([spec.signal, controller.signal]) : controller.signal;
      let response: ApiResponse;
      try {
        const answer = await this.fetch(url, { method: spec.method, headers, body, signal, redirect: 'manual' });
        const text = await answer.text();
        response = { status: answer.status, headers: answer.headers, text, body: parseBody(text, answer.headers), attempts: attempt + 1 };
      } catch (error) {
        clearTimeout(timer);
        if (spec.signal?.aborted) throw spec.signal.reason;
        if (attempt >= retries) throw new BureauConnectionError({ method: spec.method, path: spec.path, timedOut, cause: error });
        await sleep(retryDelay(attempt, undefined, this.random), spec.signal);
        continue;
      }
      clearTimeout(timer);
      if (attempt < retries && RETRYABLE_STATUS.has(response.status)) {
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'), this.now());
        if (retryAfter === undefined || retryAfter * 1000 <= this.maxRetryAfterMs) {
          await sleep(retryDelay(attempt, retryAfter, this.random), spec.signal);
          continue;
        }
      }
      return response;
    }
  }

  error(spec: Pick<RequestSpec, 'method' | 'path'>, response: ApiResponse): BureauApiError {
    return new BureauApiError({
      status: response.status,
      body: response.body ?? (response.text || undefined),
      method: spec.method,
      path: spec.path,
      retryAfter: parseRetryAfter(response.headers.get('retry-after'), this.now()),
      requestId: response.headers.get('apigw-requestid') ?? undefined,
    });
  }
}

function queryString(query: RequestSpec['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.append(name, value instanceof Date ? value.toISOString() : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function parseBody(text: string, headers: Headers): unknown {
  if (text === '') return undefined;
  const type = headers.get('content-type') ?? '';
  if (!type.includes('json')) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
