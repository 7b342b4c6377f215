import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './generated/api-types.js';

/** A `Headers`, a plain object, Node's `IncomingHttpHeaders` or a Lambda event's `headers`: names in any case. */
export type WebhookHeaders = { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

/** A body exactly as received: the text, or its bytes (a Node `Buffer` is a `Uint8Array`). */
export type RawBody = string | Uint8Array | ArrayBuffer;

export interface VerifyOptions {
  /**
   * How far a delivery's `webhook-timestamp` may be from now, either way. Default 300 s, as Standard
   * Webhooks. A value that is not a finite number of seconds, 0 or more, throws a RangeError.
   */
  readonly toleranceSeconds?: number;
  /** Milliseconds since the epoch, as Date.now. */
  readonly now?: () => number;
}

const SECRET_PREFIX = 'whsec_';
const DEFAULT_TOLERANCE_SECONDS = 5 * 60;
/**
 * Entries of webhook-signature read at most: Bureau sends two during a secret rotation, one otherwise.
 * Without a cap, a forged header of thousands of entries would cost a comparison (and a base64
 * decode) each.
 */
export const MAX_SIGNATURE_ENTRIES = 10;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/** Importing a key costs more than the HMAC of a small body: a receiver verifies with the same few secrets all day. */
const keys = new Map<string, Promise<HmacKey>>();
const MAX_KEYS = 64;

function hmacKey(secret: string): Promise<HmacKey> {
  let key = keys.get(secret);
  if (!key) {
    const bytes = base64Bytes(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
    if (!bytes || bytes.length === 0)
      throw new WebhookVerificationError('invalid_secret', 'The signing secret is not whsec_ followed by base64');
    key = crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value as string);
    keys.set(secret, key);
  }
  return key;
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
    return bytes;
  } catch {
    return undefined;
  }
}

/** Equal bytes, in a time that depends on the length alone (public: an HMAC-SHA256 is 32 bytes), never on where they differ. */
function constantTimeEqual(left: Uint8Array, right: Uint8Array): boolean {
  if (left.length !== right.length) return false;
  let difference = 0;
  for (let index = 0; index < left.length; index++) difference |= (left[index] as number) ^ (right[index] as number);
  return difference === 0;
}

function toleranceOf(options: VerifyOptions): number {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0) {
    throw new RangeError(`toleranceSeconds must be a finite number of seconds, 0 or more; got ${String(tolerance)}`);
  }
  return tolerance;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  let value = record[name];
  if (value === undefined) {
    const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
    if (key !== undefined) value = record[key];
  }
  // A header sent twice arrives as a list in Node: its values read as one space-separated header.
  return typeof value === 'string' ? value : value?.join(' ');
}

function bytesOf(body: RawBody): Uint8Array {
  if (typeof body === 'string') return encoder.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

/**
 * Verifies a Bureau webhook delivery (Standard Webhooks) and returns its event. The signature is an
 * HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`; the header may carry several (during the
 * 24 hours after a secret rotation: the new secret's first), and the delivery is accepted when any
 * of them matches any secret given. Pass the raw body, before any JSON parsing: a re-serialised body
 * does not verify. Throws WebhookVerificationError with a `reason`.
 */
export async function verifyWebhook<Event = WebhookEvent>(
  rawBody: RawBody,
  headers: WebhookHeaders,
  secretOrSecrets: string | readonly string[],
  options: VerifyOptions = {},
): Promise<Event> {
  const tolerance = toleranceOf(options);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('missing_header', 'A webhook-id, webhook-timestamp or webhook-signature header is missing');

  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not Unix seconds');
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  const sentAt = Number(timestamp);
  if (nowSeconds - sentAt > tolerance) throw new WebhookVerificationError('timestamp_too_old', 'The delivery is too old: a replay?');
  if (sentAt - nowSeconds > tolerance) throw new WebhookVerificationError('timestamp_too_new', 'The delivery is dated in the future');

  const candidates: Uint8Array<ArrayBuffer>[] = [];
  for (const entry of signatures.split(' ', MAX_SIGNATURE_ENTRIES)) {
    const comma = entry.indexOf(',');
    // Other versions (v1a, asymmetric) are for other verifiers: skipped, not failed.
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    const signature = base64Bytes(entry.slice(comma + 1));
    if (signature) candidates.push(signature);
  }
  if (candidates.length === 0) throw new WebhookVerificationError('no_matching_signature', 'webhook-signature holds no v1 signature');

  const body = bytesOf(rawBody);
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);

  const secrets = typeof secretOrSecrets === 'string' ? [secretOrSecrets] : secretOrSecrets;
  if (secrets.length === 0) throw new WebhookVerificationError('invalid_secret', 'No signing secret given');
  let matched = false;
  for (const secret of secrets) {
    // One HMAC of the body per secret, however many signatures the header holds.
    const expected = new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret), signed));
    // Compared in constant time: how much of a forged signature is right never shows in the timing.
    if (candidates.some((signature) => constantTimeEqual(signature, expected))) {
      matched = true;
      break;
    }
  }
  if (!matched) throw new WebhookVerificationError('no_matching_signature', 'No signature matches the signing secrets given');

  try {
    return JSON.parse(typeof rawBody === 'string' ? rawBody : decoder.decode(body)) as Event;
  } catch {
    throw new WebhookVerificationError('invalid_body', 'The signed body is not JSON');
  }
}
