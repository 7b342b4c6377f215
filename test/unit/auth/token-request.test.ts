import { describe, expect, it } from 'vitest';
import { OAuthError } from '../../../shared/auth/oauth-error';
import { parseTokenRequest } from '../../../shared/auth/token-request';
import { basicAuthorization, httpRequest } from '../../support/http-fixtures';

const SECRET = 'bsk_0123456789abcdefghijklmnopqrstuvwxyzABCDE';

const jsonRequest = (body: unknown, headers: Record<string, string> = {}) =>
  httpRequest({
    method: 'POST',
    path: '/v1/oauth/token',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const formRequest = (body: string, headers: Record<string, string> = {}) =>
  httpRequest({
    method: 'POST',
    path: '/v1/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });

function refusal(request: ReturnType<typeof httpRequest>): OAuthError {
  try {
    parseTokenRequest(request);
  } catch (error) {
    if (error instanceof OAuthError) return error;
    throw error;
  }
  throw new Error('the request was accepted');
}

describe('token request parsing', () => {
  it('reads the JSON body of the interface', () => {
    const request = jsonRequest({ grant_type: 'client_credentials', client_id: 'acme', client_secret: SECRET });

    expect(parseTokenRequest(request)).toEqual({ clientId: 'acme', clientSecret: SECRET, authentication: 'body' });
  });

  it('accepts a JSON media type with parameters and ignores unknown members', () => {
    const request = jsonRequest(
      { grant_type: 'client_credentials', client_id: 'acme', client_secret: SECRET, scope: 'x' },
      { 'content-type': 'Application/JSON; charset=utf-8' },
    );

    expect(parseTokenRequest(request).clientId).toBe('acme');
  });

  it('reads a form body with the credentials in it (client_secret_post)', () => {
    const request = formRequest(
      `grant_type=client_credentials&client_id=acme+co&client_secret=${encodeURIComponent('s3cret/with+plus=and&amp-that-is-long-enough')}`,
    );

    expect(parseTokenRequest(request)).toEqual({
      clientId: 'acme co',
      clientSecret: 's3cret/with+plus=and&amp-that-is-long-enough',
      authentication: 'body',
    });
  });

  it('reads HTTP Basic credentials, form-decoding the id and secret inside (client_secret_basic)', () => {
    const secret = 'p@ss:word+/%with spaces';
    const request = formRequest('grant_type=client_credentials', { authorization: basicAuthorization('acme:co', secret) });

    expect(parseTokenRequest(request)).toEqual({ clientId: 'acme:co', clientSecret: secret, authentication: 'basic' });
  });

  it('accepts Basic alongside a body client_id naming the same client', () => {
    const request = formRequest('grant_type=client_credentials&client_id=acme', { authorization: basicAuthorization('acme', SECRET) });

    expect(parseTokenRequest(request).authentication).toBe('basic');
  });

  it.each([
    ['missing grant_type', jsonRequest({ client_id: 'acme', client_secret: SECRET }), 'grant_type is required'],
    ['missing client_id', jsonRequest({ grant_type: 'client_credentials', client_secret: SECRET }), 'client_id is required'],
    ['missing client_secret', formRequest('grant_type=client_credentials&client_id=acme'), 'client_secret is required'],
    [
      'empty client_secret (treated as omitted)',
      formRequest('grant_type=client_credentials&client_id=acme&client_secret='),
      'client_secret is required',
    ],
    ['malformed JSON', jsonRequest('{"grant_type": '), 'not valid JSON'],
    ['a JSON array', jsonRequest('[1,2]'), 'JSON object'],
    [
      'a non-string JSON field',
      jsonRequest({ grant_type: 'client_credentials', client_id: 42, client_secret: SECRET }),
      'client_id must be a string',
    ],
    [
      'malformed percent-encoding',
      formRequest('grant_type=client_credentials&client_id=%E0%A4%A&client_secret=x'),
      'client_id is not valid form-urlencoded',
    ],
    ['a repeated parameter', formRequest('grant_type=client_credentials&client_id=a&client_id=b&client_secret=x'), 'client_id is repeated'],
    [
      'a repeated JSON member',
      jsonRequest('{"grant_type":"client_credentials","client_id":"a","client_secret":"x","client_id":"b"}'),
      'client_id is repeated',
    ],
    [
      'a repeated JSON member spelled with an escape',
      jsonRequest('{"grant_type":"client_credentials","client_id":"a","client_secret":"x","client\\u005fsecret":"y"}'),
      'client_secret is repeated',
    ],
    [
      'an unsupported content type',
      httpRequest({ method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' }),
      'Content-Type must be',
    ],
    ['a body without content type', httpRequest({ method: 'POST', body: 'grant_type=client_credentials' }), 'Content-Type must be'],
    [
      'credentials both in Basic and in the body',
      formRequest(`grant_type=client_credentials&client_secret=${SECRET}`, { authorization: basicAuthorization('acme', SECRET) }),
      'not both',
    ],
    [
      'a body client_id contradicting Basic',
      formRequest('grant_type=client_credentials&client_id=other', { authorization: basicAuthorization('acme', SECRET) }),
      'not both',
    ],
    [
      'Basic that is not base64',
      formRequest('grant_type=client_credentials', { authorization: 'Basic !!!' }),
      'base64 of client_id:client_secret',
    ],
    [
      'Basic without a colon',
      formRequest('grant_type=client_credentials', { authorization: `Basic ${Buffer.from('acme').toString('base64')}` }),
      'base64 of client_id:client_secret',
    ],
    [
      'Basic without a secret',
      formRequest('grant_type=client_credentials', { authorization: `Basic ${Buffer.from('acme:').toString('base64')}` }),
      'lack the client_secret',
    ],
    ['another Authorization scheme', formRequest('grant_type=client_credentials', { authorization: 'Bearer abc' }), 'Only HTTP Basic'],
  ])('answers 400 invalid_request for %s', (_case, request, description) => {
    const error = refusal(request);

    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain(description);
  });

  it('answers 400 unsupported_grant_type for any other grant', () => {
    const error = refusal(jsonRequest({ grant_type: 'password', client_id: 'acme', client_secret: SECRET }));

    expect(error).toMatchObject({ status: 400, code: 'unsupported_grant_type' });
  });

  it('never names an unknown parameter back, in case it is a misplaced secret', () => {
    const error = refusal(formRequest(`grant_type=client_credentials&${SECRET}&${SECRET}`));

    expect(error.message).not.toContain(SECRET);
    expect(error.message).toContain('an unknown parameter is repeated');
  });
});
