import { type LatencyStats, summarize } from './stats';

export type Operation = (call: number) => unknown;

export interface InterleavedOptions {
  /** Calls of each operation made first and thrown away: JIT, connection pool, caches. */
  readonly warmup: number;
  /** Measured calls of each operation. */
  readonly iterations: number;
  /** Calls of one operation in a row before switching to the next. */
  readonly chunk?: number;
}

/**
 * Times several operations in alternating chunks, so drift over the run (a JIT warming up in
 * DynamoDB Local, a busy neighbour) lands on every operation alike and their ratio stays fair.
 * Returns the stats in the order the operations were given.
 */
export async function timeInterleaved<const Operations extends readonly Operation[]>(
  operations: Operations,
  options: InterleavedOptions,
): Promise<{ -readonly [Index in keyof Operations]: LatencyStats }> {
  for (const operation of operations) for (let call = 0; call < options.warmup; call++) await operation(call);
  const chunk = options.chunk ?? 50;
  const samples: number[][] = operations.map(() => []);
  for (let done = 0; done < options.iterations; done += chunk) {
    const calls = Math.min(chunk, options.iterations - done);
    for (const [index, operation] of operations.entries()) {
      for (let call = 0; call < calls; call++) {
        const started = performance.now();
        await operation(options.warmup + done + call);
        samples[index]?.push(performance.now() - started);
      }
    }
  }
  return samples.map(summarize) as { -readonly [Index in keyof Operations]: LatencyStats };
}

/** Calls in flight in the concurrent cases: a busy client, or a few Lambda instances' worth. */
export const IN_FLIGHT = 16;

export interface ConcurrentOptions {
  readonly warmup: number;
  /** Measured calls of each operation, all told. */
  readonly iterations: number;
  /** Calls kept in flight at once. */
  readonly inFlight: number;
}

/**
 * Times each operation with `inFlight` calls outstanding at all times, one operation after the other
 * (so they do not compete). The latencies are per call; the rate is calls per second of wall clock.
 */
export async function timeConcurrent<const Operations extends readonly Operation[]>(
  operations: Operations,
  options: ConcurrentOptions,
): Promise<{ -readonly [Index in keyof Operations]: LatencyStats }> {
  const results: LatencyStats[] = [];
  for (const operation of operations) {
    const run = async (calls: number, offset: number) => {
      const samples: number[] = [];
      let next = 0;
      const worker = async () => {
        while (next < calls) {
          const call = offset + next++;
          const started = performance.now();
          await operation(call);
          samples.push(performance.now() - started);
        }
      };
      const started = performance.now();
      await Promise.all(Array.from({ length: options.inFlight }, worker));
      return { samples, elapsedMs: performance.now() - started };
    };
    await run(options.warmup, 0);
    const { samples, elapsedMs } = await run(options.iterations, options.warmup);
    results.push({ ...summarize(samples), opsPerSecond: (samples.length * 1000) / elapsedMs });
  }
  return results as { -readonly [Index in keyof Operations]: LatencyStats };
}

export interface Throughput {
  readonly items: number;
  readonly elapsedMs: number;
  readonly itemsPerSecond: number;
}

/** Wall-clock rate of one batch job that handles `items` things. */
export async function timeThroughput(items: number, job: () => Promise<unknown>): Promise<Throughput> {
  const started = performance.now();
  await job();
  const elapsedMs = performance.now() - started;
  return { items, elapsedMs, itemsPerSecond: (items * 1000) / elapsedMs };
}
