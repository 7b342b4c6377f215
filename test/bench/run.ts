import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal } from '../../local/dynamodb-local';
import { BENCH_SCALES, type BenchModule, type BenchScale, createBenchContext } from './support/context';

/**
 * npm run bench [-- <filter>...]: runs every test/bench/*.bench.ts (or those whose file or name
 * contains a filter) against one in-memory DynamoDB Local, and prints a table per benchmark. A soak
 * (soak*.bench.ts) runs for many minutes: only when a filter names it.
 * BENCH_SCALE=small (default) or full picks the data sizes.
 */
const benchDir = dirname(fileURLToPath(import.meta.url));
const SUFFIX = '.bench.ts';

function scaleSetting(): BenchScale {
  const raw = (process.env.BENCH_SCALE ?? 'small').trim().toLowerCase() || 'small';
  if (!(BENCH_SCALES as readonly string[]).includes(raw))
    throw new Error(`BENCH_SCALE must be one of ${BENCH_SCALES.join(', ')}, got "${raw}"`);
  return raw as BenchScale;
}

function selectedFiles(filters: readonly string[]): string[] {
  const files = readdirSync(benchDir)
    .filter((file) => file.endsWith(SUFFIX))
    .sort();
  if (filters.length === 0) return files.filter((file) => !file.startsWith('soak'));
  const wanted = filters.map((filter) => filter.toLowerCase());
  return files.filter((file) => wanted.some((filter) => basename(file, SUFFIX).toLowerCase().includes(filter)));
}

async function main(): Promise<number> {
  const scale = scaleSetting();
  const filters = process.argv.slice(2).filter((arg) => arg !== '--');
  const files = selectedFiles(filters);
  if (files.length === 0) {
    const all = readdirSync(benchDir)
      .filter((file) => file.endsWith(SUFFIX))
      .map((file) => basename(file, SUFFIX));
    console.error(`No benchmark matches ${filters.map((f) => `"${f}"`).join(', ')}; there are: ${all.join(', ')}`);
    return 2;
  }
  // The code under test logs through Powertools; per-request lines would drown the tables.
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  // Nothing here publishes the use cases' metrics: no EMF lines between the tables, no X-Ray.
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  process.env.POWERTOOLS_TRACE_ENABLED = 'false';

  const write = (text: string) => process.stdout.write(text);
  write(`Bureau benchmarks: scale ${scale}, ${cpus().length} CPU(s) (${cpus()[0]?.model.trim() ?? 'unknown'}), Node ${process.version}\n`);
  write(`Benchmarks: ${files.map((file) => basename(file, SUFFIX)).join(', ')}\n`);

  const workDir = mkdtempSync(join(tmpdir(), 'bureau-bench-'));
  const dynamo = await startDynamoDbLocal({ workDir });
  const clients: DynamoDBClient[] = [];
  const stop = async () => {
    for (const client of clients) client.destroy();
    await dynamo.stop();
    rmSync(workDir, { recursive: true, force: true });
  };
  const interrupted = () => void stop().finally(() => process.exit(130));
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  let failures = 0;
  try {
    const context = createBenchContext({ scale, dynamodbEndpoint: dynamo.endpoint, write, clients });
    for (const file of files) {
      const module = (await import(pathToFileURL(join(benchDir, file)).href)) as BenchModule;
      write(`\n== ${module.name} (${file})\n`);
      const started = performance.now();
      try {
        await module.run(context);
        write(`  done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
      } catch (error) {
        failures++;
        console.error(`  ${module.name} failed:`, error);
      }
    }
  } finally {
    await stop();
  }
  return failures === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
