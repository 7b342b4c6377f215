import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestRuntime } from '../support/runtime';

const bureau = useTestRuntime();
let token: string;

beforeAll(async () => {
  token = await bureau().fetchToken();
});

/**
 * Sends the request target exactly as written: fetch and URL would re-encode a malformed
 * percent-escape, which is the very thing under test.
 */
function getRaw(
  target: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const { hostname, port } = new URL(bureau().baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: hostname, port, path: target, method: 'GET', headers: { authorization: `Bearer ${token}`, ...headers } },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

const searchFor = (q: string) => getRaw(`/v1/search?jurisdiction=GB&q=${encodeURIComponent(q)}`);
const problemOf = (body: string) => JSON.parse(body) as { error: string; detail: string; parameter?: string };

describe('a query that normalization expands', () => {
  it.each([
    ['U+FDFA sixty times', '\uFDFA'.repeat(60)],
    ['a ligature that folds into one very long word', `acme ${'\uFB03'.repeat(50)} ltd`],
    ['squared katakana', '\u3300\u3301\u3302\u3303'.repeat(40)],
    ['ligatures', '\uFB03'.repeat(200)],
  ])('is refused with 400 invalid_query naming the byte limit (%s), never a 500', async (_case, q) => {
    const response = await searchFor(q);

    expect(response.status).toBe(400);
    expect(problemOf(response.body)).toMatchObject({
      error: 'invalid_query',
      parameter: 'q',
      detail: expect.stringMatching(/bytes long once normalized/),
    });
  });

  it('never causes a server error, whatever Unicode a client sends', async () => {
    // Deterministic pseudo-random strings over the whole code-point range, surrogates excluded.
    let state = 7;
    const next = () => {
      state = (state * 48271) % 2147483647;
      return state;
    };
    const randomText = () =>
      Array.from({ length: 1 + (next() % 200) }, () => {
        const point = next() % 0x110000;
        return point >= 0xd800 && point <= 0xdfff ? 'a' : String.fromCodePoint(point);
      }).join('');

    const statuses = [];
    for (let i = 0; i < 150; i++) statuses.push((await searchFor(randomText())).status);

    expect(statuses.filter((status) => status >= 500)).toEqual([]);
  });
});

describe('malformed percent-encoding', () => {
  it.each([
    ['a truncated escape', '/v1/search?jurisdiction=GB&q=%E0%A4%A', 'q'],
    ['a non-hex escape', '/v1/search?jurisdiction=GB&q=acme%ZZ', 'q'],
    ['an encoded lone surrogate', '/v1/search?jurisdiction=GB&q=%ED%A0%80acme', 'q'],
    ['a bad escape in another parameter', '/v1/search?jurisdiction=G%B&q=acme', 'jurisdiction'],
    ['a bad escape in the watches cursor', '/v1/watches?cursor=%FF', 'cursor'],
  ])('is a 400 naming the parameter: %s', async (_case, target, parameter) => {
    const response = await getRaw(target);

    expect(response.status).toBe(400);
    expect(problemOf(response.body)).toMatchObject({ error: 'malformed_query_string', parameter });
  });
});

describe('an empty parameter', () => {
  it.each([
    ['/v1/search?q=acme&jurisdiction=', 'jurisdiction', 'invalid_jurisdiction'],
    ['/v1/search?q=acme&jurisdiction=GB&limit=', 'limit', 'invalid_limit'],
    ['/v1/search?q=acme&jurisdiction=GB&cursor=', 'cursor', 'invalid_cursor'],
    ['/v1/profile/15380840?jurisdiction=', 'jurisdiction', 'invalid_jurisdiction'],
    ['/v1/watches?cursor=', 'cursor', 'invalid_cursor'],
  ])('is malformed, not absent: %s', async (target, parameter, error) => {
    const response = await getRaw(target);

    expect(response.status).toBe(400);
    expect(problemOf(response.body)).toMatchObject({ error, parameter, detail: `${parameter} is empty; give it a value or leave it out.` });
  });
});

describe('an altered cursor', () => {
  const encode = (body: unknown) => Buffer.from(JSON.stringify(body)).toString('base64url');

  it.each([
    ['watches cursor with an oversized company key', '/v1/watches?cursor=', encode({ v: 1, pk: `GB#${'9'.repeat(3000)}` })],
    ['watches cursor with an extra key part', '/v1/watches?cursor=', encode({ v: 1, pk: 'GB#15380840#X' })],
    ['search cursor that is not base64url', '/v1/search?q=acme&jurisdiction=GB&cursor=', 'not*a*cursor'],
    ['search cursor pointing outside the query', '/v1/search?q=acme&jurisdiction=GB&cursor=', encode({ v: 1, f: 'x', t: 'exact' })],
  ])('is a 400 invalid_cursor: %s', async (_case, target, cursor) => {
    const response = await getRaw(`${target}${cursor}`);

    expect(response.status).toBe(400);
    expect(problemOf(response.body)).toMatchObject({ error: 'invalid_cursor', parameter: 'cursor' });
  });
});

describe('every response', () => {
  it.each([
    ['a success', '/v1/watches', {}],
    ['a client error', '/v1/search?jurisdiction=GB', {}],
    ['a bearer refusal', '/v1/watches', { authorization: 'Bearer nope' }],
    ['an unknown route', '/v1/nowhere', {}],
  ])('says nosniff and HTTPS-only: %s', async (_case, target, headers) => {
    const response = await getRaw(target, headers);

    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['strict-transport-security']).toBe('max-age=31536000');
  });
});

describe('the workspace API', () => {
  let session: { cookie: string; csrf: string };
  // The page's own origin: the host these requests are sent to.
  const origin = () => bureau().baseUrl;

  beforeAll(async () => {
    const token = (bureau().runtime.workspace.invitationLink ?? '').split('/').at(-1);
    const accepted = await fetch(`${bureau().baseUrl}/workspace/api/invitations/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: origin() },
      body: JSON.stringify({ token, password: 'harbour lantern quietly orbits' }),
    });
    expect(accepted.status).toBe(200);
    session = {
      cookie: (accepted.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
      csrf: ((await accepted.json()) as { csrfToken: string }).csrfToken,
    };
  });

  const send = async (method: string, path: string, body?: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${bureau().baseUrl}/workspace/api/${path}`, {
      method,
      headers: {
        origin: origin(),
        cookie: session.cookie,
        'x-csrf-token': session.csrf,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body }),
    });
    return { status: response.status, body: (await response.json().catch(() => ({}))) as { error?: string } };
  };

  it.each([
    ['a portfolio cursor that is not one', 'GET', 'portfolio?cursor=garbage', undefined, 400],
    ['an unknown jurisdiction', 'GET', 'companies/XX/15380840', undefined, 400],
    ['a company number that is no number', 'GET', 'companies/GB/%ZZ', undefined, 400],
    ['a webhook id with a broken escape', 'GET', 'webhooks/%ZZ', undefined, 400],
    ['another client’s webhook id, or none', 'GET', 'webhooks/wh_AAAAAAAAAAAAAAAAAAAAAA', undefined, 404],
    ['an unknown route', 'GET', 'nowhere', undefined, 404],
    ['malformed JSON to sign in', 'POST', 'sign-in', '{"email":', 400],
    ['a number for an e-mail address', 'POST', 'sign-in', '{"email":5,"password":"x"}', 400],
    ['an array for a body', 'POST', 'invitations/accept', '[]', 400],
    ['a passkey answer to no challenge', 'POST', 'passkey-sign-in', '{"challengeId":"x","response":{"id":"y"}}', 401],
    ['a passkey registration that is not one', 'POST', 'passkeys', '{"challengeId":"x","response":{}}', 401],
    ['unknown fields in a webhook', 'POST', 'webhooks', '{"name":"a","url":"https://x.example","admin":true}', 400],
  ])('answers %s with a JSON 4xx, never a 500', async (_case, method, path, body, status) => {
    const response = await send(method, path, body);

    expect(response.status).toBe(status);
    expect(response.body.error).toEqual(expect.any(String));
  });

  it('answers a body over the gateway limit with 413', async () => {
    const response = await send('POST', 'sign-in', JSON.stringify({ email: 'a@b.example', password: 'x'.repeat(12_000_000) }));
    expect(response.status).toBe(413);
  });
});

describe('a request body over 8 KiB', () => {
  const post = (path: string, contentType: string, body: string, authorization?: string) =>
    fetch(`${bureau().baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType, ...(authorization ? { authorization } : {}) },
      body,
    });
  /** JSON of `fields`, padded with trailing white space (still valid JSON) to `bytes`. */
  const paddedJson = (fields: Record<string, string>, bytes: number) => {
    const text = JSON.stringify(fields);
    return text + ' '.repeat(bytes - Buffer.byteLength(text));
  };
  /** A form body padded with empty pairs, which the token endpoint skips, to `bytes`. */
  const paddedForm = (fields: Record<string, string>, bytes: number) => {
    const text = new URLSearchParams(fields).toString();
    return text + '&'.repeat(bytes - text.length);
  };
  const credentials = () => ({
    grant_type: 'client_credentials',
    client_id: bureau().demoClient.clientId,
    client_secret: bureau().demoClient.clientSecret,
  });
  const subscription = { name: 'Padded', url: 'https://93.184.215.14/padded' };

  const expectTooLarge = async (response: Response) => {
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({
      status: 413,
      error: 'payload_too_large',
      detail: 'The request body exceeds 8192 bytes, the most the API accepts.',
    });
  };

  it('is refused with a JSON 413 by the token endpoint, as JSON or as a form (which reaches the function base64-encoded)', async () => {
    await expectTooLarge(await post('/v1/oauth/token', 'application/json', paddedJson(credentials(), 9000)));
    await expectTooLarge(await post('/v1/oauth/token', 'application/x-www-form-urlencoded', paddedForm(credentials(), 9000)));
  });

  it('is refused with a JSON 413 by the webhooks endpoint', async () => {
    await expectTooLarge(await post('/v1/webhooks', 'application/json', paddedJson(subscription, 9000), `Bearer ${token}`));
  });

  it('is not refused at 8,000 bytes: a token is issued and a subscription created', async () => {
    const json = await post('/v1/oauth/token', 'application/json', paddedJson(credentials(), 8000));
    // 8,000 bytes of form are over 10,000 characters of base64: the limit is on the decoded body.
    const form = await post('/v1/oauth/token', 'application/x-www-form-urlencoded', paddedForm(credentials(), 8000));
    const created = await post('/v1/webhooks', 'application/json', paddedJson(subscription, 8000), `Bearer ${token}`);

    expect(json.status).toBe(200);
    expect(form.status).toBe(200);
    expect(created.status).toBe(201);
  });
});
