import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { HttpExchange } from '../../local/http-server';
import { openApiDocument } from '../../shared/openapi/document';
import { WORKSPACE_PATH } from '../../shared/workspace/site-headers';

type Json = Record<string, unknown>;

const DOCUMENT_ID = 'https://bureau.example/openapi.json';

/** A JSON Pointer token: "/" and "~" escaped (RFC 6901). */
const token = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The API's OpenAPI document as a checker of exchanges: each answer's status must be documented for
 * its operation, its body must match the documented media type and schema, its required headers
 * must be there and every documented header it sends must match; a request that succeeded must have
 * sent what the operation documents (parameters and JSON body). Anything undocumented is a problem.
 */
export class ApiContract {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json = openApiDocument) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  }

  /** Whether the document speaks for this route at all: the workspace's own JSON API is not part of it. */
  covers(exchange: Pick<HttpExchange, 'routeKey'>): boolean {
    return !exchange.routeKey.split(' ')[1]?.startsWith(`${WORKSPACE_PATH}/`);
  }

  /** What the exchange does that the document does not say; empty when it conforms. */
  check(exchange: HttpExchange): string[] {
    const [method = '', path = ''] = exchange.routeKey.split(' ');
    const pathItem = (this.document.paths as Record<string, Json>)[path];
    const operation = pathItem?.[method.toLowerCase()] as Json | undefined;
    if (!pathItem || !operation) return [`${exchange.routeKey} is not in the document`];
    const pointer = `#/paths/${token(path)}/${method.toLowerCase()}`;
    const problems: string[] = [];

    const responses = operation.responses as Record<string, Json>;
    const statusKey = [String(exchange.status), `${String(exchange.status)[0]}XX`, 'default'].find((key) => key in responses);
    if (!statusKey) return [`status ${exchange.status} is not documented (body: ${exchange.responseBody.toString('utf8').slice(0, 300)})`];
    const [response, responsePointer] = this.resolve(responses[statusKey] as Json, `${pointer}/responses/${statusKey}`);
    problems.push(...this.checkHeaders(response, responsePointer, exchange.responseHeaders));
    problems.push(...this.checkBody(response, responsePointer, exchange));

    if (exchange.status >= 200 && exchange.status < 300) problems.push(...this.checkRequest(pathItem, operation, path, pointer, exchange));
    return problems;
  }

  private checkHeaders(response: Json, pointer: string, headers: Readonly<Record<string, string>>): string[] {
    const problems: string[] = [];
    for (const [name, declared] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
      const [header, headerPointer] = this.resolve(declared, `${pointer}/headers/${token(name)}`);
      const value = headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) problems.push(`required header ${name} is missing`);
        continue;
      }
      const breach = this.breach(`${headerPointer}/schema`, value);
      if (breach) problems.push(`header ${name}: ${JSON.stringify(value)} ${breach}`);
    }
    return problems;
  }

  private checkBody(response: Json, pointer: string, exchange: HttpExchange): string[] {
    const content = response.content as Record<string, Json> | undefined;
    const body = exchange.responseBody;
    if (!content) return body.length === 0 ? [] : [`a body is sent where none is documented: ${body.toString('utf8').slice(0, 200)}`];
    const mediaType = (exchange.responseHeaders['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    if (!(mediaType in content))
      return [`content-type ${JSON.stringify(mediaType)} is not documented (${Object.keys(content).join(', ')})`];
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return [`the body is not JSON: ${body.toString('utf8').slice(0, 200)}`];
    }
    const breach = this.breach(`${pointer}/content/${token(mediaType)}/schema`, parsed, 'body');
    return breach ? [`body ${breach}`] : [];
  }

  private checkRequest(pathItem: Json, operation: Json, path: string, pointer: string, exchange: HttpExchange): string[] {
    const problems: string[] = [];
    const query = new URL(exchange.target, 'http://api.invalid').searchParams;
    const declared = [
      ...((pathItem.parameters ?? []) as Json[]).map((parameter, index) =>
        this.resolve(parameter, `#/paths/${token(path)}/parameters/${index}`),
      ),
      ...((operation.parameters ?? []) as Json[]).map((parameter, index) => this.resolve(parameter, `${pointer}/parameters/${index}`)),
    ];
    for (const [parameter, parameterPointer] of declared) {
      if (parameter.in !== 'query') continue;
      const value = query.get(parameter.name as string);
      if (value === null) {
        if (parameter.required)
          problems.push(`request: required query parameter ${parameter.name} was not sent, yet the answer was ${exchange.status}`);
        continue;
      }
      const schema = parameter.schema as Json;
      const typed = schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      const breach = this.breach(`${parameterPointer}/schema`, typed);
      if (breach)
        problems.push(`request: query ${parameter.name}=${JSON.stringify(value)} ${breach}, yet the answer was ${exchange.status}`);
    }
    const requestBody = operation.requestBody as Json | undefined;
    const mediaType = (exchange.requestHeaders['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (requestBody && mediaType === 'application/json') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(exchange.requestBody.toString('utf8'));
      } catch {
        return [...problems, `request: the body is not JSON, yet the answer was ${exchange.status}`];
      }
      const breach = this.breach(`${pointer}/requestBody/content/application~1json/schema`, parsed, 'body');
      if (breach) problems.push(`request: body ${breach}, yet the answer was ${exchange.status}`);
    }
    return problems;
  }

  /** The object behind a $ref, followed to the end (or the object itself). */
  dereference(object: Json): Json {
    return this.resolve(object, '#')[0];
  }

  /** Why the value breaks the schema at this JSON Pointer of the document (`#/components/…`), or undefined when it conforms. */
  breach(schemaPointer: string, value: unknown, dataVar = 'data'): string | undefined {
    const validate = this.validator(schemaPointer);
    return validate(value) ? undefined : this.ajv.errorsText(validate.errors, { dataVar });
  }

  /** The object behind a $ref (or the object itself), with the pointer it lives at. */
  private resolve(object: Json, pointer: string): [Json, string] {
    const target = object.$ref;
    if (typeof target !== 'string') return [object, pointer];
    let resolved: unknown = this.document;
    for (const segment of target.slice(2).split('/')) {
      resolved = (resolved as Json)[segment.replaceAll('~1', '/').replaceAll('~0', '~')];
    }
    return this.resolve(resolved as Json, target);
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
      this.validators.set(pointer, validate);
    }
    return validate;
  }
}

/** Each kind of breach once, with how often it happened and one request that met it, for a test's failure message. */
export function describeViolations(violations: ReadonlyArray<{ exchange: HttpExchange; problems: readonly string[] }>): string {
  const kinds = new Map<string, { example: HttpExchange; count: number; problems: readonly string[] }>();
  for (const { exchange, problems } of violations) {
    const key = `${exchange.routeKey} ${exchange.status} ${problems.join('|')}`;
    const kind = kinds.get(key);
    if (kind) kind.count += 1;
    else kinds.set(key, { example: exchange, count: 1, problems });
  }
  return [...kinds.values()]
    .map(
      ({ example, count, problems }) =>
        `${example.method} ${example.target.slice(0, 160)} → ${example.status}${count > 1 ? ` (and ${count - 1} more like it)` : ''}\n  ${problems.join('\n  ')}`,
    )
    .join('\n');
}
