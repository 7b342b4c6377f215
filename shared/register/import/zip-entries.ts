import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

/** One file inside a zip archive, its content streamed (inflated) on demand. */
export interface ZipEntry {
  readonly name: string;
  /** Size once inflated, as the archive's directory states it. */
  readonly size: number;
  /** Size as stored, for telling how far an entry inflates before inflating it. */
  readonly compressedSize: number;
  open(): Promise<Readable>;
}

/** A zip archive starts with a local file header, "PK\x03\x04" (or "PK\x05\x06" when it is empty). */
export function isZip(firstBytes: Uint8Array): boolean {
  return firstBytes[0] === 0x50 && firstBytes[1] === 0x4b && (firstBytes[2] === 0x03 || firstBytes[2] === 0x05);
}

/**
 * The files of a zip archive on disk, in the archive's order, directories left out. Entries are read
 * one at a time from the central directory, so memory stays flat however large the archive; an
 * entry's content is inflated as it is streamed.
 */
export async function* zipEntries(path: string): AsyncGenerator<ZipEntry> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, ZIP_OPTIONS, (error, file) => (error ? reject(error) : resolve(file))),
  );
  yield* entriesOf(zip);
}

const ZIP_OPTIONS = { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true } as const;

/** A run of consecutive records of a zip's central directory: where the first starts, and how many. */
export interface DirectoryWindow {
  readonly offset: number;
  readonly count: number;
}

/** One record of a zip's central directory, directories included: its name and where it lies in the directory. */
export interface DirectoryRecord {
  readonly name: string;
  readonly offset: number;
  readonly end: number;
}

function openReader(reader: yauzl.RandomAccessReader, size: number): Promise<yauzl.ZipFile> {
  return new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromRandomAccessReader(reader, size, ZIP_OPTIONS, (error, file) => (error ? reject(error) : resolve(file))),
  );
}

/** The next record of the central directory, or undefined at its end. */
function nextRecord(zip: yauzl.ZipFile): Promise<yauzl.Entry | undefined> {
  return new Promise<yauzl.Entry | undefined>((resolve, reject) => {
    const onEntry = (found: yauzl.Entry) => {
      zip.off('end', onEnd).off('error', onError);
      resolve(found);
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

/** yauzl keeps the offset of the next directory record on the zip (typed loosely by @types/yauzl). */
const cursorOf = (zip: yauzl.ZipFile): number => (zip as unknown as { readEntryCursor: number }).readEntryCursor;

/**
 * Every record of the central directory of a zip read through `reader` (any random-access source,
 * such as ranged reads of an object in S3), with where each lies: enough to cut the archive into
 * windows that `zipEntriesIn` reads on their own, without reading the directory again.
 */
export async function* zipDirectory(reader: yauzl.RandomAccessReader, size: number): AsyncGenerator<DirectoryRecord> {
  const zip = await openReader(reader, size);
  try {
    for (;;) {
      const offset = cursorOf(zip);
      const entry = await nextRecord(zip);
      if (!entry) return;
      yield { name: entry.fileName, offset, end: cursorOf(zip) };
    }
  } finally {
    zip.close();
  }
}

/**
 * The files of a zip read through `reader`, as `zipEntries` gives them: all of them, or only those of
 * one window of its central directory (from `zipDirectory`), whose records alone are then read.
 */
export async function* zipEntriesIn(reader: yauzl.RandomAccessReader, size: number, window?: DirectoryWindow): AsyncGenerator<ZipEntry> {
  if (!window) {
    yield* entriesOf(await openReader(reader, size));
    return;
  }
  // What yauzl.fromRandomAccessReader does once it has found the directory, with the window as the directory.
  (reader as yauzl.RandomAccessReader & { ref(): void }).ref();
  const { lazyEntries, autoClose, decodeStrings, validateEntrySizes } = ZIP_OPTIONS;
  yield* entriesOf(
    new yauzl.ZipFile(reader, window.offset, size, window.count, '', autoClose, lazyEntries, decodeStrings, validateEntrySizes),
  );
}

async function* entriesOf(zip: yauzl.ZipFile): AsyncGenerator<ZipEntry> {
  try {
    for (;;) {
      const entry = await nextRecord(zip);
      if (!entry) return;
      if (entry.fileName.endsWith('/')) continue;
      yield {
        name: entry.fileName,
        size: entry.uncompressedSize,
        compressedSize: entry.compressedSize,
        open: () =>
          new Promise<Readable>((resolve, reject) =>
            zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream))),
          ),
      };
    }
  } finally {
    zip.close();
  }
}
