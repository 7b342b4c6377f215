import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, MalformedCursorError } from '../../../shared/paging/cursor';

describe('cursors', () => {
  it('carry a listing’s position there and back as opaque base64url', () => {
    const cursor = encodeCursor({ v: 1, after: 'GB#15380840' });

    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual({ v: 1, after: 'GB#15380840' });
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'abc+/='],
    ['not JSON', Buffer.from('hello').toString('base64url')],
    ['JSON but not an object', Buffer.from('[1,2]').toString('base64url')],
    ['too long', 'a'.repeat(5000)],
  ])('refuse text that cannot be one: %s', (_case, text) => {
    expect(() => decodeCursor(text)).toThrow(MalformedCursorError);
  });
});
