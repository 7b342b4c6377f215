import { Readable } from 'node:stream';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import yauzl from 'yauzl';

/** The object read, and the version of it: a ranged read of another version fails rather than mixing two files. */
export interface S3ObjectVersion {
  readonly s3: S3Client;
  readonly bucket: string;
  readonly key: string;
  readonly size: number;
  readonly etag: string;
}

/**
 * Bytes fetched per ranged GET: a daily file's whole central directory, or a window's worth of
 * filings, in one or two requests, while memory stays at BLOCKS_KEPT blocks whatever the archive's size.
 */
export const BLOCK_BYTES = 4 * 1024 * 1024;
const BLOCKS_KEPT = 6;

/**
 * A zip in S3 as yauzl reads a file: each read served from blocks fetched by ranged GETs and kept a
 * little while, since yauzl reads a directory record, a local header and an entry's data in small
 * steps that would otherwise each cost a request. Reads go forward through an archive, so the
 * blocks least recently used are the ones let go.
 */
export class S3RangeReader extends yauzl.RandomAccessReader {
  private readonly blocks = new Map<number, Promise<Buffer>>();
  /** Ranged GETs sent: what the reads cost. */
  requests = 0;

  constructor(
    private readonly object: S3ObjectVersion,
    private readonly blockBytes = BLOCK_BYTES,
  ) {
    super();
  }

  private block(index: number): Promise<Buffer> {
    const held = this.blocks.get(index);
    if (held) {
      this.blocks.delete(index);
      this.blocks.set(index, held);
      return held;
    }
    const start = index * this.blockBytes;
    const end = Math.min(start + this.blockBytes, this.object.size) - 1;
    this.requests++;
    const fetched = this.object.s3
      .send(
        new GetObjectCommand({
          Bucket: this.object.bucket,
          Key: this.object.key,
          Range: `bytes=${start}-${end}`,
          IfMatch: this.object.etag,
        }),
      )
      .then(async ({ Body }) => {
        if (!Body) throw new Error(`s3://${this.object.bucket}/${this.object.key} answered bytes ${start}-${end} with no body`);
        const bytes = Buffer.from(await Body.transformToByteArray());
        if (bytes.length !== end - start + 1)
          throw new Error(`s3://${this.object.bucket}/${this.object.key} answered ${bytes.length} bytes for ${start}-${end}`);
        return bytes;
      });
    // A failed fetch is not kept: the next read asks again.
    fetched.catch(() => this.blocks.delete(index));
    this.blocks.set(index, fetched);
    while (this.blocks.size > BLOCKS_KEPT) this.blocks.delete(this.blocks.keys().next().value as number);
    return fetched;
  }

  /** The bytes from start (inclusive) to end (exclusive), block by block. */
  private async *bytes(start: number, end: number): AsyncGenerator<Buffer> {
    if (start < 0 || end > this.object.size || start > end)
      throw new Error(`bytes ${start} to ${end} lie outside s3://${this.object.bucket}/${this.object.key} (${this.object.size} bytes)`);
    for (let position = start; position < end; ) {
      const index = Math.floor(position / this.blockBytes);
      const block = await this.block(index);
      const from = position - index * this.blockBytes;
      const to = Math.min(block.length, end - index * this.blockBytes);
      yield block.subarray(from, to);
      position += to - from;
    }
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return Readable.from(this.bytes(start, end), { objectMode: false });
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (error: Error | null) => void): void {
    (async () => {
      let written = 0;
      for await (const part of this.bytes(position, position + length)) {
        part.copy(buffer, offset + written);
        written += part.length;
      }
    })().then(
      () => callback(null),
      (error: Error) => callback(error),
    );
  }
}
