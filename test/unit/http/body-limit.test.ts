import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { decodedBodyBytes, MAX_REQUEST_BODY_BYTES } from '../../../shared/http/body-limit';
import { jsonObjectBody } from '../../../shared/http/json-body';
import { lambdaHttpHandler } from '../../../shared/http/lambda';
import type { HttpRequest } from '../../../shared/http/types';
import { apiGatewayEvent } from '../../support/api-gateway-events';

/** An adapter around a route that records what reached it. */
function adapter() {
  const seen: HttpRequest[] = [];
  const handler = lambdaHttpHandler(async (request) => {
    seen.push(request);
    return { status: 200, body: { bytes: Buffer.byteLength(request.body) } };
  });
  const invoke = async (event: APIGatewayProxyEventV2) => {
    const result = (await handler(event, {} as Context)) as APIGatewayProxyStructuredResultV2;
    return { status: result.statusCode, headers: result.headers, body: JSON.parse(result.body as string) };
  };
  return { seen, invoke };
}

const post = (body: string, extra: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 => ({
  ...apiGatewayEvent({ method: 'POST', path: '/v1/webhooks', headers: { 'content-type': 'application/json' }, body }),
  ...extra,
});

describe('request body limit in the HTTP adapter', () => {
  it('is 8 KiB, the size AWS WAF common rule set blocks above', () => {
    expect(MAX_REQUEST_BODY_BYTES).toBe(8192);
  });

  it('passes a body of exactly the limit to the route', async () => {
    const { seen, invoke } = adapter();

    const response = await invoke(post('x'.repeat(8192)));

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ bytes: 8192 });
    expect(seen).toHaveLength(1);
  });

  it('answers a body one byte over with a 413 problem naming the limit, without running the route', async () => {
    const { seen, invoke } = adapter();

    const response = await invoke(post('x'.repeat(8193)));

    expect(response.status).toBe(413);
    expect(response.headers).toMatchObject({ 'content-type': 'application/problem+json', 'x-content-type-options': 'nosniff' });
    expect(response.body).toEqual({
      type: 'https://docs.bureau.example/errors/payload_too_large',
      title: 'Payload Too Large',
      status: 413,
      error: 'payload_too_large',
      detail: 'The request body exceeds 8192 bytes, the most the API accepts.',
    });
    expect(seen).toHaveLength(0);
  });

  it('counts bytes, not characters', async () => {
    const { seen, invoke } = adapter();
    // 2,731 characters of three bytes each: 8,193 bytes.
    const euros = '€'.repeat(2731);

    expect((await invoke(post(euros))).status).toBe(413);
    expect((await invoke(post(euros.slice(1)))).status).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it('measures a base64-encoded body after decoding, not as the longer text API Gateway sends', async () => {
    const { invoke } = adapter();
    const encoded = (bytes: number) => post(Buffer.alloc(bytes, 'a').toString('base64'), { isBase64Encoded: true });

    expect(encoded(8192).body?.length).toBeGreaterThan(8192);
    expect((await invoke(encoded(8192))).body).toEqual({ bytes: 8192 });
    expect((await invoke(encoded(8193))).status).toBe(413);
    expect((await invoke(encoded(8191))).status).toBe(200);
    expect((await invoke(encoded(8190))).status).toBe(200);
  });

  it('refuses an oversized body before reading anything else of the request', async () => {
    const { invoke } = adapter();

    const response = await invoke(post('x'.repeat(9000), { rawQueryString: 'q=%ZZ' }));

    expect(response.status).toBe(413);
  });

  it('lets a request without a body through', async () => {
    const { invoke } = adapter();

    expect((await invoke(apiGatewayEvent({ path: '/v1/search', rawQueryString: 'q=acme' }))).status).toBe(200);
    expect(decodedBodyBytes(undefined, false)).toBe(0);
    expect(decodedBodyBytes('', true)).toBe(0);
  });

  it('is the JSON body reader’s limit too, for a route called without the adapter', () => {
    const request = (body: string): HttpRequest => ({
      method: 'POST',
      path: '/v1/webhooks',
      pathParameters: {},
      headers: { 'content-type': 'application/json' },
      query: new URLSearchParams(),
      body,
      sourceIp: '192.0.2.10',
      requestId: 'request-1',
    });
    const padded = (bytes: number) => JSON.stringify({ name: 'x'.repeat(bytes - '{"name":""}'.length) });

    expect(jsonObjectBody(request(padded(8192)), ['name'])).toHaveProperty('name');
    expect(() => jsonObjectBody(request(padded(8193)), ['name'])).toThrow(
      expect.objectContaining({ status: 413, code: 'payload_too_large' }),
    );
  });
});
