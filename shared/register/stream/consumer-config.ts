import { numberSetting } from '../../config/number-settings';
import { isStreamName, type StreamName } from './stream-events';

/** The secret holding the Companies House streaming key, by ARN; the stack creates it empty. */
export const STREAM_KEY_SECRET_VARIABLE = 'STREAM_KEY_SECRET_ID';
/** Seconds before the function's timeout at which it stops reading and releases the stream to its successor. */
export const HANDOVER_SECONDS_VARIABLE = 'STREAM_HANDOVER_SECONDS';
/** The streams this stage consumes, comma-separated: an event naming another is refused. */
export const STREAMS_VARIABLE = 'STREAM_NAMES';
/** Where the streams are served; only a test points it elsewhere. */
export const STREAM_BASE_URL_VARIABLE = 'STREAM_BASE_URL';

export interface StreamConsumerConfig {
  readonly secretId: string;
  readonly handoverMs: number;
  readonly streams: readonly StreamName[];
  readonly baseUrl?: string;
}

/** The consumer's settings, read once at cold start; a bad value fails the first invocation, naming it. */
export function loadStreamConsumerConfig(env: NodeJS.ProcessEnv = process.env): StreamConsumerConfig {
  const secretId = env[STREAM_KEY_SECRET_VARIABLE];
  if (!secretId) throw new Error(`${STREAM_KEY_SECRET_VARIABLE} is not set`);
  const handover = numberSetting(env, HANDOVER_SECONDS_VARIABLE, 30, { min: 5, max: 300, whole: true });
  const streams = (env[STREAMS_VARIABLE] ?? '').split(',').filter(Boolean);
  const unknown = streams.filter((stream) => !isStreamName(stream));
  if (unknown.length > 0) throw new Error(`${STREAMS_VARIABLE} names streams Companies House does not have: ${unknown.join(', ')}`);
  const baseUrl = env[STREAM_BASE_URL_VARIABLE];
  return { secretId, handoverMs: handover * 1000, streams: streams as StreamName[], ...(baseUrl ? { baseUrl } : {}) };
}
