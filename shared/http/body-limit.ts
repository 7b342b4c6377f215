import { HttpError } from './errors';

/**
 * The largest request body the API takes, counted in bytes of the decoded body. Every body it accepts
 * is small (the largest, a passkey registration, is a few KB), and AWS WAF's common rule set in front
 * blocks bodies over 8 KB: refusing the same here keeps requests that reach a function some other way
 * (the local runtime, the API's own address) from being parsed when the edge would never pass them.
 */
export const MAX_REQUEST_BODY_BYTES = 8192;

/** The size of a payload 2.0 body once decoded; base64 is measured without decoding it. */
export function decodedBodyBytes(body: string | undefined, isBase64Encoded: boolean): number {
  if (!body) return 0;
  return isBase64Encoded ? Buffer.byteLength(body, 'base64') : Buffer.byteLength(body, 'utf8');
}

export const payloadTooLarge = (): HttpError =>
  new HttpError(413, 'payload_too_large', `The request body exceeds ${MAX_REQUEST_BODY_BYTES} bytes, the most the API accepts.`);

/** Throws the 413 for a body over the limit; called before anything reads the request. */
export function refuseOversizedBody(body: string | undefined, isBase64Encoded: boolean): void {
  if (decodedBodyBytes(body, isBase64Encoded) > MAX_REQUEST_BODY_BYTES) throw payloadTooLarge();
}
