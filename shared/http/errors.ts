/**
 * Errors a client can cause. Each carries its HTTP status, a stable machine code and a sentence for
 * humans; the edge turns it into a JSON body. Anything that is not an HttpError becomes a 500
 * without details.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    /** Extra members for the problem body, e.g. the offending parameter. */
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (code: string, message: string, details: Record<string, unknown> = {}) =>
  new HttpError(400, code, message, {}, details);

export const notFound = (code: string, message: string, details: Record<string, unknown> = {}) =>
  new HttpError(404, code, message, {}, details);
