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
    yauzl.open(path, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true }, (error, file) =>
      error ? reject(error) : resolve(file),
    ),
  );
  try {
    for (;;) {
      const entry = await new Promise<yauzl.Entry | undefined>((resolve, reject) => {
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
