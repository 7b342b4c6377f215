import { Readable } from 'node:stream';

/**
 * The first bytes of a stream, read up to the first line break (or `maxBytes`), and a stream that
 * still yields every byte from the start: a file's kind is told from its head without reading it twice.
 */
export async function streamHead(stream: Readable, maxBytes: number): Promise<{ head: Buffer; stream: Readable }> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const taken: Buffer[] = [];
  let size = 0;
  while (size < maxBytes) {
    const next = await iterator.next();
    if (next.done) break;
    taken.push(next.value);
    size += next.value.length;
    if (next.value.includes(0x0a)) break;
  }
  async function* replay() {
    yield* taken;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { head: Buffer.concat(taken), stream: Readable.from(replay(), { objectMode: false }) };
}
