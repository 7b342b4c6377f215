import { setTimeout as delay } from 'node:timers/promises';
import { type Dispatcher, request } from 'undici';
import type { StreamName } from './stream-events';

/** The register's streaming host; the local runtime points consumers at its emulator instead. */
export const COMPANIES_HOUSE_STREAM_URL = 'https://stream.companieshouse.gov.uk';

/** What one connection yields: a line as sent (heartbeats are not yielded), or a line refused for its size. */
export type StreamItem = { readonly kind: 'line'; readonly text: string } | { readonly kind: 'oversize'; readonly bytes: number };

/** 416: the timepoint asked for is invalid or older than the register keeps. */
export class TimepointGoneError extends Error {
  constructor(
    readonly stream: StreamName,
    readonly timepoint: number | undefined,
    readonly body: string,
  ) {
    super(`The ${stream} stream refused timepoint ${timepoint} as invalid or too old (416)`);
    this.name = 'TimepointGoneError';
  }
}

/** Any answer but 200 and 416 when connecting. */
export class StreamHttpError extends Error {
  constructor(
    readonly stream: StreamName,
    readonly status: number,
    /** From Retry-After, when the answer had one. */
    readonly retryAfterMs: number | undefined,
    readonly body: string,
  ) {
    super(`The ${stream} stream answered ${status}${body ? `: ${body.slice(0, 200)}` : ''}`);
    this.name = 'StreamHttpError';
  }
}

/** Nothing came, not even a heartbeat, for the idle limit: the connection is presumed dead. */
export class StreamIdleError extends Error {
  constructor(
    readonly stream: StreamName,
    readonly idleMs: number,
  ) {
    super(`The ${stream} stream sent nothing for ${idleMs} ms`);
    this.name = 'StreamIdleError';
  }
}

/**
 * Lines out of chunks. A line longer than the limit is not kept: its bytes are dropped as they
 * come and only its size is reported once its end arrives, so one huge line costs no more memory
 * than the limit.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;

  constructor(private readonly maxLineBytes: number) {}

  /** Complete lines (and refusals) in this chunk; empty text is a heartbeat. */
  push(chunk: Buffer): Array<StreamItem | { readonly kind: 'heartbeat' }> {
    const out: Array<StreamItem | { readonly kind: 'heartbeat' }> = [];
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(0x0a, start);
      const stop = end === -1 ? chunk.length : end;
      const piece = chunk.subarray(start, stop);
      if (!this.discarding && this.size + piece.length > this.maxLineBytes) {
        this.discarding = true;
        this.parts = [];
      }
      this.size += piece.length;
      if (!this.discarding) this.parts.push(piece);
      if (end === -1) break;
      out.push(this.finishLine());
      start = end + 1;
    }
    return out;
  }

  /** What is left when the connection ends: a last line without its line break is still a line. */
  end(): Array<StreamItem | { readonly kind: 'heartbeat' }> {
    return this.size === 0 && !this.discarding ? [] : [this.finishLine()];
  }

  private finishLine(): StreamItem | { readonly kind: 'heartbeat' } {
    const size = this.size;
    const discarded = this.discarding;
    const text = discarded ? '' : Buffer.concat(this.parts, size).toString('utf8');
    this.parts = [];
    this.size = 0;
    this.discarding = false;
    if (discarded) return { kind: 'oversize', bytes: size };
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    return line.trim() === '' ? { kind: 'heartbeat' } : { kind: 'line', text: line };
  }
}

export interface StreamConnectionOptions {
  readonly baseUrl: string;
  readonly stream: StreamName;
  readonly streamKey: string;
  /** Ask for events from this timepoint on; none asks for what is published from now. */
  readonly timepoint?: number;
  /** Default 1 MiB. */
  readonly maxLineBytes?: number;
  /** Default 90 s: the register sends heartbeats far more often. */
  readonly idleTimeoutMs?: number;
  /** Default 30 s to receive the answer's headers. */
  readonly connectTimeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly dispatcher?: Dispatcher;
  /** Every heartbeat, for liveness counts. */
  readonly onHeartbeat?: () => void;
}

export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;
export const DEFAULT_IDLE_TIMEOUT_MS = 90_000;

export function streamUrl(baseUrl: string, stream: StreamName, timepoint?: number): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/${stream}`);
  if (timepoint !== undefined) url.searchParams.set('timepoint', String(timepoint));
  return url.toString();
}

/** The stream key is the Basic user name, with an empty password. */
export function basicAuthorization(streamKey: string): string {
  return `Basic ${Buffer.from(`${streamKey}:`).toString('base64')}`;
}

function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * One connection to one stream. Yields lines until the register ends the response (the generator
 * returns), the signal aborts (returns), or the connection fails: a refusal to connect throws
 * `StreamHttpError` or `TimepointGoneError`, silence longer than the idle limit `StreamIdleError`,
 * and a broken socket undici's own error. The idle clock runs only while waiting for bytes, never
 * while the caller holds a yielded line, so a slow apply is not mistaken for a dead stream.
 */
export async function* readStreamConnection(options: StreamConnectionOptions): AsyncGenerator<StreamItem, void, undefined> {
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const controller = new AbortController();
  const outer = options.signal;
  const abortFromOuter = () => controller.abort(outer?.reason);
  if (outer?.aborted) return;
  outer?.addEventListener('abort', abortFromOuter, { once: true });
  let body: Dispatcher.ResponseData['body'] | undefined;
  try {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(streamUrl(options.baseUrl, options.stream, options.timepoint), {
        method: 'GET',
        headers: { authorization: basicAuthorization(options.streamKey), accept: 'application/json' },
        signal: controller.signal,
        headersTimeout: options.connectTimeoutMs ?? 30_000,
        // Liveness is ours to judge (below), with the idle clock paused while the caller works.
        bodyTimeout: 0,
        ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      });
    } catch (error) {
      if (outer?.aborted) return;
      throw error;
    }
    body = response.body;
    if (response.statusCode !== 200) {
      const text = (await response.body.text().catch(() => '')).slice(0, 1000);
      if (response.statusCode === 416) throw new TimepointGoneError(options.stream, options.timepoint, text);
      throw new StreamHttpError(options.stream, response.statusCode, retryAfterMs(response.headers['retry-after']), text);
    }

    const splitter = new LineSplitter(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
    const chunks = response.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      let idle = false;
      const silence = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          idle = true;
          controller.abort();
          reject(new StreamIdleError(options.stream, idleMs));
        }, idleMs);
      });
      let next: IteratorResult<Buffer>;
      try {
        next = await Promise.race([chunks.next(), silence]);
      } catch (error) {
        if (idle) throw new StreamIdleError(options.stream, idleMs);
        if (outer?.aborted) return;
        throw error;
      } finally {
        clearTimeout(timer);
        silence.catch(() => {});
      }
      const items = next.done ? splitter.end() : splitter.push(next.value);
      for (const item of items) {
        if (item.kind === 'heartbeat') options.onHeartbeat?.();
        else yield item;
        if (outer?.aborted) return;
      }
      if (next.done) return;
    }
  } finally {
    outer?.removeEventListener('abort', abortFromOuter);
    if (!controller.signal.aborted) controller.abort();
    body?.destroy();
  }
}

export interface BackoffSettings {
  /** Default 60 s: the register asks for at least a minute after a 429. */
  readonly rateLimitedMs?: number;
  /** Default 10 s: the least wait after any other failure, doubled per consecutive one. */
  readonly failureMs?: number;
  /** Default 5 minutes. */
  readonly maxFailureMs?: number;
  /** After a connection ends normally (the register drops them at least daily). Default 1 s. */
  readonly endedMs?: number;
}

/**
 * How long to wait before reconnecting. 429: at least a minute (or Retry-After if longer);
 * anything else: at least ten seconds, doubling per consecutive failure up to the cap, plus up to
 * half again of random jitter so consumers that failed together do not return together.
 */
export function reconnectDelay(
  failure: unknown,
  consecutiveFailures: number,
  settings: BackoffSettings = {},
  random: () => number = Math.random,
): number {
  if (failure === undefined) return settings.endedMs ?? 1000;
  if (failure instanceof StreamHttpError && failure.status === 429) {
    const least = settings.rateLimitedMs ?? 60_000;
    return Math.max(least, failure.retryAfterMs ?? 0) + Math.floor(random() * least * 0.25);
  }
  const least = settings.failureMs ?? 10_000;
  const base = Math.min(settings.maxFailureMs ?? 300_000, least * 2 ** Math.max(0, consecutiveFailures - 1));
  return Math.max(least, base) + Math.floor(random() * base * 0.5);
}

export interface StreamReaderOptions extends Omit<StreamConnectionOptions, 'timepoint'> {
  /** Where to resume at each connection: the last timepoint the caller took + 1, or undefined for "from now". */
  readonly resumeFrom: () => number | undefined;
  readonly backoff?: BackoffSettings;
  /** Told of each reconnection and why (undefined: the register ended the response). */
  readonly onReconnect?: (reason: unknown, waitMs: number) => void;
  readonly random?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

async function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  await delay(ms, undefined, signal ? { signal } : {}).catch(() => {});
}

/**
 * A stream across connections: reconnects after every drop, failure or silence, resuming where
 * `resumeFrom` says, with the register's backoff. Returns when the signal aborts; throws only
 * `TimepointGoneError`, which the caller must decide about (record the gap, resume from now).
 */
export async function* readStream(options: StreamReaderOptions): AsyncGenerator<StreamItem, void, undefined> {
  const sleep = options.sleep ?? abortableSleep;
  let failures = 0;
  while (!options.signal?.aborted) {
    let failure: unknown;
    let received = false;
    const startedAt = Date.now();
    try {
      const timepoint = options.resumeFrom();
      for await (const item of readStreamConnection({ ...options, ...(timepoint === undefined ? {} : { timepoint }) })) {
        received = true;
        yield item;
      }
    } catch (error) {
      if (error instanceof TimepointGoneError) throw error;
      failure = error;
    }
    if (options.signal?.aborted) return;
    // An answer closed at once with nothing in it is a failure too, or a broken server would be asked again every second.
    if (failure === undefined && !received && Date.now() - startedAt < (options.backoff?.failureMs ?? 10_000)) {
      failure = new Error(`The ${options.stream} stream ended at once with no events`);
    }
    // A connection that carried events resets the count: only failures in a row grow the wait.
    failures = failure === undefined ? 0 : received ? 1 : failures + 1;
    const wait = reconnectDelay(failure, failures, options.backoff, options.random);
    options.onReconnect?.(failure, wait);
    await sleep(wait, options.signal);
  }
}
