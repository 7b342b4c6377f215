import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { secretKey, sign, signedHeaders } from '../../../shared/webhooks/signature';
import { generateSigningSecret } from '../../../shared/webhooks/subscription';

const body = JSON.stringify({ type: 'profile.changed', apiVersion: 'v1', data: { jurisdiction: 'GB', companyNumber: '00000001' } });
const now = new Date('2026-06-01T12:00:00.000Z');

describe('Standard Webhooks signatures', () => {
  it('equal the reference library’s signature for the same id, timestamp and body', () => {
    const secret = generateSigningSecret();
    const timestamp = new Date(Math.floor(now.getTime() / 1000) * 1000);
    expect(sign(secretKey(secret), 'msg_1', timestamp.getTime() / 1000, body)).toBe(new Webhook(secret).sign('msg_1', timestamp, body));
  });

  it('verify with the library, and any change to the body, id or timestamp fails it', () => {
    const secret = generateSigningSecret();
    const headers = signedHeaders([{ secret, createdAt: now.toISOString() }], 'msg_2', new Date(), body);
    const webhook = new Webhook(secret);
    expect(webhook.verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => webhook.verify(`${body} `, headers)).toThrow();
    expect(() => webhook.verify(body, { ...headers, 'webhook-id': 'msg_3' })).toThrow();
    expect(() => webhook.verify(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) })).toThrow();
  });

  it('carry one signature per secret in force, newest first, and drop a previous secret once its grace ends', () => {
    const previous = { secret: generateSigningSecret(), createdAt: '2026-05-01T00:00:00.000Z', expiresAt: '2026-06-02T00:00:00.000Z' };
    const current = { secret: generateSigningSecret(), createdAt: '2026-06-01T00:00:00.000Z' };
    const during = signedHeaders([previous, current], 'msg_4', now, body);
    const after = signedHeaders([previous, current], 'msg_4', new Date('2026-06-02T00:00:01.000Z'), body);

    expect(during['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(during['webhook-signature']?.split(' ')[0]).toBe(sign(secretKey(current.secret), 'msg_4', now.getTime() / 1000, body));
    expect(during['x-bureau-signature']).toBe(during['webhook-signature']);
    expect(after['webhook-signature']?.split(' ')).toHaveLength(1);
  });
});
