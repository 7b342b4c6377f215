import type { HttpRequest } from '../../shared/http/types';

/** A transport-neutral request with sensible defaults, for driving handlers directly. */
export function httpRequest(overrides: Partial<Omit<HttpRequest, 'query'>> & { query?: string } = {}): HttpRequest {
  const { query, ...rest } = overrides;
  return {
    method: 'GET',
    path: '/',
    pathParameters: {},
    headers: {},
    body: '',
    sourceIp: '203.0.113.7',
    requestId: 'req-1',
    ...rest,
    query: new URLSearchParams(query ?? ''),
  };
}

/** application/x-www-form-urlencoded text of one value, as RFC 6749 §2.3.1 asks for Basic credentials. */
const formEncode = (text: string) => new URLSearchParams({ v: text }).toString().slice(2);

/** RFC 6749 §2.3.1: id and secret are each form-urlencoded before they are joined and base64-encoded. */
export const basicAuthorization = (clientId: string, secret: string): string =>
  `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(secret)}`).toString('base64')}`;
