import { type LatencyStats, summarize } from './stats';

export type Operation = (call: number) => unknown;

export interface LoopOptions {
  /** Calls made first and thrown away: JIT, connection pool, caches. */
  readonly warmup: number;
  readonly iterations: number;
  /** Stops measuring early once this much time has gone, so a slow case cannot stall the run. */
  readonly maxMs?: number;
}

/**
 * Times each call of `operation` on its own, one after another (no overlap), after a warm-up.
 * The call number is passed in so a benchmark can vary its input without an allocation in the loop.
 */
export async function timeLoop(operation: Operation, options: LoopOptions): Promise<LatencyStats> {
  for (let call = 0; call < options.warmup; call++) await operation(call);
  const samples: number[] = [];
  const deadline = options.maxMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + options.maxMs;
  for (let call = 0; call < options.iterations && performance.now() < deadline; call++) {
    const started = performance.now();
    await operation(options.warmup + call);
    samples.push(performance.now() - started);
  }
  return summarize(samples);
}

export interface InterleavedOptions extends LoopOptions {
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
  const deadline = options.maxMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + options.maxMs;
  for (let done = 0; done < options.iterations && performance.now() < deadline; done += chunk) {
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
