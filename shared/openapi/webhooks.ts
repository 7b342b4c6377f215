import { MAX_DELIVERY_ATTEMPTS } from '../webhooks/retry-schedule';
import * as examples from './examples';
import { ref } from './schemas';

const deliveryHeader = (name: string, description: string, schema: Record<string, unknown>) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema,
});

/** The headers of every delivery: Standard Webhooks, and Bureau's own name for the signature. */
const deliveryHeaders = [
  deliveryHeader('webhook-id', 'The delivery id: the same on every retry of this event to this subscription.', {
    type: 'string',
    pattern: '^msg_[A-Za-z0-9_-]{27}$',
  }),
  deliveryHeader('webhook-timestamp', 'Unix seconds of this attempt. Refuse a delivery more than 5 minutes from your clock.', {
    type: 'string',
    pattern: '^\\d+$',
  }),
  deliveryHeader(
    'webhook-signature',
    '`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, keyed with the base64-decoded part of the secret after `whsec_`. For 24 hours after a rotation two signatures, space-separated, new secret first: accept either.',
    { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  ),
  deliveryHeader('x-bureau-signature', 'The same value as `webhook-signature`.', { type: 'string' }),
];

const receiverAnswers = {
  '2XX': { description: 'Accepted: answer within 10 seconds. Only the first 64 KiB of the answer is read.' },
  '410': { description: 'Stop: the subscription is disabled, with `disabledReason`.' },
  default: {
    description: `Anything else (another status, a redirect, a timeout, a refused connection) is retried: at once, 5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h, ${MAX_DELIVERY_ATTEMPTS} attempts in all; a \`Retry-After\` can lengthen a wait up to 12 h.`,
  },
};

const webhook = (summary: string, description: string, example: unknown) => ({
  post: {
    operationId: summary.replace(/\W+(\w)/g, (_, letter: string) => letter.toUpperCase()).replace(/^\w/, (letter) => letter.toLowerCase()),
    summary,
    description: `${description} Verify the signature on the raw body before parsing it; skip an \`idempotencyKey\` already handled.`,
    tags: ['Webhooks'],
    security: [],
    parameters: deliveryHeaders,
    requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookEvent'), example } } },
    responses: receiverAnswers,
  },
});

/** OpenAPI 3.1's top-level `webhooks`: what Bureau sends to a subscription's URL. */
export function webhooks(): Record<string, unknown> {
  return {
    'profile.changed': webhook(
      'Profile changed',
      "A block's content changed; one event per changed block (`overview`, `tradingStatus`, `filingBehaviour`, `riskOfFailure`, `creditCapacity`). Re-fetch the profile and read the block named.",
      examples.profileChanged,
    ),
    'profile.early_signal.detected': webhook(
      'Early signal detected',
      'A signal with a new id appears in `earlySignals`.',
      examples.signalDetected,
    ),
    'profile.early_signal.updated': webhook(
      'Early signal updated',
      "An existing signal's state became `superseded` or `expired`.",
      examples.signalUpdated,
    ),
    'webhook.test': webhook('Test event', 'Sent by `POST /v1/webhooks/{id}/test`: it names no company and no block.', examples.testEvent),
  };
}
