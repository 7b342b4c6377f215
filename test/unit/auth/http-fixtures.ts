import type { HttpRequest } from '../../../shared/http/types';

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

export const basicAuthorization = (clientId: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
