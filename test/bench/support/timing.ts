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
