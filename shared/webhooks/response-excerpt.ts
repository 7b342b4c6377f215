/**
 * The start of a receiver's answer, as the delivery log keeps it: enough for a subscriber to see why
 * its endpoint refused a delivery (a framework's error page, a validation message), never the whole
 * body, which is the receiver's and can be any size.
 */
export interface ResponseExcerpt {
  /** The first RESPONSE_EXCERPT_BYTES bytes of the body, decoded as UTF-8, invalid bytes replaced by U+FFFD. */
  readonly text: string;
  /** The body went on past the excerpt, or was cut short (by the deadline or a reset) before it ended. */
  readonly truncated: boolean;
}

/** 2 KiB of body read; as text at most three times that in UTF-8 (every byte invalid, each one U+FFFD). */
export const RESPONSE_EXCERPT_BYTES = 2048;

/** The most bytes an excerpt's text can take in UTF-8: what an attempt in the log grows by, at worst. */
export const MAX_EXCERPT_TEXT_BYTES = 3 * RESPONSE_EXCERPT_BYTES;

/**
 * The excerpt of a body of which `head` was read (up to one byte past the limit, which tells a body of
 * exactly the limit from a longer one), `ended` saying whether the body was read to its end. A cut
 * inside a multi-byte character drops that character's first bytes rather than showing them as U+FFFD:
 * they are not invalid, only incomplete.
 */
export function excerptOf(head: Uint8Array, ended: boolean, limit = RESPONSE_EXCERPT_BYTES): ResponseExcerpt {
  const truncated = head.byteLength > limit || !ended;
  const kept = head.subarray(0, limit);
  const text = new TextDecoder('utf-8').decode(kept, { stream: truncated });
  return { text, truncated };
}

/**
 * Reads a body up to one byte past the limit, then stops: the stream is abandoned (for an HTTP body,
 * its connection closed), so a receiver's 64 MiB answer costs what the socket had buffered, not 64 MiB.
 * A body that fails while read (the attempt's deadline, a reset) gives what had arrived.
 */
export async function readExcerpt(body: AsyncIterable<Uint8Array>, limit = RESPONSE_EXCERPT_BYTES): Promise<ResponseExcerpt> {
  const head = new Uint8Array(limit + 1);
  let filled = 0;
  let ended = false;
  try {
    for await (const chunk of body) {
      const taken = Math.min(chunk.byteLength, head.byteLength - filled);
      head.set(chunk.subarray(0, taken), filled);
      filled += taken;
      // Leaving the loop returns the iterator, which destroys a Node stream: no more is read.
      if (filled > limit) break;
    }
    ended = filled <= limit;
  } catch {
    ended = false;
  }
  return excerptOf(head.subarray(0, filled), ended, limit);
}
