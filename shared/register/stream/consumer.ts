import { setTimeout as delay } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { LeaseLostError, type StreamCheckpoints } from './checkpoints';
import { isTransient, type SetAsideEvents } from './set-aside';
import { type ApplyEvents, parseStreamLine, publishedAtMillis, type StreamEvent, type StreamName } from './stream-events';
import { type BackoffSettings, readStream, type StreamItem, TimepointGoneError } from './stream-reader';

export interface ConsumerLog {
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
}

/** Hooks for whatever records metrics (CloudWatch deployed, counters in tests). */
export interface ConsumerMetrics {
  applied?(stream: StreamName, outcome: { applied: number; unchanged: number; skipped: number; events: number }): void;
  /** Milliseconds from the register's published_at of the last applied event to now. */
  lag?(stream: StreamName, lagMs: number): void;
  reconnect?(stream: StreamName, reason: string): void;
  /** Lines refused before apply: malformed, unknown kinds, oversize. */
  skipped?(stream: StreamName, reason: string): void;
  gap?(stream: StreamName, from: number | undefined): void;
  /** Events that failed alone for a reason another try would meet again, kept aside so the stream moves on. */
  setAside?(stream: StreamName, events: number): void;
}

export interface ConsumeStreamOptions {
  readonly stream: StreamName;
  readonly baseUrl: string;
  readonly streamKey: string;
  readonly checkpoints: StreamCheckpoints;
  readonly apply: ApplyEvents;
  /**
   * Where an event that cannot be applied is kept (set-aside.ts). Without it, a batch whose apply
   * throws is applied again until it succeeds, whatever the error.
   */
  readonly setAside?: SetAsideEvents;
  /** This consumer's name in the lease: unique per process and run. */
  readonly owner: string;
  /** Epoch milliseconds at which to stop cleanly (a Lambda's remaining time less a margin). */
  readonly deadline?: number;
  readonly signal?: AbortSignal;
  readonly metrics?: ConsumerMetrics;
  readonly log: ConsumerLog;
  /** Events per apply at most. Default 500. */
  readonly batchSize?: number;
  /** How long the first event of a batch waits for others. Default 200 ms. */
  readonly batchWaitMs?: number;
  /** Default 30 s, renewed every third of it. */
  readonly leaseTtlMs?: number;
  /** How often to ask again for a lease another consumer holds. Default 5 s. */
  readonly leaseRetryMs?: number;
  /** First wait before applying a failed batch again, doubled up to a minute. Default 1 s. */
  readonly applyRetryMs?: number;
  readonly maxLineBytes?: number;
  readonly idleTimeoutMs?: number;
  readonly backoff?: BackoffSettings;
  readonly dispatcher?: Dispatcher;
  readonly now?: () => number;
}

export type ConsumeStopReason = 'deadline' | 'signal' | 'lease-lost' | 'lease-held';

export interface ConsumeResult {
  readonly stream: StreamName;
  readonly stoppedBecause: ConsumeStopReason;
  /** Events handed to apply in batches whose apply succeeded. */
  readonly events: number;
  readonly batches: number;
  readonly skipped: number;
  readonly reconnects: number;
  /** The checkpoint when the consumer stopped. */
  readonly checkpoint?: number;
  /** Events set aside as unappliable, when any were. */
  readonly setAside?: number;
}

class Stop extends Error {
  constructor(readonly reason: ConsumeStopReason) {
    super(reason);
  }
}

const describeError = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

/**
 * Consumes one register stream under its lease: reads from the checkpoint + 1, hands events to
 * `apply` in batches, and moves the checkpoint to a batch's last timepoint only once its apply has
 * returned, so a crash at any point leaves the stream to be read again from before the batch (apply
 * must be idempotent; it sees duplicates anyway). A batch whose apply throws is applied again, with
 * backoff, until it succeeds or the consumer stops; the checkpoint never passes it, unless its failure
 * is one another try would meet again (no throttling, no network, no lost race: set-aside.ts) and a
 * place to set events aside is given: then each of its events is applied alone, and one that still
 * fails that way is set aside, counted and logged, so one poisoned event never stops its stream.
 * A transient failure of an event alone is retried as a batch's is. At the deadline the batch in
 * hand is applied once more if it can be; on the signal it is left to be read again. Either way the
 * lease is handed over.
 */
export async function consumeStream(options: ConsumeStreamOptions): Promise<ConsumeResult> {
  const { stream, checkpoints, owner, log, metrics } = options;
  const now = options.now ?? Date.now;
  const batchSize = options.batchSize ?? 500;
  const batchWaitMs = options.batchWaitMs ?? 200;
  const leaseTtlMs = options.leaseTtlMs ?? 30_000;
  const stopper = new AbortController();
  let stopReason: ConsumeStopReason | undefined;
  const stop = (reason: ConsumeStopReason) => {
    stopReason ??= reason;
    stopper.abort();
  };
  const onSignal = () => stop('signal');
  if (options.signal?.aborted) stop('signal');
  options.signal?.addEventListener('abort', onSignal, { once: true });
  const deadlineTimer =
    options.deadline === undefined ? undefined : setTimeout(() => stop('deadline'), Math.max(0, options.deadline - now()));

  let events = 0;
  let batches = 0;
  let skipped = 0;
  let reconnects = 0;
  let setAsideCount = 0;
  let checkpoint: number | undefined;
  let leaseHeld = false;
  let leaseExpiresAt = 0;
  let renewTimer: NodeJS.Timeout | undefined;

  const renew = async (): Promise<void> => {
    const at = now();
    if (!(await checkpoints.renew(stream, owner, leaseTtlMs))) {
      leaseHeld = false;
      log.warn('Stream lease lost to another consumer', { stream, owner });
      stop('lease-lost');
      throw new Stop('lease-lost');
    }
    leaseExpiresAt = at + leaseTtlMs;
  };

  try {
    // The lease first: until it is ours, nothing is read.
    while (!(await checkpoints.acquire(stream, owner, leaseTtlMs))) {
      if (stopper.signal.aborted) return result('lease-held');
      await delay(options.leaseRetryMs ?? 5_000, undefined, { signal: stopper.signal }).catch(() => {});
      if (stopper.signal.aborted) return result('lease-held');
    }
    leaseHeld = true;
    leaseExpiresAt = now() + leaseTtlMs;
    renewTimer = setInterval(() => {
      renew().catch((error: unknown) => {
        if (!(error instanceof Stop)) log.error('Renewing the stream lease failed', { stream, owner, error: describeError(error) });
      });
    }, leaseTtlMs / 3);
    renewTimer.unref?.();

    const stored = await checkpoints.read(stream);
    checkpoint = stored?.timepoint;
    let taken = checkpoint;
    log.info('Stream consumer started', { stream, owner, from: taken === undefined ? 'now' : taken + 1 });

    let batch: StreamEvent[] = [];
    let batchStartedAt = 0;
    let gapOpen: { from: number | undefined; at: string } | undefined;
    // Reading went on from "now" after a 416: the next checkpoint may be lower than the one refused.
    let resumedAfterGap = false;

    /**
     * Each event of a batch that failed, alone and in order: a transient failure is retried with
     * backoff, a failure that comes again the same way twice sets the event aside.
     */
    const applyApart = async (toApply: readonly StreamEvent[], setAside: SetAsideEvents) => {
      const total = { applied: 0, unchanged: 0, skipped: 0 };
      for (const event of toApply) {
        let wait = options.applyRetryMs ?? 1_000;
        let lasting = 0;
        for (;;) {
          if (leaseExpiresAt - now() < leaseTtlMs / 2) await renew();
          try {
            const outcome = await options.apply(stream, [event]);
            total.applied += outcome.applied;
            total.unchanged += outcome.unchanged;
            total.skipped += outcome.skipped;
            break;
          } catch (error) {
            if (!isTransient(error) && ++lasting >= 2) {
              await setAside.keep(event, describeError(error));
              setAsideCount += 1;
              total.skipped += 1;
              metrics?.setAside?.(stream, 1);
              log.error('A stream event that cannot be applied was set aside; the stream moves on', {
                stream,
                timepoint: event.timepoint,
                resourceUri: event.resourceUri,
                error: describeError(error),
              });
              break;
            }
            log.error('Applying a stream event alone failed; it will be applied again', {
              stream,
              timepoint: event.timepoint,
              error: describeError(error),
            });
            if (stopper.signal.aborted) throw new Stop(stopReason ?? 'signal');
            await delay(wait, undefined, { signal: stopper.signal }).catch(() => {});
            if (stopper.signal.aborted) throw new Stop(stopReason ?? 'signal');
            wait = Math.min(60_000, wait * 2);
          }
        }
      }
      return total;
    };

    const applyBatch = async (final: boolean): Promise<void> => {
      if (batch.length === 0) return;
      const toApply = batch;
      let wait = options.applyRetryMs ?? 1_000;
      for (;;) {
        // Apply only with a good part of the lease left, so a slow apply still ends inside it.
        if (leaseExpiresAt - now() < leaseTtlMs / 2) await renew();
        try {
          const outcome = await options.apply(stream, toApply);
          metrics?.applied?.(stream, { ...outcome, events: toApply.length });
          break;
        } catch (error) {
          if (options.setAside && !isTransient(error)) {
            log.warn('Applying stream events failed; applying them one at a time', {
              stream,
              from: toApply[0]?.timepoint,
              to: toApply[toApply.length - 1]?.timepoint,
              events: toApply.length,
              error: describeError(error),
            });
            const outcome = await applyApart(toApply, options.setAside);
            metrics?.applied?.(stream, { ...outcome, events: toApply.length });
            break;
          }
          log.error('Applying stream events failed; the batch will be applied again', {
            stream,
            from: toApply[0]?.timepoint,
            to: toApply[toApply.length - 1]?.timepoint,
            events: toApply.length,
            error: describeError(error),
          });
          if (final || stopper.signal.aborted) throw new Stop(stopReason ?? 'signal');
          await delay(wait, undefined, { signal: stopper.signal }).catch(() => {});
          if (stopper.signal.aborted) throw new Stop(stopReason ?? 'signal');
          wait = Math.min(60_000, wait * 2);
        }
      }
      batch = [];
      events += toApply.length;
      batches += 1;
      const last = toApply.reduce((a, b) => (b.timepoint > a.timepoint ? b : a));
      if (checkpoint === undefined || last.timepoint > checkpoint || resumedAfterGap) {
        try {
          await checkpoints.advance(
            stream,
            owner,
            { timepoint: last.timepoint, publishedAt: last.publishedAt },
            resumedAfterGap ? { afterGap: true } : {},
          );
        } catch (error) {
          if (error instanceof LeaseLostError) {
            leaseHeld = false;
            stop('lease-lost');
            throw new Stop('lease-lost');
          }
          throw error;
        }
        checkpoint = last.timepoint;
        resumedAfterGap = false;
      }
      const published = publishedAtMillis(toApply[toApply.length - 1]?.publishedAt ?? '');
      if (published !== undefined) metrics?.lag?.(stream, Math.max(0, now() - published));
    };

    const take = async (item: StreamItem): Promise<void> => {
      if (item.kind === 'oversize') {
        skipped += 1;
        metrics?.skipped?.(stream, 'oversize');
        log.warn('Stream line over the size limit skipped', { stream, bytes: item.bytes, after: taken });
        return;
      }
      const parsed = parseStreamLine(stream, item.text);
      if (!parsed.ok) {
        skipped += 1;
        metrics?.skipped?.(stream, parsed.reason);
        log.warn('Stream line refused', {
          stream,
          reason: parsed.reason,
          detail: parsed.detail,
          timepoint: parsed.timepoint,
          after: taken,
        });
        if (parsed.timepoint !== undefined && (taken === undefined || parsed.timepoint > taken)) taken = parsed.timepoint;
        return;
      }
      const event = parsed.event;
      if (gapOpen) {
        await checkpoints.recordGap(stream, { from: gapOpen.from ?? event.timepoint, at: gapOpen.at, resumedAt: event.timepoint });
        gapOpen = undefined;
      }
      if (batch.length === 0) batchStartedAt = now();
      batch.push(event);
      if (taken === undefined || event.timepoint > taken) taken = event.timepoint;
      if (batch.length >= batchSize) await applyBatch(false);
    };

    while (!stopper.signal.aborted) {
      const items = readStream({
        baseUrl: options.baseUrl,
        stream,
        streamKey: options.streamKey,
        resumeFrom: () => (taken === undefined ? undefined : taken + 1),
        signal: stopper.signal,
        ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
        ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
        ...(options.backoff ? { backoff: options.backoff } : {}),
        ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
        onReconnect: (reason, waitMs) => {
          reconnects += 1;
          const why = reason === undefined ? 'ended' : describeError(reason);
          metrics?.reconnect?.(stream, why);
          log.info('Stream connection ended; reconnecting', { stream, reason: why, waitMs, from: taken === undefined ? 'now' : taken + 1 });
        },
      })[Symbol.asyncIterator]();
      try {
        let pending: Promise<IteratorResult<StreamItem>> | undefined;
        for (;;) {
          pending ??= items.next();
          let next: IteratorResult<StreamItem> | 'flush';
          if (batch.length > 0) {
            const remaining = Math.max(0, batchStartedAt + batchWaitMs - now());
            let timer: NodeJS.Timeout | undefined;
            next = await Promise.race([
              pending,
              new Promise<'flush'>((resolve) => {
                timer = setTimeout(() => resolve('flush'), remaining);
              }),
            ]).finally(() => clearTimeout(timer));
          } else {
            next = await pending;
          }
          if (next === 'flush') {
            await applyBatch(false);
            continue;
          }
          pending = undefined;
          if (next.done) break;
          await take(next.value);
        }
      } catch (error) {
        if (!(error instanceof TimepointGoneError)) {
          // Ends the connection first, so handing the reader back below does not wait for its next line.
          stopper.abort();
          throw error;
        }
        // Events already read are still good: apply them, then go on from what is published now.
        await applyBatch(false);
        const from = taken === undefined ? undefined : taken + 1;
        const at = new Date(now()).toISOString();
        log.error('The register no longer holds the next timepoint; resuming from now, events in between are missed', {
          stream,
          from,
        });
        metrics?.gap?.(stream, from);
        if (from !== undefined) await checkpoints.recordGap(stream, { from, at });
        gapOpen = { from, at };
        taken = undefined;
        resumedAfterGap = true;
      } finally {
        await items.return?.(undefined).catch(() => undefined);
      }
    }
    // At the deadline, what was read is applied once more if it can be, then the lease is handed over.
    // Told to stop (a runtime shutting down, a refused key), it is left to be read again from the
    // checkpoint: behind a slow engine a batch grows to hundreds of events, and a stop must not wait
    // for them. Nothing is lost either way: the checkpoint has not passed them.
    if (leaseHeld && stopReason === 'deadline') await applyBatch(true);
    return result(stopReason ?? 'signal');
  } catch (error) {
    if (error instanceof Stop) return result(stopReason ?? error.reason);
    throw error;
  } finally {
    clearTimeout(deadlineTimer);
    clearInterval(renewTimer);
    options.signal?.removeEventListener('abort', onSignal);
    if (leaseHeld) {
      await checkpoints.release(stream, owner).catch((error: unknown) => {
        log.error('Handing over the stream lease failed; a successor waits for it to expire', {
          stream,
          owner,
          error: describeError(error),
        });
      });
    }
    log.info('Stream consumer stopped', {
      stream,
      owner,
      reason: stopReason,
      checkpoint,
      events,
      skipped,
      reconnects,
      setAside: setAsideCount,
    });
  }

  function result(stoppedBecause: ConsumeStopReason): ConsumeResult {
    return {
      stream,
      stoppedBecause,
      events,
      batches,
      skipped,
      reconnects,
      ...(checkpoint === undefined ? {} : { checkpoint }),
      ...(setAsideCount > 0 ? { setAside: setAsideCount } : {}),
    };
  }
}
