import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoStreamCheckpoints } from '../shared/register/stream/checkpoints';
import { type ConsumerLog, consumeStream } from '../shared/register/stream/consumer';
import { DynamoSetAsideEvents, type SetAsideEvents } from '../shared/register/stream/set-aside';
import { type ApplyEvents, STREAM_NAMES, type StreamName } from '../shared/register/stream/stream-events';
import { type RegisterStreamEmulator, startRegisterStreamEmulator } from './register-stream-emulator';
import {
  DemoRegisterActivity,
  publishDemoActivity,
  type RegisterActivityObserver,
  readDemoStreamCompanies,
} from './register-stream-publisher';
import { type ReplayDoor, StreamOutcomeLog, startReplayDoor } from './register-stream-replay-door';

/** Events a second the local register publishes in all; 0 publishes none. */
export const EVENTS_PER_SECOND_SETTING = 'REGISTER_STREAM_EVENTS_PER_SECOND';
const DEFAULT_EVENTS_PER_SECOND = 3;
/** The key the local consumers present; the emulator refuses any other, as the register does. */
const LOCAL_STREAM_KEY = 'local-stream-key';
const RESTART_MS = 5_000;

export class InvalidRegisterStreamSettingError extends Error {
  constructor(raw: string) {
    super(`${EVENTS_PER_SECOND_SETTING} must be a number of events a second from 0 to 1000, got "${raw}"`);
    this.name = 'InvalidRegisterStreamSettingError';
  }
}

/** The publishing rate: the setting when given, else a few a second with the demo data and none without (tests). */
export function eventsPerSecondFrom(environment: NodeJS.ProcessEnv, demoData: boolean): number {
  const raw = environment[EVENTS_PER_SECOND_SETTING]?.trim();
  if (!raw) return demoData ? DEFAULT_EVENTS_PER_SECOND : 0;
  const rate = Number(raw);
  if (!Number.isFinite(rate) || rate < 0 || rate > 1000) throw new InvalidRegisterStreamSettingError(raw);
  return rate;
}

export interface LocalRegisterStreamsOptions {
  /** Where the emulator keeps its events; none keeps them in memory (a runtime in memory). */
  readonly dataDir?: string;
  readonly doc: DynamoDBDocumentClient;
  readonly registerStreamsTable: string;
  readonly apply: ApplyEvents;
  readonly eventsPerSecond: number;
  /** The GB sample whose companies the demo activity is about. */
  readonly companiesFile: string;
  readonly log: (line: string) => void;
  readonly logError: (message: string, error: unknown) => void;
  /** Consumers' own lines (connections, refusals) too, not only the summaries. */
  readonly verbose?: boolean;
  /** Told of what the demo activity makes happen (accounts filed). */
  readonly observer?: RegisterActivityObserver;
}

export interface LocalRegisterStreams {
  readonly url: string;
  readonly streamKey: string;
  readonly emulator: RegisterStreamEmulator;
  /** Where `bureau streams replay` publishes recorded lines and reads their outcomes. */
  readonly replay: Pick<ReplayDoor, 'url' | 'token'>;
  stop(): Promise<void>;
}

/**
 * The register's streams on this machine: the emulator, demo activity published into it, and one
 * consumer per stream applying what it reads to the companies table under its lease, as deployed.
 * The consumers' owner is fixed: one runtime per data folder, so a runtime that crashed takes its
 * leases back at once instead of waiting for them to expire.
 */
export async function startLocalRegisterStreams(options: LocalRegisterStreamsOptions): Promise<LocalRegisterStreams> {
  const emulator = await startRegisterStreamEmulator({
    ...(options.dataDir ? { dataDir: join(options.dataDir) } : {}),
    streamKey: LOCAL_STREAM_KEY,
    // Dropped every ten minutes or so, so a demo shows the consumers resuming where they stopped.
    disconnectAfterMs: 10 * 60_000,
  });
  const checkpoints = new DynamoStreamCheckpoints(options.doc, options.registerStreamsTable);
  // What became of each event, by its place, for a replay to report: the applier's outcome or set aside.
  const outcomes = new StreamOutcomeLog();
  const apply: ApplyEvents = async (stream, events) => {
    const result = await options.apply(stream, events);
    for (const [index, outcome] of (result.outcomes ?? []).entries()) {
      const event = events[index];
      if (event) outcomes.record(stream, event.timepoint, outcome);
    }
    return result;
  };
  const setAsideStore = new DynamoSetAsideEvents(options.doc, options.registerStreamsTable);
  const setAside: SetAsideEvents = {
    keep: async (event, error) => {
      await setAsideStore.keep(event, error);
      outcomes.record(event.stream, event.timepoint, 'set-aside');
    },
    list: (stream) => setAsideStore.list(stream),
    remove: (stream, timepoint) => setAsideStore.remove(stream, timepoint),
  };
  const replay = await startReplayDoor(emulator, outcomes);
  const stopping = new AbortController();
  let applied = 0;
  let lastLagMs: number | undefined;
  const quiet = () => {};
  const log: ConsumerLog = options.verbose
    ? {
        info: (message, attributes) => options.log(`register stream: ${message} ${JSON.stringify(attributes ?? {})}`),
        warn: (message, attributes) => options.log(`register stream: ${message} ${JSON.stringify(attributes ?? {})}`),
        error: (message, attributes) => options.logError(`register stream: ${message}`, attributes),
      }
    : { info: quiet, warn: quiet, error: (message, attributes) => options.logError(`register stream: ${message}`, attributes) };

  const consume = (stream: StreamName) =>
    consumeStream({
      stream,
      baseUrl: emulator.url,
      streamKey: LOCAL_STREAM_KEY,
      checkpoints,
      apply,
      setAside,
      owner: 'local-runtime',
      // Deployed, a batch waits 2 s to spare checkpoint writes; here nothing is billed, and a replay
      // waits at every change of stream for the batch before it to be applied.
      batchWaitMs: 25,
      signal: stopping.signal,
      leaseRetryMs: 1_000,
      log,
      metrics: {
        applied: (_stream, outcome) => {
          applied += outcome.events;
        },
        lag: (_stream, ms) => {
          lastLagMs = ms;
        },
      },
    });
  // A consumer stops on a storage failure (DynamoDB Local restarting, say): it is started again, from
  // its checkpoint, for as long as the runtime runs, as the deployed schedule starts the next run.
  const supervise = async (stream: StreamName): Promise<void> => {
    while (!stopping.signal.aborted) {
      try {
        await consume(stream);
      } catch (error) {
        options.logError(`The ${stream} stream consumer stopped; starting it again in ${RESTART_MS / 1000} s`, error);
        await delay(RESTART_MS, undefined, { signal: stopping.signal }).catch(() => {});
      }
    }
  };
  const runs = STREAM_NAMES.map(supervise);

  // Ready only once every stream has a reader: a consumer with no checkpoint starts from what is
  // published after it connects, and the first events (demo activity, a replay) would go unread.
  const startedAt = Date.now();
  while (STREAM_NAMES.some((stream) => emulator.openConnections(stream) === 0) && Date.now() - startedAt < 10_000) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  let stopPublishing = () => {};
  if (options.eventsPerSecond > 0) {
    const activity = new DemoRegisterActivity(
      emulator,
      readDemoStreamCompanies(options.companiesFile),
      undefined,
      undefined,
      options.observer,
    );
    stopPublishing = publishDemoActivity(activity, options.eventsPerSecond, (error) =>
      options.logError('Publishing demo register events', error),
    );
  }
  const summary = setInterval(() => {
    if (applied === 0) return;
    const lag = lastLagMs === undefined ? '' : `, the last ${(lastLagMs / 1000).toFixed(1)} s after it was published`;
    options.log(`Register streams: ${applied} events applied in the last minute${lag}.`);
    applied = 0;
  }, 60_000);
  summary.unref();

  return {
    url: emulator.url,
    streamKey: LOCAL_STREAM_KEY,
    emulator,
    replay: { url: replay.url, token: replay.token },
    async stop() {
      clearInterval(summary);
      stopPublishing();
      stopping.abort();
      await Promise.all(runs);
      await replay.stop();
      await emulator.stop();
    },
  };
}
