import { BLOCK_NAMES } from '../companies/profile';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../companies/request-params';
import { PROFILE_EVENT_TYPES } from '../events/envelope';
import { MAX_REQUEST_BODY_BYTES } from '../http/body-limit';
import { MAX_CURSOR_LENGTH } from '../paging/cursor';
import { MANUAL_SENDS_PER_MINUTE, RECOVERY_BACKLOG_MINUTES, RECOVERY_PACE_PER_MINUTE } from '../webhooks/deliveries';
import { ATTEMPT_READ_BUDGET } from '../webhooks/delivery-log';
import { MAX_SUBSCRIPTIONS_PER_CLIENT } from '../webhooks/subscription';
import { MAX_FILTERED_COMPANIES } from '../webhooks/subscription-filters';
import * as examples from './examples';
import { ref, type Schema } from './schemas';

type Operation = Record<string, unknown>;
type Responses = Record<string, unknown>;

const PROBLEM = 'application/problem+json';
const response = (name: string) => ({ $ref: `#/components/responses/${name}` });
const parameter = (name: string) => ({ $ref: `#/components/parameters/${name}` });
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

const jsonBody = (schema: Schema, example?: unknown) => ({
  'application/json': { schema, ...(example === undefined ? {} : { example }) },
});

/** A problem answer naming the codes a client can meet there, e.g. "invalid_limit, invalid_cursor". */
const problem = (description: string, codes: readonly string[]) => ({
  description: `${description} \`error\`: ${codes.map((code) => `\`${code}\``).join(', ')}.`,
  headers: { 'Cache-Control': header('CacheControl') },
  content: { [PROBLEM]: { schema: ref('Problem') } },
});

const rateHeaders = { RateLimit: header('RateLimit'), 'RateLimit-Policy': header('RateLimitPolicy') };

/** What every bearer-protected call may answer besides its own statuses. */
const protectedResponses: Responses = {
  '401': response('Unauthorized'),
  '429': response('RateLimited'),
  '500': response('InternalError'),
  '503': response('ServiceUnavailable'),
};
const bodyResponses: Responses = { '413': response('PayloadTooLarge'), '415': response('UnsupportedMediaType') };

/** GB or IE in any letter case, as the API reads a jurisdiction parameter. */
const jurisdictionInAnyCase: Schema = { type: 'string', pattern: '^([Gg][Bb]|[Ii][Ee])$' };

const listingParameters = [parameter('limit'), parameter('cursor')];
const webhookId = parameter('webhookId');

const ok = (description: string, schema: Schema, example: unknown, headers: Record<string, unknown> = {}) => ({
  description,
  headers: { ...rateHeaders, 'Cache-Control': header('CacheControl'), ...headers },
  content: jsonBody(schema, example),
});

const op = (operation: Operation): Operation => ({ security: [{ bearer: [] }, { oauth2: [] }], ...operation });

export function paths(): Record<string, Record<string, unknown>> {
  return withPathRefusals({
    '/v1/oauth/token': {
      post: {
        operationId: 'createToken',
        tags: ['Authentication'],
        summary: 'Exchange client credentials for an access token',
        description:
          'OAuth 2.0 client credentials (RFC 6749 §4.4). The credentials go in the JSON body, in a form body (`client_secret_post`) or in HTTP Basic (`client_secret_basic`), never in two places. Cache the token and renew it about 60 s before it expires, or after a 401.',
        security: [{}, { clientBasic: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: ref('TokenRequest'), example: examples.tokenRequest },
            'application/x-www-form-urlencoded': { schema: ref('TokenRequest') },
          },
        },
        responses: {
          '200': {
            description: 'A bearer token for `expires_in` seconds.',
            headers: { ...rateHeaders, 'Cache-Control': header('NoStore'), Pragma: header('Pragma') },
            content: jsonBody(ref('Token'), examples.token),
          },
          '400': oauthError('Malformed request: `invalid_request` or `unsupported_grant_type`.'),
          '401': {
            ...oauthError('`invalid_client`: unknown id, wrong secret or disabled client, one answer for all three.'),
            headers: {
              'Cache-Control': header('NoStore'),
              'WWW-Authenticate': { description: 'With HTTP Basic: `Basic realm="bureau"`.', schema: { type: 'string' } },
              ...rateHeaders,
            },
          },
          '413': response('PayloadTooLarge'),
          '429': {
            description:
              '`rate_limited` (an OAuth error): the client is over its limit, or too many failed requests came from this address or named this client id. Or `throttled` (a problem document): the token function is busy for the whole service.',
            headers: { 'Retry-After': header('RetryAfter'), 'Cache-Control': header('CacheControl'), ...rateHeaders },
            content: { 'application/json': { schema: ref('OAuthError') }, [PROBLEM]: { schema: ref('Problem') } },
          },
          '500': response('InternalError'),
          '503': response('ServiceUnavailable'),
        },
      },
    },
    '/v1/.well-known/jwks.json': {
      get: {
        operationId: 'getJwks',
        tags: ['Authentication'],
        summary: 'The public keys that sign access tokens',
        description: 'For anyone who wants to check tokens themselves. Cache it for at most a minute.',
        security: [{}],
        responses: {
          '200': {
            description: 'The JSON Web Key Set.',
            headers: { 'Cache-Control': header('CacheControl') },
            content: jsonBody(ref('JsonWebKeySet'), examples.jwks),
          },
          '429': response('Throttled'),
          '500': response('InternalError'),
          '503': response('ServiceUnavailable'),
        },
      },
    },
    '/v1/openapi.json': {
      get: {
        operationId: 'getOpenApiDocument',
        tags: ['Reference'],
        summary: 'This document',
        description: 'The API as OpenAPI 3.1, cacheable: send its ETag back in `If-None-Match`.',
        security: [{}],
        parameters: [parameter('ifNoneMatch')],
        responses: {
          '200': {
            description: 'The OpenAPI document.',
            headers: { ETag: header('ETag'), 'Cache-Control': header('CacheControl') },
            content: {
              'application/json': { schema: { type: 'object', required: ['openapi'], properties: { openapi: { type: 'string' } } } },
            },
          },
          '304': { description: 'Not modified since the ETag sent.', headers: { ETag: header('ETag') } },
          '429': response('Throttled'),
          '500': response('InternalError'),
          '503': response('ServiceUnavailable'),
        },
      },
    },
    '/v1/search': {
      get: op({
        operationId: 'searchCompanies',
        tags: ['Companies'],
        summary: 'Search companies by name or number',
        description:
          'Names are compared after folding case, accents and punctuation, reading `&` as `and` and dropping legal suffixes. Results come in rank order: company number, exact name, name prefix, word prefix, then (only when nothing matches as typed) names one typo away. A page can hold fewer than `limit` items and still have a cursor.',
        parameters: [
          {
            name: 'q',
            in: 'query',
            required: true,
            description:
              'A company name, part of one, or a company number: 2–200 characters after trimming, at most 512 bytes once normalised, no word over 128 bytes.',
            schema: { type: 'string', minLength: 2, maxLength: 200 },
            example: 'cpa gates',
          },
          { ...parameter('jurisdictionRequired') },
          ...listingParameters,
        ],
        responses: {
          '200': ok('A page of matches.', ref('SearchPage'), examples.searchPage),
          '400': problem('A parameter is missing, repeated, empty or malformed.', [
            'invalid_query',
            'invalid_jurisdiction',
            'invalid_limit',
            'invalid_cursor',
            'malformed_query_string',
          ]),
          ...protectedResponses,
        },
      }),
    },
    '/v1/profile/{companyNumber}': {
      get: op({
        operationId: 'getProfile',
        tags: ['Companies'],
        summary: "A company's profile",
        description:
          "Identity, version and the six blocks, each with its provenance. Every 200 or 304 records that the calling client watches the company: its webhooks then tell of the company's changes. A 404 records nothing.",
        parameters: [
          {
            name: 'companyNumber',
            in: 'path',
            required: true,
            description: 'Any usual spelling (`1234`, `sc 1234`, `SC001234`); answered in canonical form. At most 32 characters.',
            schema: { type: 'string', minLength: 1, maxLength: 32 },
            example: '15380840',
          },
          {
            name: 'jurisdiction',
            in: 'query',
            required: false,
            description:
              'GB or IE, any letter case. May be left out only when the number can belong to one register alone (a letter prefix or 8 digits is GB).',
            schema: jurisdictionInAnyCase,
          },
          parameter('ifNoneMatch'),
        ],
        responses: {
          '200': ok('The profile.', ref('Profile'), examples.profile, { ETag: header('ETag') }),
          '304': {
            description: 'The profile has not changed since the ETag sent; the watch is recorded all the same.',
            headers: { ETag: header('ETag'), 'Cache-Control': header('CacheControl'), ...rateHeaders },
          },
          '400': problem('The number or jurisdiction is malformed, or a plain number of up to 7 digits came without a jurisdiction.', [
            'invalid_company_number',
            'invalid_jurisdiction',
            'jurisdiction_required',
            'malformed_query_string',
            'malformed_path',
          ]),
          '404': problem('A well-formed number the register does not have.', ['company_not_found']),
          ...protectedResponses,
        },
      }),
    },
    '/v1/watches': {
      get: op({
        operationId: 'listWatches',
        tags: ['Companies'],
        summary: 'The companies the client watches',
        description: 'A company is watched from the first time the client fetches its profile.',
        parameters: listingParameters,
        responses: {
          '200': ok('A page of watched companies.', ref('WatchesPage'), examples.watchesPage),
          '400': problem('A malformed parameter.', ['invalid_limit', 'invalid_cursor', 'malformed_query_string']),
          ...protectedResponses,
        },
      }),
    },
    '/v1/events': {
      get: op({
        operationId: 'listEvents',
        tags: ['Events'],
        summary: "The client's events of the last 30 days, newest first",
        description:
          'Every event of the companies the client watches, whether or not it has a webhook endpoint: poll it instead of receiving webhooks, or read what was missed. A filtered page reads at most 1,000 events, so it may hold fewer than `limit` items with a `nextCursor`. To poll, overlap the previous `since` by some minutes and skip the ids already seen.',
        parameters: [
          ...listingParameters,
          {
            name: 'type',
            in: 'query',
            schema: { type: 'string', enum: [...PROFILE_EVENT_TYPES] },
          },
          {
            name: 'block',
            in: 'query',
            schema: {
              type: 'string',
              enum: [...BLOCK_NAMES],
            },
          },
          { name: 'jurisdiction', in: 'query', schema: jurisdictionInAnyCase },
          {
            name: 'companyNumber',
            in: 'query',
            description: 'Read as profile numbers are; a number of 1–7 digits needs `jurisdiction`.',
            schema: { type: 'string', maxLength: 32 },
          },
          {
            name: 'since',
            in: 'query',
            description: 'RFC 3339, inclusive. Default and oldest: 30 days ago (an hour older is read as 30 days ago). Not in the future.',
            schema: { type: 'string', format: 'date-time' },
          },
          {
            name: 'until',
            in: 'query',
            description: 'RFC 3339, inclusive; not before `since`.',
            schema: { type: 'string', format: 'date-time' },
          },
        ],
        responses: {
          '200': ok('A page of events.', ref('EventsPage'), examples.eventsPage),
          '400': problem('A bad parameter value, named in `parameter`.', [
            'invalid_limit',
            'invalid_cursor',
            'invalid_type',
            'invalid_block',
            'invalid_jurisdiction',
            'invalid_company_number',
            'jurisdiction_required',
            'invalid_since',
            'invalid_until',
            'malformed_query_string',
          ]),
          ...protectedResponses,
        },
      }),
    },
    '/v1/webhooks': {
      post: op({
        operationId: 'createWebhook',
        tags: ['Webhooks'],
        summary: 'Register an endpoint to receive webhooks',
        description: `At most ${MAX_SUBSCRIPTIONS_PER_CLIENT} subscriptions per client. The URL is checked as it resolves now, and again at every delivery.`,
        requestBody: { required: true, content: jsonBody(ref('NewSubscription'), examples.newSubscription) },
        responses: {
          '201': ok('The subscription, with its signing secret.', ref('SubscriptionWithSecret'), examples.subscriptionWithSecret, {
            Location: header('Location'),
          }),
          '400': problem(
            `A bad body. For \`invalid_url\`, \`rule\` names the rule broken; \`invalid_filters\` names the values (at most ${MAX_FILTERED_COMPANIES} companies).`,
            ['invalid_body', 'invalid_name', 'invalid_url', 'invalid_filters'],
          ),
          '409': problem(`The client has ${MAX_SUBSCRIPTIONS_PER_CLIENT} subscriptions already.`, ['webhook_limit_reached']),
          ...bodyResponses,
          ...protectedResponses,
        },
      }),
      get: op({
        operationId: 'listWebhooks',
        tags: ['Webhooks'],
        summary: "The client's subscriptions",
        description: 'Listed without their signing secrets: fetch one subscription to see its secret.',
        parameters: listingParameters,
        responses: {
          '200': ok('A page of subscriptions.', ref('SubscriptionsPage'), examples.subscriptionsPage),
          '400': problem('A malformed parameter.', ['invalid_limit', 'invalid_cursor', 'malformed_query_string']),
          ...protectedResponses,
        },
      }),
    },
    '/v1/webhooks/{id}': {
      parameters: [webhookId],
      get: op({
        operationId: 'getWebhook',
        tags: ['Webhooks'],
        summary: 'One subscription, with its signing secret',
        responses: {
          '200': ok('The subscription.', ref('SubscriptionWithSecret'), examples.subscriptionWithSecret),
          '404': notFound,
          ...protectedResponses,
        },
      }),
      patch: op({
        operationId: 'updateWebhook',
        tags: ['Webhooks'],
        summary: 'Change a subscription',
        description: 'Any of name, url, status and filters. Setting status back to ACTIVE clears `disabledReason` and `failingSince`.',
        requestBody: { required: true, content: jsonBody(ref('SubscriptionChange'), { status: 'ACTIVE' }) },
        responses: {
          '200': ok('The subscription as changed.', ref('SubscriptionWithSecret'), examples.subscriptionWithSecret),
          '400': problem('A bad body.', [
            'invalid_body',
            'invalid_name',
            'invalid_url',
            'invalid_status',
            'invalid_filters',
            'malformed_path',
          ]),
          '404': notFound,
          ...bodyResponses,
          ...protectedResponses,
        },
      }),
      delete: op({
        operationId: 'deleteWebhook',
        tags: ['Webhooks'],
        summary: 'Delete a subscription',
        responses: {
          '204': { description: 'Deleted.', headers: { ...rateHeaders, 'Cache-Control': header('CacheControl') } },
          '404': notFound,
          ...protectedResponses,
        },
      }),
    },
    '/v1/webhooks/{id}/rotate-secret': {
      parameters: [webhookId],
      post: op({
        operationId: 'rotateWebhookSecret',
        tags: ['Webhooks'],
        summary: 'Give a subscription a new signing secret',
        description: 'The previous secret keeps signing beside the new one for 24 hours: deliveries carry both signatures, new first.',
        responses: {
          '200': ok('The subscription with its new secret.', ref('RotatedSubscription'), examples.rotatedSubscription),
          '404': notFound,
          ...protectedResponses,
        },
      }),
    },
    '/v1/webhooks/{id}/test': {
      parameters: [webhookId],
      post: op({
        operationId: 'sendTestEvent',
        tags: ['Webhooks'],
        summary: 'Queue a webhook.test event to the subscription',
        description: `Goes through the same queue, signing, retries and log as real events. Test events, retries and recoveries share ${MANUAL_SENDS_PER_MINUTE} a minute per client.`,
        responses: {
          '202': ok('Queued.', ref('TestDelivery'), examples.testDelivery),
          '404': notFound,
          ...protectedResponses,
        },
      }),
    },
    '/v1/webhooks/{id}/deliveries': {
      parameters: [webhookId],
      get: op({
        operationId: 'listDeliveries',
        tags: ['Webhooks'],
        summary: "The subscription's delivery attempts of the last 30 days, newest first",
        description: `Filter by \`status\` (the attempt's outcome) and by company. A filtered page reads at most ${ATTEMPT_READ_BUDGET.toLocaleString('en-GB')} attempts, so it may hold fewer than \`limit\` items with a \`nextCursor\`: follow it to go on.`,
        parameters: [
          ...listingParameters,
          { name: 'status', in: 'query', schema: { type: 'string', enum: ['delivered', 'failed', 'dropped'] } },
          {
            name: 'jurisdiction',
            in: 'query',
            description: 'With `companyNumber`, the register it belongs to; alone, attempts about companies of that register.',
            schema: jurisdictionInAnyCase,
          },
          {
            name: 'companyNumber',
            in: 'query',
            description: 'Read as profile numbers are; a number of 1–7 digits needs `jurisdiction`.',
            schema: { type: 'string', maxLength: 32 },
          },
        ],
        responses: {
          '200': ok('A page of attempts.', ref('DeliveriesPage'), examples.deliveriesPage),
          '400': problem('A malformed parameter.', [
            'invalid_limit',
            'invalid_cursor',
            'invalid_status',
            'invalid_jurisdiction',
            'invalid_company_number',
            'jurisdiction_required',
            'malformed_query_string',
            'malformed_path',
          ]),
          '404': notFound,
          ...protectedResponses,
        },
      }),
    },
    '/v1/webhooks/{id}/deliveries/{deliveryId}/retry': {
      parameters: [webhookId, { name: 'deliveryId', in: 'path', required: true, schema: { type: 'string', maxLength: 64 } }],
      post: op({
        operationId: 'retryDelivery',
        tags: ['Webhooks'],
        summary: 'Send a logged delivery again now',
        description: 'With the same `webhook-id` and body, even one that was delivered.',
        responses: {
          '202': ok('Queued.', ref('RetryQueued'), { deliveryId: examples.deliveryId, status: 'queued' }),
          '404': problem('Not a subscription of this client, or not a delivery of this subscription.', [
            'webhook_not_found',
            'delivery_not_found',
          ]),
          ...protectedResponses,
        },
      }),
    },
    '/v1/webhooks/{id}/recover': {
      parameters: [webhookId],
      post: op({
        operationId: 'recoverDeliveries',
        tags: ['Webhooks'],
        summary: 'Send again every delivery that ended without success since a time',
        description: `Each with its original \`webhook-id\`, up to 1,000 a call, oldest death first; call again with \`nextCursor\` (which holds its \`since\`) until it is null. Each dead delivery is queued by one recovery only, however many run at once. Recovered deliveries of a subscription go out at most ${RECOVERY_PACE_PER_MINUTE} a minute, each at its own slot, and a call counts by the deliveries it queues: one that would book the subscription's recoveries more than ${RECOVERY_BACKLOG_MINUTES} minutes ahead is refused (429 \`recovery_backlog\`) until there is room. Each re-sent delivery starts the retry schedule afresh.`,
        requestBody: { required: true, content: jsonBody(ref('RecoveryRequest'), { since: '2026-11-20T00:00:00Z' }) },
        responses: {
          '202': ok('The page is queued.', ref('Recovery'), { since: '2026-11-20T00:00:00.000Z', queued: 214, nextCursor: null }),
          '400': problem('A bad body.', ['invalid_body', 'invalid_since', 'invalid_cursor', 'malformed_path']),
          '404': notFound,
          '409': problem('The subscription is disabled: enable it first.', ['webhook_disabled']),
          ...bodyResponses,
          ...protectedResponses,
        },
      }),
    },
  });
}

/**
 * A path parameter whose percent-encoding is malformed or not UTF-8 is refused before any function
 * runs (400 `malformed_path`): every operation with one may answer so.
 */
function withPathRefusals(paths: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  for (const [path, item] of Object.entries(paths)) {
    if (!path.includes('{')) continue;
    for (const operation of Object.values(item)) {
      if (Array.isArray(operation)) continue;
      const responses = (operation as { responses: Record<string, unknown> }).responses;
      responses['400'] ??= response('MalformedPath');
    }
  }
  return paths;
}

const notFound = problem('Not a subscription of this client (or none at all).', ['webhook_not_found']);

function oauthError(description: string) {
  return {
    description,
    headers: { 'Cache-Control': header('NoStore') },
    content: { 'application/json': { schema: ref('OAuthError') } },
  };
}

export function componentParameters(): Record<string, unknown> {
  return {
    limit: {
      name: 'limit',
      in: 'query',
      description: `Items on a page, 1–${MAX_PAGE_LIMIT}.`,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT },
    },
    cursor: {
      name: 'cursor',
      in: 'query',
      description: 'The `nextCursor` of the previous page, unchanged.',
      schema: { type: 'string', maxLength: MAX_CURSOR_LENGTH },
    },
    jurisdictionRequired: {
      name: 'jurisdiction',
      in: 'query',
      required: true,
      description: 'GB or IE, any letter case.',
      schema: jurisdictionInAnyCase,
      example: 'GB',
    },
    webhookId: {
      name: 'id',
      in: 'path',
      required: true,
      schema: { type: 'string', maxLength: 64 },
      example: examples.subscriptionWithSecret.id,
    },
    ifNoneMatch: { name: 'If-None-Match', in: 'header', description: 'The ETag of the copy held.', schema: { type: 'string' } },
  };
}

export function componentHeaders(): Record<string, unknown> {
  return {
    RateLimit: {
      description:
        'draft-ietf-httpapi-ratelimit-headers: calls remaining in the window and seconds until it resets, e.g. `"default";r=598;t=42`.',
      schema: { type: 'string' },
    },
    RateLimitPolicy: { description: 'The limit that applies, e.g. `"default";q=600;w=60`.', schema: { type: 'string' } },
    RetryAfter: { description: 'Seconds to wait before calling again.', required: true, schema: { type: 'string', pattern: '^\\d+$' } },
    CacheControl: { description: 'How the answer may be kept.', schema: { type: 'string' } },
    NoStore: { description: '`no-store`: never keep the answer.', required: true, schema: { type: 'string', pattern: 'no-store' } },
    Pragma: { description: '`no-cache`, for HTTP/1.0 caches.', schema: { type: 'string' } },
    ETag: { description: 'The version of this answer; send it back in `If-None-Match`.', required: true, schema: { type: 'string' } },
    Location: { description: "The new subscription's path.", required: true, schema: { type: 'string' } },
    WWWAuthenticate: {
      description: 'RFC 6750 §3, e.g. `Bearer realm="bureau", error="invalid_token", error_description="…"`.',
      required: true,
      schema: { type: 'string' },
    },
  };
}

export function componentResponses(): Record<string, unknown> {
  return {
    Unauthorized: {
      description:
        'No token (`missing_token`), or one that is malformed, forged, expired, revoked or of a disabled client (`invalid_token`).',
      headers: { 'WWW-Authenticate': header('WWWAuthenticate') },
      content: { [PROBLEM]: { schema: ref('Problem'), example: examples.unauthorized } },
    },
    RateLimited: {
      description: `Over a limit: the client's calls a minute (\`rate_limited\`), or ${MANUAL_SENDS_PER_MINUTE} test events, retries and recoveries a minute (\`too_many_manual_sends\`), or a subscription's recoveries booked ${RECOVERY_BACKLOG_MINUTES} minutes ahead (\`recovery_backlog\`); or every instance of the function is busy (\`throttled\`). Wait for \`Retry-After\`.`,
      headers: { 'Retry-After': header('RetryAfter'), ...rateHeaders },
      content: {
        [PROBLEM]: { schema: ref('Problem'), example: examples.rateLimited },
        'application/json': { schema: ref('GatewayError') },
      },
    },
    Throttled: {
      description:
        "The gateway or the function is over its rate for the whole service (a problem with `error` `throttled`, or the gateway's own answer). Wait for `Retry-After` when given, else back off.",
      headers: { 'Retry-After': { description: 'Seconds to wait, when known.', schema: { type: 'string' } } },
      content: { [PROBLEM]: { schema: ref('Problem') }, 'application/json': { schema: ref('GatewayError') } },
    },
    MalformedPath: {
      description: 'A path parameter is not valid percent-encoded UTF-8. `error`: `malformed_path`.',
      content: { [PROBLEM]: { schema: ref('Problem') } },
    },
    PayloadTooLarge: {
      description: `The body exceeds ${MAX_REQUEST_BODY_BYTES} bytes: refused before it is read. \`error\`: \`payload_too_large\`.`,
      content: { [PROBLEM]: { schema: ref('Problem') } },
    },
    UnsupportedMediaType: {
      description: 'The body is not `application/json`. `error`: `unsupported_media_type`.',
      content: { [PROBLEM]: { schema: ref('Problem') } },
    },
    InternalError: {
      description: 'Never caused by input: retry, and quote the `apigw-requestid` response header to support.',
      content: {
        [PROBLEM]: { schema: ref('Problem') },
        'application/json': { schema: ref('GatewayError') },
      },
    },
    ServiceUnavailable: {
      description: 'The service is briefly unable to answer; retry with backoff.',
      headers: { 'Retry-After': { description: 'Seconds to wait, when known.', schema: { type: 'string' } } },
      content: { 'application/json': { schema: ref('GatewayError') }, [PROBLEM]: { schema: ref('Problem') } },
    },
  };
}
