import { createHmac } from 'node:crypto';
import type { SigningSecret } from './subscription';

const SECRET_PREFIX = 'whsec_';

/** The HMAC key of a Standard Webhooks secret: the bytes that follow "whsec_", base64-encoded. */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`: the Standard Webhooks signature. */
export function sign(key: Buffer, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The secrets that sign at `now`: the newest, and the previous ones still within their grace. */
export function signingSecretsAt<Secret extends { readonly expiresAt?: string }>(secrets: readonly Secret[], now: Date): Secret[] {
  const instant = now.toISOString();
  return secrets.filter((secret) => secret.expiresAt === undefined || secret.expiresAt > instant);
}

/** content-type, webhook-id, webhook-timestamp, webhook-signature and x-bureau-signature. */
export type SignedHeaders = Readonly<Record<string, string>>;

/**
 * The headers of one delivery attempt: one signature per secret in force, space-separated, which
 * every Standard Webhooks verifier accepts if any one of them matches; x-bureau-signature carries the
 * same value under the brand's name.
 */
export function signedHeaders(secrets: readonly SigningSecret[], id: string, now: Date, body: string): SignedHeaders {
  const timestamp = Math.floor(now.getTime() / 1000);
  const signatures = signingSecretsAt(secrets, now)
    .reverse()
    .map((secret) => sign(secretKey(secret.secret), id, timestamp, body))
    .join(' ');
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures,
    'x-bureau-signature': signatures,
  };
}
