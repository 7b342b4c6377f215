/**
 * The one cursor format of every listing: an opaque base64url string holding a small JSON object.
 * Each listing puts its own position inside and checks it on the way back; this module only says
 * whether the text can be a cursor at all.
 */
export class MalformedCursorError extends Error {
  constructor() {
    super('The cursor is not one this API issued');
    this.name = 'MalformedCursorError';
  }
}

/** Longer than any position a listing writes; refuses junk before any decoding. */
export const MAX_CURSOR_LENGTH = 4096;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function encodeCursor(position: Readonly<Record<string, unknown>>): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** The position inside a cursor; what cannot be one fails with the listing's own error. */
export function decodeCursor(cursor: string, refused: () => Error = () => new MalformedCursorError()): Record<string, unknown> {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw refused();
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refused();
  }
  if (typeof position !== 'object' || position === null || Array.isArray(position)) throw refused();
  return position as Record<string, unknown>;
}
