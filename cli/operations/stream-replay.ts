import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { isHeartbeat, parseStreamLine, RESOURCE_KINDS, STREAM_NAMES, type StreamName } from '../../shared/register/stream/stream-events';

/**
 * `bureau streams replay <file>`: a recording of the Companies House streams, one event a line as
 * the register sends it, published into the local runtime's register streams in file order. Order
 * across streams carries meaning (a filing, then the profile it changed), so a line is applied
 * before a line of another stream is published; lines of one stream in a row go out together.
 */

export type ReplayedOutcome = 'applied' | 'unchanged' | 'skipped' | 'set-aside';

/** The local runtime's door for replays (local/register-stream-replay-door.ts). */
export interface ReplayDoorClient {
  publish(stream: StreamName, line: string): Promise<{ timepoint: number; renumbered: boolean }>;
  /** The outcomes known so far of these timepoints; those not yet applied are absent. */
  outcomes(stream: StreamName, timepoints: readonly number[]): Promise<Readonly<Record<string, ReplayedOutcome>>>;
}

export interface ReplayedLine {
  readonly line: number;
  readonly stream: StreamName;
  readonly timepoint: number;
  readonly resourceUri: string;
  readonly outcome: ReplayedOutcome | 'not-applied-in-time';
}

export interface RefusedLine {
  readonly line: number;
  readonly reason: string;
}

export interface ReplaySummary {
  readonly published: number;
  readonly applied: number;
  readonly unchanged: number;
  readonly skipped: number;
  readonly setAside: number;
  /** Published but not applied within the wait. */
  readonly notAppliedInTime: number;
  /** Lines whose own timepoint was not after their stream's latest, given the stream's next one. */
  readonly renumbered: number;
  readonly refused: readonly RefusedLine[];
  readonly lines: readonly ReplayedLine[];
}

export interface ReplayOptions {
  /** How long to wait for the consumers to apply what was published. Default 60 s. */
  readonly waitMs?: number;
  readonly pollMs?: number;
  readonly onProgress?: (published: number) => void;
}

const STREAM_OF_KIND = new Map<string, StreamName>(STREAM_NAMES.flatMap((stream) => RESOURCE_KINDS[stream].map((kind) => [kind, stream])));
const MAX_ASKED = 500;

/** The stream a recorded line belongs to, by its resource kind, or why it cannot be published. */
export function streamOfLine(line: string): { ok: true; stream: StreamName; resourceUri: string } | { ok: false; reason: string } {
  let kind: unknown;
  try {
    kind = (JSON.parse(line) as { resource_kind?: unknown }).resource_kind;
  } catch (error) {
    return { ok: false, reason: `not JSON: ${(error as Error).message}` };
  }
  const stream = typeof kind === 'string' ? STREAM_OF_KIND.get(kind) : undefined;
  if (!stream) return { ok: false, reason: `resource_kind ${JSON.stringify(kind ?? null)} belongs to no stream Bureau reads` };
  // Refused here as the consumer would refuse it, so that every line published has an outcome to wait for.
  const parsed = parseStreamLine(stream, line);
  if (!parsed.ok) return { ok: false, reason: `${parsed.reason}: ${parsed.detail}` };
  return { ok: true, stream, resourceUri: parsed.event.resourceUri };
}

export async function replayStreamFile(file: string, door: ReplayDoorClient, options: ReplayOptions = {}): Promise<ReplaySummary> {
  const waitMs = options.waitMs ?? 60_000;
  const pollMs = options.pollMs ?? 5;
  const refused: RefusedLine[] = [];
  const lines: Array<Omit<ReplayedLine, 'outcome'> & { outcome?: ReplayedLine['outcome'] }> = [];
  let renumbered = 0;
  let pending: typeof lines = [];

  async function settle(): Promise<void> {
    const deadline = Date.now() + waitMs;
    while (pending.length > 0) {
      const stream = (pending[0] as (typeof lines)[number]).stream;
      const asked = pending.slice(0, MAX_ASKED);
      const known = await door.outcomes(
        stream,
        asked.map((entry) => entry.timepoint),
      );
      for (const entry of asked) entry.outcome = known[String(entry.timepoint)];
      pending = pending.filter((entry) => entry.outcome === undefined);
      if (pending.length === 0) return;
      if (Date.now() > deadline) {
        for (const entry of pending) entry.outcome = 'not-applied-in-time';
        pending = [];
        return;
      }
      await delay(pollMs);
    }
  }

  const reader = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  for await (const text of reader) {
    number += 1;
    if (isHeartbeat(text)) continue;
    const routed = streamOfLine(text);
    if (!routed.ok) {
      refused.push({ line: number, reason: routed.reason });
      continue;
    }
    if (pending.length > 0 && (pending[0] as (typeof lines)[number]).stream !== routed.stream) await settle();
    const published = await door.publish(routed.stream, text);
    if (published.renumbered) renumbered += 1;
    const entry = { line: number, stream: routed.stream, timepoint: published.timepoint, resourceUri: routed.resourceUri };
    lines.push(entry);
    pending.push(entry);
    options.onProgress?.(lines.length);
  }
  await settle();

  const count = (outcome: ReplayedLine['outcome']) => lines.filter((entry) => entry.outcome === outcome).length;
  return {
    published: lines.length,
    applied: count('applied'),
    unchanged: count('unchanged'),
    skipped: count('skipped'),
    setAside: count('set-aside'),
    notAppliedInTime: count('not-applied-in-time'),
    renumbered,
    refused,
    lines: lines as ReplayedLine[],
  };
}

/** The door of a running local runtime, over HTTP with its token. */
export function httpReplayDoor(url: string, token: string): ReplayDoorClient {
  const headers = { authorization: `Bearer ${token}` };
  const failed = async (response: Response) => new Error(`the local runtime answered ${response.status}: ${await response.text()}`);
  return {
    async publish(stream, line) {
      const response = await fetch(`${url}/streams/${stream}/events`, { method: 'POST', headers, body: line });
      if (response.status !== 201) throw await failed(response);
      return (await response.json()) as { timepoint: number; renumbered: boolean };
    },
    async outcomes(stream, timepoints) {
      const response = await fetch(`${url}/streams/${stream}/outcomes?timepoints=${timepoints.join(',')}`, { headers });
      if (!response.ok) throw await failed(response);
      return ((await response.json()) as { outcomes: Record<string, ReplayedOutcome> }).outcomes;
    },
  };
}
