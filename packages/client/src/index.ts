export {
  type Block,
  type BureauClient,
  type CallOptions,
  type ClientOptions,
  createClient,
  type DeliveriesParams,
  type EventsParams,
  type Jurisdiction,
  type PageParams,
  type ProfileEventType,
  type ProfileParams,
  type RecoverParams,
  type SearchParams,
} from './client.js';
export { BureauApiError, BureauConnectionError, WebhookVerificationError, type WebhookVerificationReason } from './errors.js';
export type * from './generated/api-types.js';
export { backoffDelay, parseRetryAfter } from './retry.js';
export { type AccessToken, type Credentials, RENEW_BEFORE_EXPIRY_MS, requestToken } from './token.js';
export type { FetchFunction, TransportOptions } from './transport.js';
export { MAX_SIGNATURE_ENTRIES, type RawBody, type VerifyOptions, verifyWebhook, type WebhookHeaders } from './verify.js';
