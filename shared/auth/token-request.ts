import { repeatedTopLevelKey } from '../http/json-object-keys';
import type { HttpRequest } from '../http/types';
import { invalidRequest, OAuthError } from './oauth-error';

export interface TokenRequest {
  readonly clientId: string;
  readonly clientSecret: string;
  /** How the client authenticated: decides the challenge of a 401 (RFC 6749 §5.2). */
  readonly authentication: 'basic' | 'body';
}

const GRANT_TYPE = 'client_credentials';
const CREDENTIAL_FIELDS = ['grant_type', 'client_id', 'client_secret'] as const;

/**
 * Reads a client-credentials token request in any of the forms OAuth clients send: the JSON body of
 * the interface, or an RFC 6749 form body with the credentials in it (client_secret_post) or in HTTP
 * Basic (client_secret_basic). Anything malformed is an OAuthError naming what was wrong. Its size
 * is checked before: the HTTP adapter refuses a body over 8 KiB (shared/http/body-limit).
 */
export function parseTokenRequest(request: HttpRequest): TokenRequest {
  const params = bodyParameters(request);
  const basic = basicCredentials(request.headers.authorization);

  const grantType = params.get('grant_type');
  if (grantType === undefined) throw invalidRequest('grant_type is required.');
  if (grantType !== GRANT_TYPE) throw new OAuthError(400, 'unsupported_grant_type', `grant_type must be ${GRANT_TYPE}.`);

  if (basic) {
    const bodyId = params.get('client_id');
    if (params.has('client_secret') || (bodyId !== undefined && bodyId !== basic.clientId)) {
      throw invalidRequest('Send the client credentials once: in the Authorization header or in the body, not both.');
    }
    return { ...basic, authentication: 'basic' };
  }
  const clientId = params.get('client_id');
  if (clientId === undefined) throw invalidRequest('client_id is required.');
  const clientSecret = params.get('client_secret');
  if (clientSecret === undefined) throw invalidRequest('client_secret is required.');
  return { clientId, clientSecret, authentication: 'body' };
}

function mediaType(request: HttpRequest): string | undefined {
  const value = request.headers['content-type'];
  return value?.split(';')[0]?.trim().toLowerCase() || undefined;
}

/** Parameters with a value; RFC 6749 §3.1 treats a parameter sent without a value as omitted. */
function bodyParameters(request: HttpRequest): Map<string, string> {
  const type = mediaType(request);
  if (type === undefined && request.body.trim() === '') return new Map();
  if (type === 'application/json') return jsonParameters(request.body);
  if (type === 'application/x-www-form-urlencoded') return formParameters(request.body);
  throw invalidRequest('Content-Type must be application/json or application/x-www-form-urlencoded.');
}

function jsonParameters(body: string): Map<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw invalidRequest('The body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidRequest('The body must be a JSON object.');
  const repeated = repeatedTopLevelKey(body);
  // Same rule as for form bodies (RFC 6749 §3.2): a parameter is sent once.
  if (repeated !== undefined) throw invalidRequest(`Each parameter may be sent once; ${nameOf(repeated)} is repeated.`);
  const params = new Map<string, string>();
  const fields = value as Record<string, unknown>;
  for (const name of CREDENTIAL_FIELDS) {
    const field = fields[name];
    if (field === undefined || field === null || field === '') continue;
    if (typeof field !== 'string') throw invalidRequest(`${name} must be a string.`);
    params.set(name, field);
  }
  return params;
}

/** application/x-www-form-urlencoded decoding of one name or value: '+' is a space. */
function formDecode(text: string, what: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    throw invalidRequest(`${what} is not valid form-urlencoded text.`);
  }
}

/** Only the parameters this endpoint defines are named back: anything else might be a misplaced secret. */
const nameOf = (name: string) => ((CREDENTIAL_FIELDS as readonly string[]).includes(name) ? name : 'an unknown parameter');

function formParameters(body: string): Map<string, string> {
  const params = new Map<string, string>();
  const seen = new Set<string>();
  for (const pair of body.split('&')) {
    if (pair === '') continue;
    const separator = pair.indexOf('=');
    const name = formDecode(separator < 0 ? pair : pair.slice(0, separator), 'A parameter name');
    const value = separator < 0 ? '' : formDecode(pair.slice(separator + 1), `The value of ${nameOf(name)}`);
    // RFC 6749 §3.2: parameters must not be included more than once.
    if (seen.has(name)) throw invalidRequest(`Each parameter may be sent once; ${nameOf(name)} is repeated.`);
    seen.add(name);
    if (value !== '') params.set(name, value);
  }
  return params;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** RFC 6749 §2.3.1: id and secret are each form-urlencoded, joined by ':', then base64 inside Basic. */
function basicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const match = /^Basic +(\S+) *$/i.exec(header);
  if (!match) throw invalidRequest('Only HTTP Basic client authentication is accepted in the Authorization header.');
  const encoded = match[1] as string;
  const decoded = BASE64.test(encoded) ? Buffer.from(encoded, 'base64').toString('utf8') : '';
  const separator = decoded.indexOf(':');
  if (separator <= 0) throw invalidRequest('The Basic credentials must be base64 of client_id:client_secret.');
  const clientId = formDecode(decoded.slice(0, separator), 'The Basic client_id');
  const clientSecret = formDecode(decoded.slice(separator + 1), 'The Basic client_secret');
  if (clientSecret === '') throw invalidRequest('The Basic credentials lack the client_secret.');
  return { clientId, clientSecret };
}
