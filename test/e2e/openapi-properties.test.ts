import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { openApiDocument } from '../../shared/openapi/document';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { ApiContract } from '../support/contract';
import { profileContent } from '../support/profile-fixture';
import { propertyRuns } from '../support/property-runs';
import { useTestRuntime } from '../support/runtime';

/**
 * Requests made from the document itself, for every operation: parameters and bodies drawn from
 * their schemas, now and then bent out of them (wrong types, hostile text, missing or extra fields,
 * no token). Every answer must be documented for its operation (ApiContract) and none a 5xx.
 */

type Json = Record<string, unknown>;
const document = openApiDocument as Json & { paths: Record<string, Json>; components: Json };
const contract = new ApiContract();
const runs = propertyRuns(80, 20_261_125);

const bureau = useTestRuntime({ RATE_LIMIT_PER_MINUTE: '1000000' });
const COMPANY = '18000002';
/** Statuses met per operation: the run must reach each operation's success, not only its refusals. */
const statuses = new Map<string, Set<number>>();

beforeAll(async () => {
  const { runtime } = bureau();
  const store = new DynamoCompanyStore(
    createDocumentClient(createDynamoClient({ DYNAMODB_ENDPOINT: runtime.dynamodbEndpoint })),
    runtime.env.COMPANIES_TABLE as string,
  );
  await store.save(profileContent({ companyNumber: COMPANY, name: 'Quillon Property Traders Ltd' }));
});

/** What one operation's requests may name: a client of its own (its own per-minute buckets), its subscription and a delivery. */
interface Fixture {
  readonly token: string;
  readonly webhookId: string;
  readonly deliveryId: string;
}

async function fixture(): Promise<Fixture> {
  const registry = new DynamoClientRegistry(
    createDocumentClient(createDynamoClient(bureau().runtime.env)),
    bureau().runtime.tables.clients as string,
  );
  const { client, secret } = await registry.create({ name: 'Generated requests' });
  const token = await bureau().fetchToken({ clientId: client.clientId, clientSecret: secret });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const created = await fetch(`${bureau().baseUrl}/v1/webhooks`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'Properties', url: 'https://93.184.215.14/hook' }),
  });
  const webhookId = ((await created.json()) as { id: string }).id;
  const test = await fetch(`${bureau().baseUrl}/v1/webhooks/${webhookId}/test`, {
    method: 'POST',
    headers: { authorization: headers.authorization },
  });
  const deliveryId = ((await test.json()) as { deliveryId: string }).deliveryId;
  return { token, webhookId, deliveryId };
}

const resolve = (value: Json): Json => contract.dereference(value);

/** Text a hostile or careless client sends: empty, huge, control characters, other scripts, lone surrogates, injections. */
const hostileText = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '%',
    '%00',
    '\u0000',
    '\ud800',
    '../../etc/passwd',
    "' OR 1=1 --",
    '{"$ne":null}',
    '<script>',
    'x'.repeat(5000),
    '١٢٣',
    'ＧＢ',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
const hostileJson = fc.oneof(
  hostileText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.object({ maxDepth: 1 }),
);

/** Values the schema allows (as far as a generator can tell), or now and then anything at all. */
function drawn(schemaRef: Json, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(schemaRef);
  const valid = validValueOf(schema, depth);
  return fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: hostileJson, weight: 1 });
}

function validValueOf(schema: Json, depth: number): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as Json[]).map((option) => drawn(option, depth + 1)));
  const type = Array.isArray(schema.type) ? (schema.type as string[])[0] : schema.type;
  switch (type) {
    case 'integer':
      return fc.integer({ min: (schema.minimum as number) ?? -1000, max: (schema.maximum as number) ?? 1000 });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 2 ? fc.constant([]) : fc.array(drawn((schema.items ?? {}) as Json, depth + 1), { maxLength: 3 });
    case 'object': {
      if (depth > 2) return fc.constant({});
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      const required = (schema.required ?? []) as string[];
      return fc.record(Object.fromEntries(Object.entries(properties).map(([name, inner]) => [name, drawn(inner, depth + 1)])), {
        requiredKeys: required.filter((name) => name in properties),
      });
    }
    default:
      if (schema.format === 'date-time')
        return fc
          .date({ min: new Date(Date.now() - 40 * 86_400_000), max: new Date(Date.now() + 86_400_000), noInvalidDate: true })
          .map((date) => date.toISOString());
      if (schema.format === 'uri')
        return fc.constantFrom(
          'https://93.184.215.14/hook',
          'https://[2606:4700::1111]/x',
          'http://10.0.0.1/',
          'https://127.0.0.1:8443/',
          'ftp://x',
          'not a url',
        );
      if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern));
      return fc.string({ minLength: (schema.minLength as number) ?? 0, maxLength: Math.min((schema.maxLength as number) ?? 30, 30) });
  }
}

/** Every byte of the text's UTF-8 (a lone surrogate becomes U+FFFD) percent-encoded but the unreserved ones. */
function encodeSegment(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

interface Draft {
  readonly path: string;
  readonly query: Array<[string, string]>;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** A whole request for the operation: its path and query parameters, headers and body. */
function requestOf(path: string, pathItem: Json, operation: Json, { token, webhookId, deliveryId }: Fixture): fc.Arbitrary<Draft> {
  const parameters = [...((pathItem.parameters ?? []) as Json[]), ...((operation.parameters ?? []) as Json[])].map(resolve);
  const pathValues = Object.fromEntries(
    parameters
      .filter((parameter) => parameter.in === 'path')
      .map((parameter) => {
        const name = parameter.name as string;
        const known =
          name === 'id'
            ? fc.constant(webhookId)
            : name === 'companyNumber'
              ? fc.constantFrom(COMPANY, '1', 'SC001234')
              : fc.constant(deliveryId);
        const text = fc.oneof(
          { arbitrary: known, weight: 2 },
          { arbitrary: hostileText.filter((value) => value.length > 0), weight: 1 },
          { arbitrary: fc.string({ minLength: 1, maxLength: 20 }), weight: 1 },
        );
        // Percent-encodings no client library would make: malformed, overlong, not UTF-8, a dot segment.
        const raw = fc.constantFrom('%ff', '%00', '%E0%A4%A', '%C0%AF', '%2e%2e', '%F0%9F%92%A9');
        return [name, fc.oneof({ arbitrary: text.map(encodeSegment), weight: 5 }, { arbitrary: raw, weight: 1 })];
      }),
  );
  const queryValues = parameters
    .filter((parameter) => parameter.in === 'query')
    .map((parameter) =>
      fc.option(
        drawn(parameter.schema as Json).map(
          (value) => [parameter.name as string, typeof value === 'string' ? value : JSON.stringify(value)] as [string, string],
        ),
        { freq: parameter.required ? 8 : 2 },
      ),
    );
  const jsonSchema = ((operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.['application/json']
    ?.schema as Json | undefined;
  const body = jsonSchema
    ? fc.oneof(
        { arbitrary: drawn(jsonSchema).map((value) => JSON.stringify(value)), weight: 5 },
        { arbitrary: fc.constantFrom('{', '', 'null', '[]', '{"a":1,"a":2}'), weight: 1 },
      )
    : fc.constant(undefined);
  const authorization = fc.oneof(
    { arbitrary: fc.constant('valid'), weight: 8 },
    { arbitrary: fc.constantFrom('none', 'Bearer x', 'Basic Zm9vOmJhcg==', `Bearer ${'e'.repeat(5000)}`), weight: 1 },
  );
  return fc
    .record({ pathValues: fc.record(pathValues), query: fc.tuple(...queryValues), body, authorization })
    .map(({ pathValues, query, body, authorization }) => ({
      path: path.replace(/\{(\w+)\}/g, (_, name: string) => String(pathValues[name])),
      query: query.filter((entry): entry is [string, string] => entry !== null),
      headers: {
        ...(authorization === 'valid' ? { authorization: `Bearer ${token}` } : authorization === 'none' ? {} : { authorization }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body }),
    }));
}

/**
 * The operation's plain success case, tried first: the fixture's ids, the parameters' and body's own
 * examples from the document (a recovery from an hour ago, as its example date ages out of range).
 */
function canonical(path: string, pathItem: Json, operation: Json, { token, webhookId, deliveryId }: Fixture): Draft {
  const parameters = [...((pathItem.parameters ?? []) as Json[]), ...((operation.parameters ?? []) as Json[])].map(resolve);
  const known: Record<string, string> = { id: webhookId, deliveryId, companyNumber: COMPANY };
  const body = ((operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.['application/json']?.example;
  const sent = path.endsWith('/recover') ? { since: new Date(Date.now() - 3_600_000).toISOString() } : body;
  return {
    path: path.replace(/\{(\w+)\}/g, (_, name: string) => encodeSegment(known[name] ?? '')),
    query: parameters
      .filter((parameter) => parameter.in === 'query' && parameter.required)
      .map((parameter) => [parameter.name as string, String(parameter.example)]),
    headers: { authorization: `Bearer ${token}`, ...(sent === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(sent === undefined ? {} : { body: JSON.stringify(sent) }),
  };
}

const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  ['get', 'post', 'patch', 'delete']
    .filter((method) => method in item)
    // The token endpoint's refusals count against this address's failure allowance: e2e/token covers it.
    .filter((method) => path !== '/v1/oauth/token' || method !== 'post')
    .map((method) => ({ method, path, pathItem: item, operation: item[method] as Json })),
);

describe('requests generated from the OpenAPI document', () => {
  for (const { method, path, pathItem, operation } of operations) {
    it(`${method.toUpperCase()} ${path}: every answer documented, none a 5xx`, { timeout: 120_000 }, async () => {
      const setup = await fixture();
      await fc.assert(
        fc.asyncProperty(requestOf(path, pathItem, operation, setup), async (draft) => {
          const url = new URL(draft.path, bureau().baseUrl);
          for (const [name, value] of draft.query) url.searchParams.append(name, value);
          const response = await fetch(url, {
            method: method.toUpperCase(),
            headers: draft.headers,
            ...(draft.body === undefined ? {} : { body: draft.body }),
          });
          const body = Buffer.from(await response.arrayBuffer());
          const routeKey = `${method.toUpperCase()} ${path}`;
          statuses.set(routeKey, (statuses.get(routeKey) ?? new Set()).add(response.status));
          const problems =
            response.status === 404 && body.includes('"not_found"')
              ? [] // the gateway's own 404: the path did not match the route (an id with a slash)
              : contract.check({
                  routeKey,
                  method: method.toUpperCase(),
                  target: `${url.pathname}${url.search}`,
                  requestHeaders: draft.headers,
                  requestBody: Buffer.from(draft.body ?? ''),
                  status: response.status,
                  responseHeaders: Object.fromEntries(response.headers),
                  responseBody: body,
                });
          expect(response.status, `${routeKey} ${url.search.slice(0, 200)}`).toBeLessThan(500);
          expect(
            problems,
            `${routeKey} ${url.pathname.slice(0, 100)}${url.search.slice(0, 200)} ${draft.body?.slice(0, 200) ?? ''}`,
          ).toEqual([]);
        }),
        { ...runs, endOnFailure: true, examples: [[canonical(path, pathItem, operation, setup)]] },
      );
    });
  }

  it('reached a success and a refusal of every operation', () => {
    for (const { method, path, operation } of operations) {
      const met = [...(statuses.get(`${method.toUpperCase()} ${path}`) ?? [])];
      expect(
        met.some((status) => status < 300),
        `${method} ${path}: ${met.join(', ')}`,
      ).toBe(true);
      // A public document without parameters has nothing to refuse.
      const refusable = JSON.stringify(operation.security) !== '[{}]' || 'requestBody' in operation || path.includes('{');
      if (refusable)
        expect(
          met.some((status) => status >= 400),
          `${method} ${path}: ${met.join(', ')}`,
        ).toBe(true);
    }
  });
});
