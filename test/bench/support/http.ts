import type { HttpRequest } from '../../../shared/http/types';

/** A transport-neutral request as the functions' handlers receive it. */
export function benchRequest(options: {
  method?: string;
  path: string;
  query?: Record<string, string>;
  pathParameters?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
}): HttpRequest {
  return {
    method: options.method ?? 'GET',
    path: options.path,
    pathParameters: options.pathParameters ?? {},
    headers: options.headers ?? {},
    query: new URLSearchParams(options.query ?? {}),
    body: options.body ?? '',
    sourceIp: '203.0.113.10',
    requestId: 'bench',
  };
}
