import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { awsClient } from '../../shared/aws/clients';
import { logger } from '../../shared/observability/logger';
import { BusinessMetric, count, metrics as serviceMetrics, streamMetrics } from '../../shared/observability/metrics';
import { observed } from '../../shared/observability/middleware';
import { createEventApplier } from '../../shared/register/stream/apply-events';
import { DynamoStreamCheckpoints } from '../../shared/register/stream/checkpoints';
import { type ConsumeResult, consumeStream } from '../../shared/register/stream/consumer';
import { loadStreamConsumerConfig, STREAM_KEY_SECRET_VARIABLE } from '../../shared/register/stream/consumer-config';
import { DynamoSetAsideEvents } from '../../shared/register/stream/set-aside';
import { isStreamName, type StreamName } from '../../shared/register/stream/stream-events';
import { COMPANIES_HOUSE_STREAM_URL } from '../../shared/register/stream/stream-reader';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { companiesTable, registerStreamsTable, tableName } from '../../shared/storage/tables';

/** What each stream's EventBridge schedule sends (infra/constructs/register-stream.ts). */
interface StreamTick {
  readonly stream?: string;
}

/** The stack made the secret empty and no key has been put yet, or the key put is blank. */
export class StreamKeyMissingError extends Error {
  constructor(secretId: string) {
    super(
      `The Companies House stream key secret (${STREAM_KEY_SECRET_VARIABLE} = ${secretId}) holds no key: put one as docs/deploy.md says`,
    );
    this.name = 'StreamKeyMissingError';
  }
}

/** Companies House refused the key (401 or 403): no reconnect will change that until a new key is put. */
export class StreamKeyRefusedError extends Error {
  constructor(stream: StreamName, reason: string) {
    super(`Companies House refused the stream key on the ${stream} stream (${reason}): put a valid key as docs/deploy.md says`);
    this.name = 'StreamKeyRefusedError';
  }
}

const config = loadStreamConsumerConfig();
const doc = sharedDocumentClient();
const checkpoints = new DynamoStreamCheckpoints(doc, tableName(registerStreamsTable));
const setAside = new DynamoSetAsideEvents(doc, tableName(registerStreamsTable));
const apply = createEventApplier({
  doc,
  companiesTable: tableName(companiesTable),
  onSkipped: (event, reason, detail) =>
    logger.warn('stream event skipped', {
      stream: event.stream,
      timepoint: event.timepoint,
      resourceUri: event.resourceUri,
      reason,
      detail,
    }),
});
const secrets = awsClient((clientConfig) => new SecretsManagerClient(clientConfig), 'secretsmanager');

/** A handover polls the lease this often: the gap between two connections is at most this and a TLS handshake. */
const LEASE_POLL_MS = 1_000;
/**
 * A batch waits this long for more events: each batch moves the checkpoint in a two-item transaction,
 * so at a few events a second this keeps those writes to one every 2 s, for 2 s of latency.
 */
const BATCH_WAIT_MS = 2_000;
/** Metrics are written this often during a run, so the 5-minute alarms see a run as it goes, not after 14 minutes. */
const METRICS_FLUSH_MS = 60_000;

/**
 * Instances live for hours when invoked every 14 minutes: a key read longer ago than this is read
 * again, so a new key put by the operator is in use within the hour even without a refusal.
 */
const KEY_MAX_AGE_MS = 60 * 60_000;
/** The answers to a connection that say the key itself is wrong, as the reader words them. */
const KEY_REFUSED = / answered 40[13]\b/;

let streamKey: { value: Promise<string>; readAt: number } | undefined;

/** Read at an instance's first invocation and hourly after; a failed read or a refused key is read again next time. Never logged. */
function readStreamKey(): Promise<string> {
  if (!streamKey || Date.now() - streamKey.readAt > KEY_MAX_AGE_MS) {
    const value = secrets
      .send(new GetSecretValueCommand({ SecretId: config.secretId }))
      .then(({ SecretString }) => {
        const key = SecretString?.trim();
        if (!key) throw new StreamKeyMissingError(config.secretId);
        return key;
      })
      .catch((error: unknown) => {
        streamKey = undefined;
        throw error instanceof ResourceNotFoundException ? new StreamKeyMissingError(config.secretId) : error;
      });
    streamKey = { value, readAt: Date.now() };
  }
  return streamKey.value;
}

function streamOf(event: StreamTick): StreamName {
  const stream = event.stream ?? '';
  if (!isStreamName(stream) || !config.streams.includes(stream)) {
    throw new Error(`No scheduled stream "${stream}": this stage consumes ${config.streams.join(', ') || 'none'}`);
  }
  return stream;
}

/**
 * One stream, from its checkpoint, until shortly before this invocation's timeout; then the lease is
 * released for the invocation its schedule has already started. Returns what the run did.
 */
export const handler = observed<StreamTick, ConsumeResult>(async (event: StreamTick, context: Context) => {
  const stream = streamOf(event);
  const key = await readStreamKey();
  const counted = streamMetrics(stream);
  const flushing = setInterval(() => {
    counted.flush();
    if (serviceMetrics.hasStoredMetrics()) serviceMetrics.publishStoredMetrics();
  }, METRICS_FLUSH_MS);
  // The reader reconnects after any refusal, with backoff: a refused key would spend the whole run doing so.
  const refused = new AbortController();
  let refusal: string | undefined;
  try {
    const result = await consumeStream({
      stream,
      baseUrl: config.baseUrl ?? COMPANIES_HOUSE_STREAM_URL,
      streamKey: key,
      checkpoints,
      apply,
      setAside,
      owner: context.awsRequestId,
      deadline: Date.now() + context.getRemainingTimeInMillis() - config.handoverMs,
      signal: refused.signal,
      leaseRetryMs: LEASE_POLL_MS,
      batchWaitMs: BATCH_WAIT_MS,
      log: {
        info: (message, attributes) => logger.info(message, { ...attributes }),
        warn: (message, attributes) => logger.warn(message, { ...attributes }),
        error: (message, attributes) => logger.error(message, { ...attributes }),
      },
      metrics: {
        applied: (_stream, outcome) => {
          counted.applied(outcome.applied + outcome.unchanged);
          counted.skipped(outcome.skipped);
          count(BusinessMetric.streamEventsRead, outcome.events);
        },
        lag: (_stream, lagMs) => counted.lagSeconds(lagMs / 1000),
        reconnect: (_stream, reason) => {
          counted.reconnect();
          if (KEY_REFUSED.test(reason) && !refusal) {
            refusal = reason;
            refused.abort();
          }
        },
        skipped: () => {
          counted.skipped(1);
          count(BusinessMetric.streamEventsRead);
        },
        gap: () => counted.gap(),
        setAside: (_stream, events) => count(BusinessMetric.streamEventsSetAside, events),
      },
    });
    if (refusal) {
      streamKey = undefined;
      throw new StreamKeyRefusedError(stream, refusal);
    }
    logger.info('stream run ended', { ...result });
    return result;
  } finally {
    clearInterval(flushing);
    counted.flush();
  }
});
