import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { isStreamName, STREAM_NAMES, type StreamEventType, type StreamName } from '../shared/register/stream/stream-events';

/**
 * The Companies House Streaming API on this machine, as the register serves it: `GET /<stream>?timepoint=N`
 * with the stream key as the Basic user, one JSON object per line on a response that stays open,
 * blank lines as heartbeats, connections ended on a schedule, 416 for a timepoint it no longer
 * keeps, 429 for a third connection to one stream. Events are kept on disk, so a restart resumes
 * the same timepoints.
 */

export interface StreamEventBody {
  readonly resource_kind: string;
  readonly resource_uri: string;
  readonly resource_id: string;
  readonly data: Record<string, unknown>;
  readonly type?: StreamEventType;
  /** Extra fields of `event` (the companies stream names `fields_changed`). */
  readonly event?: Record<string, unknown>;
}

export interface RegisterStreamEmulatorOptions {
  /** Where each stream's events are kept (one file per stream); none keeps them in memory only. */
  readonly dataDir?: string;
  /** Default 0: a free port. */
  readonly port?: number;
  readonly streamKey: string;
  /** Blank line after this much silence. Default 30 s (the register's are more frequent than its 90 s rule). */
  readonly heartbeatMs?: number;
  /** Each connection is ended after about this long (±25 %). Default 1 h; 0 never. */
  readonly disconnectAfterMs?: number;
  /** Events kept per stream; a timepoint older than these is answered 416. Default 50,000. */
  readonly retain?: number;
  /** Default 2, as the register allows. */
  readonly maxConnectionsPerStream?: number;
  /** First timepoint of an empty stream. Default 1. */
  readonly firstTimepoint?: number;
  readonly now?: () => number;
  readonly random?: () => number;
  /** Told of each event stored, with the instant it was published. */
  readonly onPublish?: (stream: StreamName, timepoint: number, publishedAtMs: number) => void;
}

export interface RegisterStreamEmulator {
  readonly url: string;
  /** Stores an event and sends it to every open connection; returns its timepoint. */
  publish(stream: StreamName, body: StreamEventBody): number;
  /** Stores a line exactly as given (malformed, oversize…) under the next timepoint, and sends it. */
  publishRaw(stream: StreamName, line: string): number;
  /**
   * Stores a line recorded from the register as it was sent. Its own `event.timepoint` is kept when
   * it is after the stream's latest (the register's timepoints have gaps too); otherwise only that
   * field is renumbered to the stream's next position, since a stream never goes back.
   */
  publishRecorded(stream: StreamName, line: string): { timepoint: number; renumbered: boolean };
  /** The last timepoint published, or undefined for a stream with none yet. */
  latest(stream: StreamName): number | undefined;
  /** Answers the next `count` connections to the stream with this status instead of events. */
  failNextConnections(stream: StreamName, status: number, count?: number, retryAfterSeconds?: number): void;
  /** Open connections stop sending anything, heartbeats included, until they are dropped. */
  stall(stream: StreamName): void;
  /** Ends every open connection to the stream (or to all) the way the register's daily drop does. */
  dropConnections(stream?: StreamName): void;
  /** Forgets events up to and including this timepoint, as the register forgets old ones. */
  forgetThrough(stream: StreamName, timepoint: number): void;
  /** Connections currently open to the stream. */
  openConnections(stream: StreamName): number;
  /** Every connection attempt so far, with what it asked for and what it got. */
  readonly connections: ReadonlyArray<{ stream: StreamName; timepoint?: number; status: number; at: number }>;
  stop(): Promise<void>;
}

interface StoredLine {
  readonly t: number;
  readonly line: string;
}

interface StreamState {
  readonly lines: StoredLine[];
  next: number;
  /** Lowest timepoint still answered; below it, 416. */
  floor: number;
  readonly open: Set<Connection>;
  readonly failures: Array<{ status: number; retryAfterSeconds?: number }>;
  fileLines: number;
}

interface Connection {
  readonly res: ServerResponse;
  lastWriteAt: number;
  stalled: boolean;
  readonly timers: NodeJS.Timeout[];
}

/** The register writes published_at to the second, with no zone. */
export function registerTimestamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

export async function startRegisterStreamEmulator(options: RegisterStreamEmulatorOptions): Promise<RegisterStreamEmulator> {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const heartbeatMs = options.heartbeatMs ?? 30_000;
  const disconnectAfterMs = options.disconnectAfterMs ?? 3_600_000;
  const retain = options.retain ?? 50_000;
  const maxConnections = options.maxConnectionsPerStream ?? 2;
  const firstTimepoint = options.firstTimepoint ?? 1;
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const fileOf = (stream: StreamName) => (options.dataDir ? join(options.dataDir, `${stream}.jsonl`) : undefined);

  const states = new Map<StreamName, StreamState>();
  for (const stream of STREAM_NAMES) {
    const lines = load(fileOf(stream));
    const last = lines[lines.length - 1];
    const kept = lines.slice(-retain);
    states.set(stream, {
      lines: kept,
      next: last ? last.t + 1 : firstTimepoint,
      floor: kept[0]?.t ?? (last ? last.t + 1 : firstTimepoint),
      open: new Set(),
      failures: [],
      fileLines: lines.length,
    });
  }
  const connections: Array<{ stream: StreamName; timepoint?: number; status: number; at: number }> = [];
  const stateOf = (stream: StreamName) => states.get(stream) as StreamState;

  function store(stream: StreamName, line: string, t: number): void {
    const state = stateOf(stream);
    state.lines.push({ t, line });
    state.next = t + 1;
    if (state.lines.length > retain) {
      state.lines.splice(0, state.lines.length - retain);
      state.floor = state.lines[0]?.t ?? state.next;
    }
    const file = fileOf(stream);
    if (file) {
      appendFileSync(file, `${JSON.stringify({ t, line })}\n`);
      state.fileLines += 1;
      // Rewritten, not grown for ever: the file never holds much more than what is answered.
      if (state.fileLines > 2 * retain) {
        writeFileSync(`${file}.tmp`, state.lines.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
        renameSync(`${file}.tmp`, file);
        state.fileLines = state.lines.length;
      }
    }
    for (const connection of state.open) send(connection, line);
  }

  function send(connection: Connection, line: string): void {
    if (connection.stalled || connection.res.writableEnded) return;
    connection.res.write(`${line}\n`);
    connection.lastWriteAt = now();
  }

  function endConnection(connection: Connection, abruptly = false): void {
    for (const timer of connection.timers) clearTimeout(timer);
    if (abruptly) connection.res.destroy();
    else if (!connection.res.writableEnded) connection.res.end();
  }

  function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
    res.end(`${message}\n`);
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const name = decodeURIComponent(url.pathname.slice(1));
    if (!isStreamName(name)) {
      refuse(res, 404, 'Not Found');
      return;
    }
    const stream = name;
    const timepointText = url.searchParams.get('timepoint');
    const timepoint = timepointText !== null && /^\d{1,15}$/.test(timepointText) ? Number(timepointText) : undefined;
    const record = (status: number) => connections.push({ stream, ...(timepoint === undefined ? {} : { timepoint }), status, at: now() });
    if (req.method !== 'GET') {
      record(405);
      refuse(res, 405, 'Method Not Allowed', { allow: 'GET' });
      return;
    }
    const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
    const user = scheme?.toLowerCase() === 'basic' && encoded ? Buffer.from(encoded, 'base64').toString('utf8').split(':')[0] : undefined;
    if (user !== options.streamKey) {
      record(401);
      refuse(res, 401, 'Unauthorized', { 'www-authenticate': 'Basic realm="stream"' });
      return;
    }
    const state = stateOf(stream);
    const failure = state.failures.shift();
    if (failure) {
      record(failure.status);
      refuse(
        res,
        failure.status,
        'Service unavailable',
        failure.retryAfterSeconds === undefined ? {} : { 'retry-after': String(failure.retryAfterSeconds) },
      );
      return;
    }
    if (state.open.size >= maxConnections) {
      record(429);
      refuse(res, 429, 'Too Many Requests: at most two connections per stream', { 'retry-after': '60' });
      return;
    }
    if (timepointText !== null && (timepoint === undefined || timepoint < state.floor || timepoint > state.next)) {
      record(416);
      refuse(res, 416, `Requested Range Not Satisfiable: timepoint ${timepointText} is not held (from ${state.floor} to ${state.next})`);
      return;
    }
    record(200);
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const connection: Connection = { res, lastWriteAt: now(), stalled: false, timers: [] };
    if (timepoint !== undefined) {
      const start = firstIndexAtOrAfter(state.lines, timepoint);
      for (let i = start; i < state.lines.length; i++) send(connection, (state.lines[i] as StoredLine).line);
    }
    state.open.add(connection);
    const beat = setInterval(
      () => {
        if (!connection.stalled && now() - connection.lastWriteAt >= heartbeatMs * 0.9) {
          connection.res.write('\n');
          connection.lastWriteAt = now();
        }
      },
      Math.max(10, heartbeatMs),
    );
    connection.timers.push(beat);
    if (disconnectAfterMs > 0) {
      connection.timers.push(setTimeout(() => endConnection(connection), disconnectAfterMs * (0.75 + random() * 0.5)));
    }
    const forget = () => {
      for (const timer of connection.timers) clearTimeout(timer);
      state.open.delete(connection);
    };
    res.on('close', forget);
  }

  const server = createServer(handle);
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    publish(stream, body) {
      const state = stateOf(stream);
      const t = state.next;
      const publishedAt = now();
      const line = JSON.stringify({
        resource_kind: body.resource_kind,
        resource_uri: body.resource_uri,
        resource_id: body.resource_id,
        data: body.data,
        event: { ...body.event, timepoint: t, published_at: registerTimestamp(publishedAt), type: body.type ?? 'changed' },
      });
      store(stream, line, t);
      options.onPublish?.(stream, t, publishedAt);
      return t;
    },
    publishRaw(stream, line) {
      const t = stateOf(stream).next;
      store(stream, line, t);
      return t;
    },
    publishRecorded(stream, line) {
      const next = stateOf(stream).next;
      const recorded = JSON.parse(line) as { event?: Record<string, unknown> };
      const own = recorded.event?.timepoint;
      if (typeof own === 'number' && Number.isSafeInteger(own) && own >= next) {
        store(stream, line, own);
        return { timepoint: own, renumbered: false };
      }
      store(stream, JSON.stringify({ ...recorded, event: { ...recorded.event, timepoint: next } }), next);
      return { timepoint: next, renumbered: true };
    },
    latest(stream) {
      const state = stateOf(stream);
      return state.next > firstTimepoint || state.lines.length > 0 ? state.next - 1 : undefined;
    },
    failNextConnections(stream, status, count = 1, retryAfterSeconds) {
      for (let i = 0; i < count; i++)
        stateOf(stream).failures.push({ status, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) });
    },
    stall(stream) {
      for (const connection of stateOf(stream).open) connection.stalled = true;
    },
    dropConnections(stream) {
      for (const name of stream ? [stream] : STREAM_NAMES) for (const connection of [...stateOf(name).open]) endConnection(connection);
    },
    forgetThrough(stream, timepoint) {
      const state = stateOf(stream);
      state.lines.splice(0, firstIndexAtOrAfter(state.lines, timepoint + 1));
      state.floor = Math.max(state.floor, timepoint + 1);
    },
    openConnections: (stream) => stateOf(stream).open.size,
    async stop() {
      for (const state of states.values()) for (const connection of [...state.open]) endConnection(connection, true);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function firstIndexAtOrAfter(lines: readonly StoredLine[], timepoint: number): number {
  let lo = 0;
  let hi = lines.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((lines[mid] as StoredLine).t < timepoint) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function load(file: string | undefined): StoredLine[] {
  if (!file) return [];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const lines: StoredLine[] = [];
  for (const row of text.split('\n')) {
    if (!row) continue;
    try {
      const entry = JSON.parse(row) as StoredLine;
      if (Number.isSafeInteger(entry.t) && typeof entry.line === 'string') lines.push(entry);
    } catch {
      // A line cut short by a crash mid-write: the events before it still count.
    }
  }
  return lines;
}
