import { HttpError } from './errors';
import type { HttpResponse } from './types';

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body };
}

/** RFC 9457 problem details with the stable `error` code beside them. */
export function problem(error: HttpError): HttpResponse {
  return {
    status: error.status,
    headers: { 'content-type': 'application/problem+json', ...error.headers },
    body: {
      type: `https://docs.bureau.example/errors/${error.code}`,
      title: titles[error.status] ?? 'Error',
      status: error.status,
      error: error.code,
      detail: error.message,
      ...error.details,
    },
  };
}

export const internalError = (): HttpResponse =>
  problem(
    new HttpError(
      500,
      'internal_error',
      'Something went wrong on our side. Retry later; if it persists, contact support with the request id.',
    ),
  );
