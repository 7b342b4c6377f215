import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Handler, Parser } from 'htmlparser2';
import yazl from 'yazl';
import { readAccountsZip, readFiling } from '../../shared/accounts';
import { Utf8Text } from '../../shared/accounts/utf8-text';
import type { BenchContext } from './support/context';
import { latencyTable, renderTable } from './support/table';
import { timeInterleaved } from './support/timing';

export const name = 'Accounts reader';

const FILINGS = join(import.meta.dirname, '../fixtures/accounts/filings');

/** The run number of an entry name is free: repeating the fixtures under new run numbers keeps names unique. */
function renamed(entry: string, run: number): string {
  const product = /^Prod22\d_\d+_(.+)$/.exec(entry);
  if (product) return `Prod223_${run}_${product[1]}`;
  const register = /^GB-COH-([A-Z0-9]+)-(\d{4})-(\d{2})-(\d{2})\.html$/.exec(entry) as RegExpExecArray;
  return `Prod223_${run}_${register[1]}_${register[2]}${register[3]}${register[4]}.html`;
}

async function writeZip(path: string, files: readonly { name: string; bytes: Buffer }[], entries: number): Promise<number> {
  const zip = new yazl.ZipFile();
  let bytes = 0;
  for (let index = 0; index < entries; index++) {
    const file = files[index % files.length] as { name: string; bytes: Buffer };
    zip.addBuffer(file.bytes, renamed(file.name, index));
    bytes += file.bytes.length;
  }
  await new Promise<void>((resolve, reject) => {
    zip.outputStream.pipe(createWriteStream(path)).on('close', resolve).on('error', reject);
    zip.end();
  });
  return bytes;
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** A parser whose handlers do nothing: every event of the document still reaches them. */
function idleParser(handlers: Partial<Handler>): Parser {
  return new Parser(handlers, { xmlMode: true, decodeEntities: true, recognizeSelfClosing: true });
}

/** The bytes decoded as the reader decodes them, into a parser. */
function parseBytes(parser: Parser, bytes: Uint8Array): void {
  const text = new Utf8Text();
  text.decode(bytes, (piece) => parser.write(piece));
  parser.end(text.end());
}

/** Processor time of this process (this thread and the collector's), in milliseconds. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * What reading filed accounts costs. First, per filing over the real fixtures' mix: the reader
 * (tokenize, read the XBRL, derive the figures) against the same parser, with the same options,
 * handing every event to handlers that do nothing: the floor any reader on this parser pays (and,
 * for scale, the parser with no handlers at all, which builds no attributes). All three decode the
 * same bytes the same way (the reader's UTF-8 decoding), so the difference is reading and deriving
 * alone. One thread: filings per second of processor time is filings per second per core, and
 * other work on the machine does not count against it as it does against the wall clock. Then a
 * zip of many entries read start to end, with the heap sampled as it goes: flat, because an entry
 * is streamed and dropped before the next.
 */
export async function run(context: BenchContext): Promise<void> {
  const files = readdirSync(FILINGS)
    .sort()
    .map((file) => ({ name: file, bytes: readFileSync(join(FILINGS, file)) }));
  const totalBytes = files.reduce((sum, file) => sum + file.bytes.length, 0);
  const loop = context.scale === 'full' ? { warmup: 340, iterations: 3400 } : { warmup: 170, iterations: 1700 };
  const pick = (call: number) => files[call % files.length] as { name: string; bytes: Buffer };

  const noop = () => undefined;
  const cpu = [0, 0, 0];
  const timedOnCpu = (index: number, operation: (call: number) => void) => (call: number) => {
    const started = cpuMs();
    operation(call);
    cpu[index] = (cpu[index] as number) + cpuMs() - started;
  };
  const operations = [
    timedOnCpu(0, (call) =>
      parseBytes(idleParser({ onattribute: noop, onopentag: noop, onclosetag: noop, ontext: noop }), pick(call).bytes),
    ),
    timedOnCpu(1, (call) => parseBytes(idleParser({}), pick(call).bytes)),
    timedOnCpu(2, (call) => {
      const file = pick(call);
      if (!readFiling(file.name, file.bytes).ok) throw new Error(`${file.name} was not read`);
    }),
  ] as const;
  for (const operation of operations) for (let call = 0; call < loop.warmup; call++) operation(call);
  cpu.fill(0);
  const [parseOnly, tokenizeOnly, readAndDerive] = await timeInterleaved(operations, {
    warmup: 0,
    iterations: loop.iterations,
    chunk: files.length,
  });
  context.report(
    latencyTable(
      `One filing, the ${files.length} real fixtures in turn (${mib(totalBytes)}, mean ${(totalBytes / files.length / 1024).toFixed(0)} KiB): read and derived vs the same parser alone (wall clock)`,
      [
        { label: 'baseline: htmlparser2, every event to a no-op handler', stats: parseOnly },
        { label: 'htmlparser2, no handler (no attributes built)', stats: tokenizeOnly },
        { label: 'read + derive (readFiling)', stats: readAndDerive },
      ],
    ),
  );
  const [parseCpu, tokenizeCpu, readCpu] = cpu as [number, number, number];
  const perCore = (loop.iterations * 1000) / readCpu;
  // Per filing depends on the mix's sizes; per byte compares mixes (the product's entries average far less than these).
  const mibPerCore = (cpuMsTaken: number) => ((totalBytes / files.length) * loop.iterations) / 1024 / 1024 / (cpuMsTaken / 1000);
  context.log(
    `  filings/s per core (processor time): read+derive ${Math.round(perCore)} (goal >= 200), parse alone ${Math.round((loop.iterations * 1000) / parseCpu)}; MiB/s per core: read+derive ${mibPerCore(readCpu).toFixed(1)}, parse alone ${mibPerCore(parseCpu).toFixed(1)}`,
  );
  context.log(
    `  read+derive / parse alone: ${(readCpu / parseCpu).toFixed(2)}x in processor time, ${(readAndDerive.mean / parseOnly.mean).toFixed(2)}x in mean and ${(readAndDerive.p50 / parseOnly.p50).toFixed(2)}x in p50 wall time (goal <= 1.25x)`,
  );
  // The reader has the parser build attribute objects only for the elements it reads; the baseline has them built for every element.
  context.log(
    `  against the parser with no handler at all (no attribute objects, no calls): ${(readCpu / tokenizeCpu).toFixed(2)}x in processor time`,
  );

  const entries = context.scale === 'full' ? 20_000 : 3_400;
  const workDir = mkdtempSync(join(tmpdir(), 'bureau-accounts-bench-'));
  try {
    const zipPath = join(workDir, 'Accounts_Bulk_Data-2024-12-31.zip');
    const inflated = await writeZip(zipPath, files, entries);
    globalThis.gc?.();
    const before = process.memoryUsage();
    // Peaks over the first and the second half of the entries: a heap that grew with the entries read would differ.
    const peaks = [
      { heap: before.heapUsed, rss: before.rss },
      { heap: before.heapUsed, rss: before.rss },
    ];
    let read = 0;
    const started = performance.now();
    const startedCpu = cpuMs();
    for await (const outcome of readAccountsZip(zipPath)) {
      if (!outcome.ok) throw new Error(`${outcome.entryName}: ${outcome.reason}`);
      if (++read % 25 === 0) {
        const now = process.memoryUsage();
        const peak = peaks[read <= entries / 2 ? 0 : 1] as { heap: number; rss: number };
        peak.heap = Math.max(peak.heap, now.heapUsed);
        peak.rss = Math.max(peak.rss, now.rss);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const cpuSeconds = (cpuMs() - startedCpu) / 1000;
    globalThis.gc?.();
    const after = process.memoryUsage();
    const [first, second] = peaks as [{ heap: number; rss: number }, { heap: number; rss: number }];
    context.report(
      renderTable(
        `A zip of ${entries.toLocaleString('en-GB')} entries (the fixtures repeated; ${mib(inflated)} inflated) read start to end`,
        [
          '',
          'entries',
          'seconds',
          'filings/s',
          'per core',
          'heap before',
          'heap peak 1st half',
          'heap peak 2nd half',
          'heap after',
          'rss peak',
        ],
        [
          [
            'readAccountsZip',
            String(read),
            seconds.toFixed(1),
            Math.round(read / seconds).toLocaleString('en-GB'),
            Math.round(read / cpuSeconds).toLocaleString('en-GB'),
            mib(before.heapUsed),
            mib(first.heap),
            mib(second.heap),
            mib(after.heapUsed),
            mib(Math.max(first.rss, second.rss)),
          ],
        ],
      ),
    );
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
