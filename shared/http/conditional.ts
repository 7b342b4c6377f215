/**
 * If-None-Match uses the weak comparison (RFC 9110 §13.1.2): W/"x" matches "x"; "*" matches any
 * current representation; a list matches when any member does.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  for (const match of header.matchAll(/(?:W\/)?("[^"]*")/g)) if (match[1] === opaque) return true;
  return false;
}
