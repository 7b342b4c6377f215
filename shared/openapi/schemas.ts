import { TOKEN_LIFETIME_SECONDS } from '../auth/token-policy';
import { BLOCK_NAMES, JURISDICTIONS } from '../companies/profile';
import profileSchema from '../companies/schema/profile.v1.schema.json' with { type: 'json' };
import { PROFILE_EVENT_TYPES, TEST_EVENT_TYPE } from '../events/envelope';
import { MAX_URL_LENGTH } from '../webhooks/endpoint-url';
import { RESPONSE_EXCERPT_BYTES } from '../webhooks/response-excerpt';
import { SUBSCRIPTION_STATUSES } from '../webhooks/subscription';
import { MAX_FILTERED_COMPANIES } from '../webhooks/subscription-filters';

/** A JSON Schema 2020-12 object, as OpenAPI 3.1 takes it. */
export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
const instant: Schema = { type: 'string', format: 'date-time' };
const cursor: Schema = {
  type: ['string', 'null'],
  description: 'Where the next page starts; null on the last page. Opaque: send it back unchanged.',
};

/** A page of a listing: its items and where the next page starts. */
const page = (item: string): Schema => ({
  type: 'object',
  required: ['items', 'nextCursor'],
  properties: { items: { type: 'array', items: ref(item) }, nextCursor: cursor },
});

const PROFILE_DEF_NAMES: Readonly<Record<string, string>> = {
  overview: 'ProfileOverview',
  tradingStatus: 'ProfileTradingStatus',
  filingBehaviour: 'ProfileFilingBehaviour',
  riskOfFailure: 'ProfileRiskOfFailure',
  previousRisk: 'PreviousRisk',
  money: 'Money',
  filedAmount: 'FiledAmount',
  periodFinancials: 'PeriodFinancials',
  financials: 'Financials',
  creditCapacity: 'ProfileCreditCapacity',
  earlySignal: 'EarlySignal',
  earlySignals: 'ProfileEarlySignals',
  provenance: 'Provenance',
};

/** Points the profile schema's own `#/$defs/x` references at the components they become. */
function rehomeReferences(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rehomeReferences);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => {
      if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')) {
        const name = PROFILE_DEF_NAMES[inner.slice('#/$defs/'.length)];
        if (!name) throw new Error(`The profile schema refers to ${inner}, which has no component name`);
        return [key, `#/components/schemas/${name}`];
      }
      return [key, rehomeReferences(inner)];
    }),
  );
}

/**
 * The profile's schema is the one the import validates every profile with
 * (shared/companies/schema/profile.v1.schema.json): taken as it is, its $defs made components.
 */
function profileComponents(): Record<string, Schema> {
  const { $schema: _dialect, $id: _id, $defs, ...profile } = profileSchema as Schema & { $defs: Record<string, Schema> };
  const components: Record<string, Schema> = { Profile: rehomeReferences(profile) as Schema };
  for (const [def, schema] of Object.entries($defs)) {
    const name = PROFILE_DEF_NAMES[def];
    if (!name) throw new Error(`The profile schema's $defs/${def} has no component name`);
    components[name] = rehomeReferences(schema) as Schema;
  }
  return components;
}

const jurisdiction: Schema = { type: 'string', enum: [...JURISDICTIONS] };
const block: Schema = { type: 'string', enum: [...BLOCK_NAMES] };
const profileEventType: Schema = { type: 'string', enum: [...PROFILE_EVENT_TYPES] };
const companyKey: Schema = {
  type: 'string',
  pattern: '^(GB|IE):[A-Z0-9]+$',
  description: '`JURISDICTION:NUMBER`, the number in canonical form (`GB:01234567`, `IE:123456`).',
};

/** Filters as a request sends them (`companies` in any usual spelling) or as the API shows them (canonical). */
const filters = (companies: Schema): Schema => ({
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  description:
    'Which events the subscription receives. Each list is optional; a list present lets through only events whose value is in it, and all lists present must agree. The test event ignores filters.',
  properties: {
    eventTypes: { type: 'array', minItems: 1, uniqueItems: true, items: profileEventType },
    blocks: { type: 'array', minItems: 1, uniqueItems: true, items: block },
    jurisdictions: { type: 'array', minItems: 1, uniqueItems: true, items: jurisdiction },
    companies: { type: 'array', minItems: 1, maxItems: MAX_FILTERED_COMPANIES, items: companies },
  },
});

const subscriptionName: Schema = {
  type: 'string',
  minLength: 1,
  maxLength: 100,
  description: 'One line of visible text: no control characters, lone surrogates, or bidirectional overrides and isolates.',
};
const subscriptionUrl: Schema = {
  type: 'string',
  format: 'uri',
  maxLength: MAX_URL_LENGTH,
  description:
    'An https URL without credentials or fragment, on port 443 or 8443 (unless the operator allows others), whose host is or resolves only to public addresses.',
};

const subscriptionProperties: Record<string, Schema> = {
  id: { type: 'string', pattern: '^wh_[A-Za-z0-9_-]+$' },
  name: { type: 'string' },
  url: { type: 'string' },
  status: { type: 'string', enum: [...SUBSCRIPTION_STATUSES] },
  createdAt: instant,
  updatedAt: instant,
  disabledReason: {
    type: ['string', 'null'],
    description: 'Why the service disabled it: the endpoint answered 410, or nothing was delivered for days.',
  },
  failingSince: { ...nullable(instant), description: 'The first failed attempt since the last success.' },
  filters: { ...nullable(ref('SubscriptionFilters')), description: 'null: every event of the companies the client watches.' },
};
const subscriptionRequired = ['id', 'name', 'url', 'status', 'createdAt', 'updatedAt', 'disabledReason', 'failingSince', 'filters'];

const signingSecret: Schema = {
  type: 'string',
  pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
  description: 'A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes.',
};

/** The webhook body: the envelope and nothing else. Fields may be added within v1. */
const envelopeProperties: Record<string, Schema> = {
  type: { type: 'string', enum: [...PROFILE_EVENT_TYPES, TEST_EVENT_TYPE] },
  apiVersion: { const: 'v1' },
  occurredAt: { ...instant, description: "The profile's `updatedAt` after the change; for a test event, when it was requested." },
  idempotencyKey: {
    type: 'string',
    description:
      'Derived from the change alone: `profile.changed:<jurisdiction>:<number>:<block>:v<version>`, `early_signal:<jurisdiction>:<number>:<signalId>:<state>`, or `webhook.test:<subscriptionId>:<nonce>`.',
  },
  block: { ...nullable(block), description: 'The profile block to re-fetch; null for a test event.' },
  data: {
    type: 'object',
    required: ['jurisdiction', 'companyNumber'],
    properties: { jurisdiction: nullable(jurisdiction), companyNumber: { type: ['string', 'null'] } },
  },
};
const envelopeRequired = ['type', 'apiVersion', 'occurredAt', 'idempotencyKey', 'block', 'data'];

/** Every schema the document names, by component name. */
export function componentSchemas(): Record<string, Schema> {
  return {
    Problem: {
      type: 'object',
      description:
        'An RFC 9457 problem document with a stable machine code in `error`: switch on `error`, never on `detail`, which is for people. New codes may be added within v1.',
      required: ['type', 'title', 'status', 'error', 'detail'],
      properties: {
        type: { type: 'string', format: 'uri' },
        title: { type: 'string' },
        status: { type: 'integer', minimum: 400, maximum: 599 },
        error: { type: 'string', pattern: '^[a-z_]+$' },
        detail: { type: 'string' },
        parameter: { type: 'string', description: 'The query parameter or body field at fault, where there is one.' },
        field: { type: 'string', description: 'The body field at fault, where there is one.' },
        rule: { type: 'string', description: 'For `invalid_url`: the rule the URL broke.' },
      },
    },
    GatewayError: {
      type: 'object',
      description: "The API gateway's own answer, before any of Bureau's code runs: the cause is never shown.",
      required: ['message'],
      properties: { message: { type: 'string' } },
    },
    OAuthError: {
      type: 'object',
      description: 'RFC 6749 §5.2.',
      required: ['error', 'error_description'],
      properties: {
        error: { type: 'string', enum: ['invalid_request', 'unsupported_grant_type', 'invalid_client', 'rate_limited'] },
        error_description: { type: 'string' },
      },
    },
    TokenRequest: {
      type: 'object',
      required: ['grant_type'],
      properties: {
        grant_type: { const: 'client_credentials' },
        client_id: { type: 'string', minLength: 1, description: 'Required unless sent in HTTP Basic.' },
        client_secret: { type: 'string', minLength: 1, description: 'Required unless sent in HTTP Basic; never both.' },
      },
    },
    Token: {
      type: 'object',
      required: ['access_token', 'token_type', 'expires_in'],
      properties: {
        access_token: { type: 'string', description: 'An RFC 9068 JWT signed with Ed25519; treat it as opaque.' },
        token_type: { const: 'Bearer' },
        expires_in: { const: TOKEN_LIFETIME_SECONDS },
      },
    },
    JsonWebKeySet: {
      type: 'object',
      required: ['keys'],
      properties: {
        keys: {
          type: 'array',
          items: {
            type: 'object',
            required: ['kty', 'crv', 'x', 'kid', 'alg', 'use'],
            properties: {
              kty: { const: 'OKP' },
              crv: { const: 'Ed25519' },
              x: { type: 'string' },
              kid: { type: 'string' },
              alg: { const: 'EdDSA' },
              use: { const: 'sig' },
            },
          },
        },
      },
    },
    SearchResult: {
      type: 'object',
      required: ['companyNumber', 'jurisdiction', 'name', 'status', 'type', 'incorporatedOn', 'match'],
      properties: {
        companyNumber: { type: 'string' },
        jurisdiction,
        name: { type: 'string' },
        status: { type: 'string' },
        type: { type: 'string' },
        incorporatedOn: { type: ['string', 'null'], format: 'date' },
        match: ref('SearchMatch'),
        matchedPreviousName: {
          type: 'string',
          description: 'The former name the company was found by; absent when its current name matched.',
        },
      },
    },
    SearchMatch: {
      type: 'object',
      description: 'Why the item matched. New `type` values may be added within v1.',
      required: ['type'],
      properties: {
        type: { type: 'string', enum: ['company_number', 'exact', 'name_prefix', 'word_prefix', 'fuzzy'] },
        on: { type: 'array', items: { type: 'string' }, description: 'The name words the query words matched.' },
        corrected: {
          type: 'array',
          description: 'For fuzzy matches: which query words were corrected to which.',
          items: { type: 'object', required: ['from', 'to'], properties: { from: { type: 'string' }, to: { type: 'string' } } },
        },
      },
    },
    SearchPage: {
      type: 'object',
      required: ['items', 'nextCursor'],
      properties: {
        items: { type: 'array', items: ref('SearchResult') },
        nextCursor: cursor,
        suggestion: { type: 'string', description: 'The query with its misspelt words corrected, when the page holds corrected matches.' },
      },
    },
    ...profileComponents(),
    Watch: {
      type: 'object',
      required: ['jurisdiction', 'companyNumber', 'watchedSince', 'lastFetchedAt'],
      properties: {
        jurisdiction,
        companyNumber: { type: 'string' },
        watchedSince: instant,
        lastFetchedAt: { ...instant, description: 'The last fetch, kept to the hour: a fetch within an hour of it does not move it.' },
      },
    },
    WatchesPage: page('Watch'),
    SubscriptionFilters: filters(companyKey),
    SubscriptionFiltersInput: filters({
      type: 'string',
      minLength: 3,
      maxLength: 40,
      description: '`JURISDICTION:NUMBER`, the number in any spelling a profile lookup takes (`gb:1234567` is kept as `GB:01234567`).',
    }),
    NewSubscription: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'url'],
      properties: { name: subscriptionName, url: subscriptionUrl, filters: nullable(ref('SubscriptionFiltersInput')) },
    },
    SubscriptionChange: {
      type: 'object',
      additionalProperties: false,
      properties: {
        name: subscriptionName,
        url: subscriptionUrl,
        status: {
          type: 'string',
          enum: [...SUBSCRIPTION_STATUSES],
          description: 'ACTIVE again clears `disabledReason` and `failingSince`.',
        },
        filters: { ...nullable(ref('SubscriptionFiltersInput')), description: 'null removes them.' },
      },
    },
    Subscription: {
      type: 'object',
      description: 'A subscription in a listing: without its signing secret.',
      required: subscriptionRequired,
      properties: subscriptionProperties,
    },
    SubscriptionWithSecret: {
      type: 'object',
      description: 'A subscription as an answer about it alone shows it: with its signing secret.',
      required: [...subscriptionRequired, 'signingSecret'],
      properties: { ...subscriptionProperties, signingSecret },
    },
    RotatedSubscription: {
      type: 'object',
      required: [...subscriptionRequired, 'signingSecret', 'previousSigningSecretExpiresAt'],
      properties: {
        ...subscriptionProperties,
        signingSecret,
        previousSigningSecretExpiresAt: { ...instant, description: 'Until then the previous secret signs beside the new one.' },
      },
    },
    SubscriptionsPage: page('Subscription'),
    WebhookEvent: {
      type: 'object',
      description: 'The body of every webhook delivery. It carries no values: re-fetch the profile and read the block named.',
      required: envelopeRequired,
      properties: envelopeProperties,
    },
    ClientEvent: {
      type: 'object',
      description: 'An event as GET /v1/events lists it: the webhook body with an id of its own, the same for every reader.',
      required: ['id', ...envelopeRequired],
      properties: { id: { type: 'string', pattern: '^evt_[A-Za-z0-9_-]+$' }, ...envelopeProperties },
    },
    EventsPage: page('ClientEvent'),
    TestDelivery: {
      type: 'object',
      required: ['deliveryId', 'event'],
      properties: { deliveryId: ref('DeliveryId'), event: ref('WebhookEvent') },
    },
    DeliveryId: {
      type: 'string',
      pattern: '^msg_[A-Za-z0-9_-]{27}$',
      description: 'The `webhook-id` header of every attempt of the delivery.',
    },
    DeliveryAttempt: {
      type: 'object',
      required: [
        'deliveryId',
        'eventType',
        'idempotencyKey',
        'jurisdiction',
        'companyNumber',
        'block',
        'attempt',
        'attemptedAt',
        'outcome',
        'httpStatus',
        'responseBody',
        'responseBodyTruncated',
        'error',
        'errorMessage',
        'durationMs',
        'nextAttemptAt',
      ],
      properties: {
        deliveryId: ref('DeliveryId'),
        eventType: { type: 'string' },
        idempotencyKey: { type: 'string' },
        jurisdiction: {
          ...nullable(jurisdiction),
          description: "The company the event names, as in the event's `data`; null for a test event.",
        },
        companyNumber: { type: ['string', 'null'], description: "As in the event's `data`; null for a test event." },
        block: { ...nullable(block), description: "The event's `block`; null for a test event." },
        attempt: { type: 'integer', minimum: 1 },
        attemptedAt: instant,
        outcome: { type: 'string', enum: ['delivered', 'failed', 'dropped'] },
        httpStatus: { type: ['integer', 'null'], description: 'The status the endpoint answered; null when it did not answer.' },
        responseBody: {
          type: ['string', 'null'],
          // Each byte read gives at most one character.
          maxLength: RESPONSE_EXCERPT_BYTES,
          description: `The start of the body the endpoint answered, as text: its first ${RESPONSE_EXCERPT_BYTES} bytes decoded as UTF-8 (bytes that are not UTF-8 become U+FFFD). Null when the endpoint did not answer (see \`error\`), and for attempts logged before answers were kept.`,
        },
        responseBodyTruncated: {
          type: ['boolean', 'null'],
          description:
            'Whether the answer went on past `responseBody`, or was cut short by the deadline or a reset; null when the endpoint did not answer.',
        },
        error: {
          type: ['string', 'null'],
          description:
            'A failure without an HTTP status: `timeout`, `connection_refused`, `connection_reset`, `dns_failure`, `address_not_public`, `tls_error`, `url_not_allowed`, `connection_error`.',
        },
        errorMessage: { type: ['string', 'null'] },
        durationMs: {
          type: 'integer',
          minimum: 0,
          description: 'How long the attempt took, from connecting to reading `responseBody` (or to the failure).',
        },
        nextAttemptAt: { ...nullable(instant), description: 'When the next attempt is due; null when none will follow.' },
      },
    },
    DeliveriesPage: page('DeliveryAttempt'),
    RetryQueued: {
      type: 'object',
      required: ['deliveryId', 'status'],
      properties: { deliveryId: ref('DeliveryId'), status: { const: 'queued' } },
    },
    RecoveryRequest: {
      type: 'object',
      additionalProperties: false,
      required: ['since'],
      properties: {
        since: { ...instant, description: 'RFC 3339 with its offset, within the last 14 days, not in the future.' },
        cursor: { type: 'string', description: 'The `nextCursor` of the previous call.' },
      },
    },
    Recovery: {
      type: 'object',
      required: ['since', 'queued', 'nextCursor'],
      properties: { since: instant, queued: { type: 'integer', minimum: 0 }, nextCursor: cursor },
    },
  };
}
