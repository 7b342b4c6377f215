import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Parser } from 'htmlparser2';
import yazl from 'yazl';
import { readAccountsZip, readFiling } from '../../shared/accounts';
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

/**
 * What reading filed accounts costs. First, per filing over the real fixtures' mix: the reader
 * (tokenize, read the XBRL, derive the figures) against htmlparser2 handing its events to handlers
 * that do nothing, the floor any reader on this parser pays (and, for scale, tokenizing alone, which
 * builds no attributes); all decode the same bytes. One thread, so filings per
 * second is per core. Then a zip of many entries read start to end, with the heap sampled as it
 * goes: flat, because an entry is streamed and dropped before the next.
 */
export async function run(context: BenchContext): Promise<void> {
  const files = readdirSync(FILINGS)
    .sort()
    .map((file) => ({ name: file, bytes: readFileSync(join(FILINGS, file)) }));
  const totalBytes = files.reduce((sum, file) => sum + file.bytes.length, 0);
  const loop = context.scale === 'full' ? { warmup: 340, iterations: 3400 } : { warmup: 170, iterations: 1700 };
  const decoder = new TextDecoder('utf-8');
  const pick = (call: number) => files[call % files.length] as { name: string; bytes: Buffer };

  const options = { xmlMode: true, decodeEntities: true, recognizeSelfClosing: true };
  const noop = () => undefined;
  const [tokenizeOnly, parseOnly, readAndDerive] = await timeInterleaved(
    [
      (call: number) => new Parser({}, options).end(decoder.decode(pick(call).bytes)),
      (call: number) =>
        new Parser({ onattribute: noop, onopentag: noop, onclosetag: noop, ontext: noop }, options).end(decoder.decode(pick(call).bytes)),
      (call: number) => {
        const file = pick(call);
        if (!readFiling(file.name, file.bytes).ok) throw new Error(`${file.name} was not read`);
      },
    ],
    { ...loop, chunk: files.length },
  );
  context.report(
    latencyTable(
      `One filing, the ${files.length} real fixtures in turn (${mib(totalBytes)}, mean ${(totalBytes / files.length / 1024).toFixed(0)} KiB): read and derived vs htmlparser2 alone`,
      [
        { label: 'baseline: htmlparser2, events to no-op handlers', stats: parseOnly },
        { label: 'htmlparser2, tokenizing only (no handler)', stats: tokenizeOnly },
        { label: 'read + derive (readFiling)', stats: readAndDerive },
      ],
    ),
  );
  const overhead = readAndDerive.mean / parseOnly.mean - 1;
  context.log(
    `  filings/s per core: read+derive ${Math.round(readAndDerive.opsPerSecond)} (goal >= 200), parse alone ${Math.round(parseOnly.opsPerSecond)}; reading and deriving adds ${(overhead * 100).toFixed(0)} % to parsing (goal <= 25 %)`,
  );

  const entries = context.scale === 'full' ? 20_000 : 3_400;
  const workDir = mkdtempSync(join(tmpdir(), 'bureau-accounts-bench-'));
  try {
    const zipPath = join(workDir, 'Accounts_Bulk_Data-2024-12-31.zip');
    const inflated = await writeZip(zipPath, files, entries);
    globalThis.gc?.();
    const before = process.memoryUsage();
    let peakHeap = before.heapUsed;
    let peakRss = before.rss;
    let read = 0;
    const started = performance.now();
    for await (const outcome of readAccountsZip(zipPath)) {
      if (!outcome.ok) throw new Error(`${outcome.entryName}: ${outcome.reason}`);
      if (++read % 50 === 0) {
        const now = process.memoryUsage();
        peakHeap = Math.max(peakHeap, now.heapUsed);
        peakRss = Math.max(peakRss, now.rss);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    globalThis.gc?.();
    const after = process.memoryUsage();
    context.report(
      renderTable(
        `A zip of ${entries.toLocaleString('en-GB')} entries (the fixtures repeated; ${mib(inflated)} inflated) read start to end`,
        ['', 'entries', 'seconds', 'filings/s', 'heap before', 'heap peak', 'heap after', 'rss peak'],
        [
          [
            'readAccountsZip',
            String(read),
            seconds.toFixed(1),
            Math.round(read / seconds).toLocaleString('en-GB'),
            mib(before.heapUsed),
            mib(peakHeap),
            mib(after.heapUsed),
            mib(peakRss),
          ],
        ],
      ),
    );
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
