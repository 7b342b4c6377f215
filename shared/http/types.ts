/** A transport-neutral HTTP request: what use-case-facing code sees instead of a Lambda event. */
export interface HttpRequest {
  readonly method: string;
  /** Raw path, e.g. /v1/profile/SC123456. */
  readonly path: string;
  /** Route parameters, e.g. { companyNumber: 'SC123456' }. */
  readonly pathParameters: Readonly<Record<string, string>>;
  /** Header names lower-cased; repeated headers joined with ", " as API Gateway does. */
  readonly headers: Readonly<Record<string, string>>;
  /** Decoded query parameters; a repeated parameter keeps every value in order. */
  readonly query: URLSearchParams;
  /** Decoded body text ('' when absent). */
  readonly body: string;
  readonly sourceIp: string;
  readonly requestId: string;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string is sent as-is; anything else is serialised as JSON. */
  readonly body?: unknown;
}

export type HttpHandler = (request: HttpRequest) => Promise<HttpResponse>;
