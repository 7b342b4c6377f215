/** The API answered with an error status; the fields come from its problem document (or, for the token endpoint, its OAuth error). */
export class BureauApiError extends Error {
  override readonly name = 'BureauApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The stable machine code (`error` in the body), e.g. `invalid_limit`, `rate_limited`; switch on this, never on `detail`. */
  readonly code: string;
  /** A sentence for people; may be reworded. */
  readonly detail: string | undefined;
  /** The query parameter or body field at fault, where there is one. */
  readonly parameter: string | undefined;
  /** Seconds the API asked to wait (`Retry-After`), on 429 and 503. */
  readonly retryAfter: number | undefined;
  /** The `apigw-requestid` response header: quote it to support. */
  readonly requestId: string | undefined;
  readonly method: string;
  readonly path: string;
  /** The whole error body as the API sent it (fields such as `rule` for `invalid_url`). */
  readonly body: unknown;

  constructor(init: {
    status: number;
    body: unknown;
    method: string;
    path: string;
    retryAfter: number | undefined;
    requestId: string | undefined;
  }) {
    const problem = (init.body !== null && typeof init.body === 'object' ? init.body : {}) as Record<string, unknown>;
    const text = (key: string) => (typeof problem[key] === 'string' ? (problem[key] as string) : undefined);
    const code = text('error') ?? `http_${init.status}`;
    const detail = text('detail') ?? text('error_description') ?? text('message');
    super(`${init.method} ${init.path} answered ${init.status} ${code}${detail ? `: ${detail}` : ''}`);
    this.status = init.status;
    this.code = code;
    this.detail = detail;
    this.parameter = text('parameter') ?? text('field');
    this.retryAfter = init.retryAfter;
    this.requestId = init.requestId;
    this.method = init.method;
    this.path = init.path;
    this.body = init.body;
  }
}

/** No answer: the connection failed, or the attempt took longer than `timeoutMs`, after every retry allowed. */
export class BureauConnectionError extends Error {
  override readonly name = 'BureauConnectionError';
  readonly method: string;
  readonly path: string;
  readonly timedOut: boolean;

  constructor(init: { method: string; path: string; timedOut: boolean; cause: unknown }) {
    super(`${init.method} ${init.path} ${init.timedOut ? 'timed out' : 'failed to connect'}`, { cause: init.cause });
    this.method = init.method;
    this.path = init.path;
    this.timedOut = init.timedOut;
  }
}

export type WebhookVerificationReason =
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'invalid_secret'
  | 'no_matching_signature'
  | 'invalid_body';

/** A delivery that must not be trusted: answer it with a 4xx and do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
