import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { baseName } from './entry-name';
import type { FilingOutcome } from './filing';
import { filingReader } from './read-filing';

/**
 * Bounds on one entry. A daily file holds a few thousand filings of tens to hundreds of kilobytes;
 * an entry far beyond that, or one that inflates far more than marked-up text does, is a zip bomb or
 * a mistake, and is refused by name while the rest of the file is read.
 */
export interface EntryBounds {
  /** Largest entry read, in bytes once inflated. */
  readonly maxEntryBytes: number;
  /** Largest inflated-to-compressed ratio; XHTML accounts deflate about 5 to 20 times. */
  readonly maxExpansionRatio: number;
}

export const DEFAULT_BOUNDS: EntryBounds = { maxEntryBytes: 32 * 1024 * 1024, maxExpansionRatio: 100 };

class OverBound extends Error {}

/** Streams an entry into a filing reader, refusing it the moment it passes the size bound. */
async function readStream(entryName: string, stream: Readable, maxBytes: number): Promise<FilingOutcome> {
  const reader = filingReader(entryName);
  let bytes = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > maxBytes) throw new OverBound();
      reader.write(chunk);
    }
  } catch (error) {
    stream.destroy();
    if (error instanceof OverBound) {
      return { ok: false, entryName, reason: `the entry inflates past ${maxBytes} bytes, the bound on one entry` };
    }
    return { ok: false, entryName, reason: `the entry could not be inflated (${(error as Error).message})` };
  }
  return reader.end();
}

function notAFiling(name: string): string | undefined {
  const base = baseName(name);
  if (name.startsWith('__MACOSX/') || base.startsWith('._')) return 'the entry is operating-system metadata, not a filing';
  if (/\.zip$/i.test(base)) return 'the entry is an archive inside the archive (a CIC or UKSEF package), which this reader does not open';
  return undefined;
}

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true }, (error, zip) =>
      error ? reject(error) : resolve(zip),
    ),
  );
}

function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | undefined> {
  return new Promise((resolve, reject) => {
    const onEntry = (entry: yauzl.Entry) => {
      zip.off('end', onEnd).off('error', onError);
      resolve(entry);
    };
    const onEnd = () => {
      zip.off('entry', onEntry).off('error', onError);
      resolve(undefined);
    };
    const onError = (error: Error) => {
      zip.off('entry', onEntry).off('end', onEnd);
      reject(error);
    };
    zip.once('entry', onEntry).once('end', onEnd).once('error', onError);
    zip.readEntry();
  });
}

/**
 * The filings of an Accounts Data Product zip, one outcome per entry in the archive's order, read
 * entry by entry from the central directory and inflated as they stream: nothing is unpacked to
 * disk and one entry at a time is in memory.
 */
export async function* readAccountsZip(path: string, bounds: EntryBounds = DEFAULT_BOUNDS): AsyncGenerator<FilingOutcome> {
  const zip = await openZip(path);
  try {
    for (let entry = await nextEntry(zip); entry; entry = await nextEntry(zip)) {
      const name = entry.fileName;
      if (name.endsWith('/')) continue;
      const skip = notAFiling(name);
      if (skip) {
        yield { ok: false, entryName: name, reason: skip };
        continue;
      }
      if (entry.uncompressedSize > bounds.maxEntryBytes) {
        yield {
          ok: false,
          entryName: name,
          reason: `the entry is ${entry.uncompressedSize} bytes, over the bound of ${bounds.maxEntryBytes} bytes on one entry`,
        };
        continue;
      }
      const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
      if (ratio > bounds.maxExpansionRatio) {
        yield {
          ok: false,
          entryName: name,
          reason: `the entry inflates ${ratio.toFixed(0)} times (${entry.compressedSize} to ${entry.uncompressedSize} bytes), over the bound of ${bounds.maxExpansionRatio}`,
        };
        continue;
      }
      const current = entry;
      const stream = await new Promise<Readable>((resolve, reject) =>
        zip.openReadStream(current, (error, opened) => (error ? reject(error) : resolve(opened))),
      );
      yield await readStream(name, stream, bounds.maxEntryBytes);
    }
  } finally {
    zip.close();
  }
}

/** The filings in a folder (not its subfolders), in name order, each file streamed from disk. */
export async function* readAccountsFolder(path: string, bounds: EntryBounds = DEFAULT_BOUNDS): AsyncGenerator<FilingOutcome> {
  const names = (await readdir(path, { withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
    .sort();
  for (const name of names) {
    const skip = notAFiling(name);
    if (skip) {
      yield { ok: false, entryName: name, reason: skip };
      continue;
    }
    const file = join(path, name);
    const { size } = await stat(file);
    if (size > bounds.maxEntryBytes) {
      yield {
        ok: false,
        entryName: name,
        reason: `the file is ${size} bytes, over the bound of ${bounds.maxEntryBytes} bytes on one entry`,
      };
      continue;
    }
    yield await readStream(name, createReadStream(file), bounds.maxEntryBytes);
  }
}
