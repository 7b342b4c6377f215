import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { excerptOf, MAX_EXCERPT_TEXT_BYTES, RESPONSE_EXCERPT_BYTES, readExcerpt } from '../../../shared/webhooks/response-excerpt';

const bytes = (text: string) => new TextEncoder().encode(text);
const utf8Length = (text: string) => Buffer.byteLength(text, 'utf8');

/** A body that never ends, in chunks of `size`, saying how many were taken and whether it was closed. */
function endless(size: number) {
  const seen = { chunks: 0, closed: false };
  async function* body() {
    try {
      for (;;) {
        seen.chunks++;
        yield new Uint8Array(size).fill(0x78);
      }
    } finally {
      seen.closed = true;
    }
  }
  return { body: body(), seen };
}

describe("the excerpt of a receiver's answer", () => {
  it('is the whole body, not truncated, when the body is shorter than the limit', () => {
    expect(excerptOf(bytes('{"error":"bad signature"}'), true)).toEqual({ text: '{"error":"bad signature"}', truncated: false });
    expect(excerptOf(new Uint8Array(0), true)).toEqual({ text: '', truncated: false });
  });

  it('tells a body of exactly the limit from one a byte longer by the one byte read past it', () => {
    const exact = excerptOf(bytes('a'.repeat(RESPONSE_EXCERPT_BYTES)), true);
    const longer = excerptOf(bytes('a'.repeat(RESPONSE_EXCERPT_BYTES + 1)), false);

    expect(exact).toEqual({ text: 'a'.repeat(RESPONSE_EXCERPT_BYTES), truncated: false });
    expect(longer).toEqual({ text: 'a'.repeat(RESPONSE_EXCERPT_BYTES), truncated: true });
  });

  it('is marked truncated when the body was cut short before its end, even under the limit', () => {
    expect(excerptOf(bytes('partial'), false)).toEqual({ text: 'partial', truncated: true });
  });

  it('replaces bytes that are not UTF-8 by U+FFFD, and stays within three bytes of text per byte read', () => {
    expect(excerptOf(Uint8Array.from([0x6f, 0x6b, 0xff, 0xfe, 0x21]), true).text).toBe('ok\uFFFD\uFFFD!');

    const garbage = excerptOf(new Uint8Array(RESPONSE_EXCERPT_BYTES + 1).fill(0xff), false);
    expect(garbage.text).toBe('\uFFFD'.repeat(RESPONSE_EXCERPT_BYTES));
    expect(utf8Length(garbage.text)).toBe(MAX_EXCERPT_TEXT_BYTES);
  });

  it('drops a character the limit cuts in two, rather than showing its first bytes as invalid', () => {
    // 2047 ASCII bytes, then the euro sign's three bytes straddle the limit.
    const excerpt = excerptOf(bytes(`${'a'.repeat(RESPONSE_EXCERPT_BYTES - 1)}€ and more`), false);

    expect(excerpt).toEqual({ text: 'a'.repeat(RESPONSE_EXCERPT_BYTES - 1), truncated: true });
  });

  it('shows a character left incomplete at the very end of a whole body as invalid: nothing more was coming', () => {
    expect(excerptOf(bytes('price: €').subarray(0, -1), true).text).toBe('price: \uFFFD');
  });
});

describe('reading the excerpt from a body', () => {
  it('stops pulling at one byte past the limit and closes the body, however much more it would give', async () => {
    const { body, seen } = endless(1024);

    const excerpt = await readExcerpt(body);

    expect(excerpt).toEqual({ text: 'x'.repeat(RESPONSE_EXCERPT_BYTES), truncated: true });
    // 1024 + 1024 + 1 of the third chunk: three chunks, then the body is closed.
    expect(seen).toEqual({ chunks: 3, closed: true });
  });

  it('keeps only the excerpt of a single chunk far larger than it', async () => {
    const excerpt = await readExcerpt(Readable.from([Buffer.alloc(64 * 1024, 'y')]));

    expect(excerpt.text).toHaveLength(RESPONSE_EXCERPT_BYTES);
    expect(excerpt.truncated).toBe(true);
  });

  it('reads a short body to its end, across chunks', async () => {
    expect(await readExcerpt(Readable.from([Buffer.from('Internal '), Buffer.from('Server Error')]))).toEqual({
      text: 'Internal Server Error',
      truncated: false,
    });
  });

  it('gives what had arrived when the body fails while read (a deadline, a reset), marked truncated', async () => {
    async function* failing() {
      yield bytes('<html><body>Bad gate');
      throw new Error('other side closed');
    }

    expect(await readExcerpt(failing())).toEqual({ text: '<html><body>Bad gate', truncated: true });
  });
});
