import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, type WebhookVerificationError } from '../../../packages/client/src/index';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const otherSecret = `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({
  type: 'profile.changed',
  apiVersion: 'v1',
  occurredAt: '2026-11-25T08:00:00.000Z',
  idempotencyKey: 'profile.changed:GB:15380840:riskOfFailure:v2',
  block: 'riskOfFailure',
  data: { jurisdiction: 'GB', companyNumber: '15380840' },
});
const id = 'msg_QTcHxJRzmE1glVv0Fd-cTKftnLj';
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** An HMAC written here from the Standard Webhooks text, independent of both verifiers. */
const sign = (key: string, msgId: string, timestamp: number, payload: string) =>
  `v1,${createHmac('sha256', Buffer.from(key.slice('whsec_'.length), 'base64'))
    .update(`${msgId}.${timestamp}.${payload}`)
    .digest('base64')}`;

const headersFor = (signature: string, timestamp = nowSeconds(), msgId = id) => ({
  'webhook-id': msgId,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': signature,
});

const reasonOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: WebhookVerificationError) => error.reason,
  );

describe('verifyWebhook beside the standardwebhooks library', () => {
  it('accepts what the library signs, and returns the parsed event', async () => {
    const timestamp = new Date();
    const signature = new Webhook(secret).sign(id, timestamp, body);
    const headers = headersFor(signature, Math.floor(timestamp.getTime() / 1000));
    expect(await verifyWebhook(body, headers, secret)).toEqual(JSON.parse(body));
    expect(await verifyWebhook(Buffer.from(body), headers, secret)).toEqual(JSON.parse(body));
  });

  it('agrees with the library on every case, accepted or refused', async () => {
    const now = nowSeconds();
    const good = sign(secret, id, now, body);
    const cases: Array<[string, string, Record<string, string>, string]> = [
      ['signed now', body, headersFor(good), 'accepted'],
      ['new secret first, then the old one', body, headersFor(`${sign(otherSecret, id, now, body)} ${good}`), 'accepted'],
      ['an unknown version beside v1', body, headersFor(`v1a,AAAA ${good}`), 'accepted'],
      ['4 minutes old', body, headersFor(sign(secret, id, now - 240, body), now - 240), 'accepted'],
      ['6 minutes old', body, headersFor(sign(secret, id, now - 360, body), now - 360), 'timestamp_too_old'],
      ['6 minutes ahead', body, headersFor(sign(secret, id, now + 360, body), now + 360), 'timestamp_too_new'],
      ['body changed', body.replace('v2', 'v3'), headersFor(good), 'no_matching_signature'],
      ['body re-serialised', JSON.stringify(JSON.parse(body), null, 1), headersFor(good), 'no_matching_signature'],
      ['another webhook-id', body, headersFor(good, now, 'msg_other'), 'no_matching_signature'],
      ['another secret only', body, headersFor(sign(otherSecret, id, now, body)), 'no_matching_signature'],
      ['signature truncated', body, headersFor(good.slice(0, -4)), 'no_matching_signature'],
      ['no version', body, headersFor(good.slice(3)), 'no_matching_signature'],
      ['timestamp not a number', body, headersFor(good, Number.NaN), 'invalid_timestamp'],
      ['no signature header', body, { 'webhook-id': id, 'webhook-timestamp': String(now) }, 'missing_header'],
    ];
    for (const [name, payload, headers, expected] of cases) {
      let library: string;
      try {
        new Webhook(secret).verify(payload, headers);
        library = 'accepted';
      } catch {
        library = 'refused';
      }
      const ours = await reasonOf(verifyWebhook(payload, headers, secret));
      expect(ours, name).toBe(expected);
      expect(library, name).toBe(expected === 'accepted' ? 'accepted' : 'refused');
    }
  });

  it('matches the Standard Webhooks specification example', async () => {
    const headers = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    const now = () => 1614265330_000;
    expect(await verifyWebhook('{"test": 2432232314}', headers, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', { now })).toEqual({
      test: 2432232314,
    });
  });

  it('accepts any of several secrets, as a receiver holds both during a rotation', async () => {
    const headers = headersFor(sign(otherSecret, id, nowSeconds(), body));
    expect(await reasonOf(verifyWebhook(body, headers, [secret, otherSecret]))).toBe('accepted');
    expect(await reasonOf(verifyWebhook(body, headers, [secret]))).toBe('no_matching_signature');
  });

  it('reads headers in any case, from a Headers, a plain object or a list per name as Node gives a repeated header', async () => {
    const now = nowSeconds();
    const signature = sign(secret, id, now, body);
    const fetchHeaders = new Headers(headersFor(signature, now));
    const shouting = { 'Webhook-Id': id, 'WEBHOOK-TIMESTAMP': String(now), 'Webhook-Signature': signature };
    const repeated = { 'webhook-id': id, 'webhook-timestamp': String(now), 'webhook-signature': ['v1,AAAA', signature] };
    for (const headers of [fetchHeaders, shouting, repeated]) expect(await reasonOf(verifyWebhook(body, headers, secret))).toBe('accepted');
  });

  it('refuses a secret that is not base64 and a signed body that is not JSON', async () => {
    const headers = headersFor(sign(secret, id, nowSeconds(), 'not json'));
    expect(await reasonOf(verifyWebhook(body, headers, 'whsec_!!!'))).toBe('invalid_secret');
    expect(await reasonOf(verifyWebhook(body, headers, []))).toBe('invalid_secret');
    expect(await reasonOf(verifyWebhook('not json', headers, secret))).toBe('invalid_body');
  });
});
