import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { secretKey, sign, signedHeaders } from '../../../shared/webhooks/signature';
import type { SigningSecret } from '../../../shared/webhooks/subscription';
import { propertyRuns } from '../../support/property-runs';

const runs = propertyRuns(300, 20261125);

/** A Standard Webhooks secret of any key length the spec allows (24 to 64 bytes). */
const secret = fc.uint8Array({ minLength: 24, maxLength: 64 }).map((bytes) => `whsec_${Buffer.from(bytes).toString('base64')}`);
/** Any text at all, lone surrogates included, as well as JSON. */
const anyBody = fc.oneof(fc.string({ unit: 'binary', maxLength: 400 }), fc.json({ maxDepth: 3 }));
/** The ids deliveries carry, and any printable text: spaces and commas too, which the signature header uses as separators. */
const id = fc.oneof(
  fc.stringMatching(/^msg_[A-Za-z0-9_-]{27}$/),
  fc.stringMatching(/^[!-+\--~]{1,60}$/),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 60 }),
);
const seconds = fc.integer({ min: 1_000_000_000, max: 4_000_000_000 });

/** A rotation in progress: the previous secret, still in its grace at `seconds`, and the new one. */
const rotation = fc
  .tuple(secret, secret, seconds, fc.integer({ min: 1, max: 24 * 3600 }))
  .filter(([previous, current]) => previous !== current)
  .map(([previous, current, at, graceLeft]): { secrets: SigningSecret[]; at: Date } => {
    const created = new Date((at - 3600) * 1000).toISOString();
    return {
      secrets: [
        { secret: previous, createdAt: created, expiresAt: new Date((at + graceLeft) * 1000).toISOString() },
        { secret: current, createdAt: created },
      ],
      at: new Date(at * 1000),
    };
  });

/** The reference checks a delivery's timestamp against its own clock: these run with the clock at the signing time. */
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

const verifies = (key: string, payload: string | Buffer, headers: Record<string, string>): boolean => {
  try {
    new Webhook(key).verify(payload, headers, { jsonParse: false });
    return true;
  } catch {
    return false;
  }
};

describe('signatures, for any body, id, time and secrets', () => {
  it("equal the Standard Webhooks reference's own signature", () => {
    fc.assert(
      fc.property(secret, id, seconds, anyBody, (key, messageId, at, body) => {
        expect(sign(secretKey(key), messageId, at, body)).toBe(new Webhook(key).sign(messageId, new Date(at * 1000), body));
      }),
      runs,
    );
  });

  it('verify with the reference under either secret while a rotation lasts, and under no other secret', () => {
    fc.assert(
      fc.property(rotation, id, anyBody, secret, ({ secrets, at }, messageId, body, stranger) => {
        fc.pre(secrets.every((each) => each.secret !== stranger));
        vi.setSystemTime(at);
        const headers = signedHeaders(secrets, messageId, at, body);
        for (const { secret: key } of secrets) expect(verifies(key, body, { ...headers })).toBe(true);
        expect(verifies(stranger, body, { ...headers })).toBe(false);
      }),
      runs,
    );
  });

  it('fail to verify once any byte of the body, the id, the timestamp or the signatures changes', () => {
    const change = fc.oneof(
      fc.record({ of: fc.constant('body' as const), at: fc.nat(), bit: fc.nat(7) }),
      fc.record({ of: fc.constant('id' as const), to: id }),
      fc.record({ of: fc.constant('timestamp' as const), by: fc.integer({ min: -299, max: 299 }).filter((by) => by !== 0) }),
      fc.record({ of: fc.constant('signature' as const), at: fc.nat() }),
    );
    fc.assert(
      fc.property(rotation, id, anyBody, change, ({ secrets, at }, messageId, body, changed) => {
        vi.setSystemTime(at);
        const headers = { ...signedHeaders(secrets, messageId, at, body) };
        let payload: string | Buffer = body;
        if (changed.of === 'body') {
          const bytes = Buffer.from(body, 'utf8');
          fc.pre(bytes.length > 0);
          const index = changed.at % bytes.length;
          bytes[index] = (bytes[index] as number) ^ (1 << changed.bit);
          // A flip inside a malformed sequence can decode to the same text: the receiver sees no change.
          fc.pre(bytes.toString('utf8') !== body);
          payload = bytes;
        }
        if (changed.of === 'id') {
          fc.pre(changed.to !== messageId);
          headers['webhook-id'] = changed.to;
        }
        // Within the reference's five minutes, so only the signature can refuse it.
        if (changed.of === 'timestamp') headers['webhook-timestamp'] = String(Math.floor(at.getTime() / 1000) + changed.by);
        if (changed.of === 'signature') {
          // Every signature of the header, or the untouched one would still verify.
          headers['webhook-signature'] = (headers['webhook-signature'] as string)
            .split(' ')
            .map((signature) => {
              const index = 'v1,'.length + (changed.at % (signature.length - 'v1,'.length));
              const replacement = signature[index] === 'A' ? 'B' : 'A';
              return `${signature.slice(0, index)}${replacement}${signature.slice(index + 1)}`;
            })
            .join(' ');
        }
        for (const { secret: key } of secrets) expect(verifies(key, payload, headers), `${changed.of} changed`).toBe(false);
      }),
      runs,
    );
  });

  it('stop signing with the previous secret the moment its grace ends', () => {
    fc.assert(
      fc.property(rotation, id, anyBody, fc.integer({ min: 0, max: 48 * 3600 }), ({ secrets }, messageId, body, after) => {
        const [previous, current] = secrets as [SigningSecret, SigningSecret];
        const at = new Date(Date.parse(previous.expiresAt as string) + after * 1000);
        vi.setSystemTime(at);
        const headers = signedHeaders(secrets, messageId, at, body);
        expect(headers['webhook-signature']?.split(' ')).toHaveLength(1);
        expect(verifies(current.secret, body, { ...headers })).toBe(true);
        expect(verifies(previous.secret, body, { ...headers })).toBe(false);
      }),
      runs,
    );
  });
});
