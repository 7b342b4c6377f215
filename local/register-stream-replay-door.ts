import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isStreamName, type StreamName } from '../shared/register/stream/stream-events';
import type { RegisterStreamEmulator } from './register-stream-emulator';

/**
 * How `bureau streams replay` reaches a running runtime: it publishes recorded lines into the
 * local register streams and asks what the consumers made of each, by stream and timepoint.
 * Listens on 127.0.0.1 only, behind a token kept in runtime.json (readable by its owner alone).
 */

/** What became of a published event: the applier's outcome, or set aside as unappliable. */
export type ReplayOutcome = 'applied' | 'unchanged' | 'skipped' | 'set-aside';

/** The latest outcome of each recently applied event; the oldest are forgotten beyond `capacity`. */
export class StreamOutcomeLog {
  private readonly outcomes = new Map<string, ReplayOutcome>();

  constructor(private readonly capacity = 100_000) {}

  record(stream: StreamName, timepoint: number, outcome: ReplayOutcome): void {
    const key = `${stream}:${timepoint}`;
    // Re-inserted so that the map's order stays the order of the latest records.
    this.outcomes.delete(key);
    this.outcomes.set(key, outcome);
    if (this.outcomes.size > this.capacity) {
      const oldest = this.outcomes.keys().next().value;
      if (oldest !== undefined) this.outcomes.delete(oldest);
    }
  }

  get(stream: StreamName, timepoint: number): ReplayOutcome | undefined {
    return this.outcomes.get(`${stream}:${timepoint}`);
  }
}

export interface ReplayDoor {
  readonly url: string;
  readonly token: string;
  stop(): Promise<void>;
}

/** One recorded line a request may carry: the register's own events are far smaller. */
const MAX_LINE_BYTES = 1024 * 1024;
const MAX_TIMEPOINTS_ASKED = 1_000;

export async function startReplayDoor(
  emulator: Pick<RegisterStreamEmulator, 'publishRecorded'>,
  outcomes: StreamOutcomeLog,
): Promise<ReplayDoor> {
  const token = randomBytes(24).toString('base64url');
  const expected = Buffer.from(`Bearer ${token}`);

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const authorised = (req: IncomingMessage) => {
    const given = Buffer.from(req.headers.authorization ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!authorised(req)) return answer(res, 401, { error: 'unauthorized', message: 'the token in runtime.json is required' });
    const url = new URL(req.url ?? '/', 'http://localhost');
    const [, first, name, what] = url.pathname.split('/');
    if (first !== 'streams' || !name || !isStreamName(name) || (what !== 'events' && what !== 'outcomes')) {
      return answer(res, 404, { error: 'not_found', message: 'POST /streams/<stream>/events or GET /streams/<stream>/outcomes' });
    }
    const stream: StreamName = name;
    if (what === 'events') {
      if (req.method !== 'POST') return answer(res, 405, { error: 'method_not_allowed', message: 'POST a recorded line' });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of req) {
        size += (chunk as Buffer).length;
        if (size > MAX_LINE_BYTES) return answer(res, 413, { error: 'too_large', message: `a line is at most ${MAX_LINE_BYTES} bytes` });
        chunks.push(chunk as Buffer);
      }
      const line = Buffer.concat(chunks).toString('utf8');
      try {
        JSON.parse(line);
      } catch {
        return answer(res, 400, { error: 'invalid_line', message: 'the line is not JSON' });
      }
      return answer(res, 201, emulator.publishRecorded(stream, line));
    }
    if (req.method !== 'GET') return answer(res, 405, { error: 'method_not_allowed', message: 'GET the outcomes' });
    const asked = (url.searchParams.get('timepoints') ?? '').split(',').filter(Boolean);
    if (asked.length === 0 || asked.length > MAX_TIMEPOINTS_ASKED || !asked.every((text) => /^\d{1,16}$/.test(text))) {
      return answer(res, 400, {
        error: 'invalid_timepoints',
        message: `timepoints: 1 to ${MAX_TIMEPOINTS_ASKED} whole numbers, comma-separated`,
      });
    }
    const found: Record<string, ReplayOutcome> = {};
    for (const text of asked) {
      const outcome = outcomes.get(stream, Number(text));
      if (outcome) found[text] = outcome;
    }
    return answer(res, 200, { outcomes: found });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => answer(res, 500, { error: 'internal', message: (error as Error).message }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
