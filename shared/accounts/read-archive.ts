import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { type ZipEntry, zipEntries } from '../register/import/zip-entries';
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

/**
 * The filings of an Accounts Data Product zip, one outcome per entry in the archive's order, read
 * entry by entry from the central directory and inflated as they stream: nothing is unpacked to
 * disk and one entry at a time is in memory.
 */
export function readAccountsZip(path: string, bounds: EntryBounds = DEFAULT_BOUNDS): AsyncGenerator<FilingOutcome> {
  return readAccountsEntries(zipEntries(path), bounds);
}

/** The filings of a zip's entries however they are reached (a file on disk, ranged reads of an object in S3), as readAccountsZip reads them. */
export async function* readAccountsEntries(
  entries: AsyncIterable<ZipEntry>,
  bounds: EntryBounds = DEFAULT_BOUNDS,
): AsyncGenerator<FilingOutcome> {
  for await (const entry of entries) {
    const { name, size, compressedSize } = entry;
    const skip = notAFiling(name);
    if (skip) {
      yield { ok: false, entryName: name, reason: skip };
      continue;
    }
    if (size > bounds.maxEntryBytes) {
      yield {
        ok: false,
        entryName: name,
        reason: `the entry is ${size} bytes, over the bound of ${bounds.maxEntryBytes} bytes on one entry`,
      };
      continue;
    }
    const ratio = size / Math.max(compressedSize, 1);
    if (ratio > bounds.maxExpansionRatio) {
      yield {
        ok: false,
        entryName: name,
        reason: `the entry inflates ${ratio.toFixed(0)} times (${compressedSize} to ${size} bytes), over the bound of ${bounds.maxExpansionRatio}`,
      };
      continue;
    }
    yield await readStream(name, await entry.open(), bounds.maxEntryBytes);
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
