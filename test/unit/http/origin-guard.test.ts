import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../shared/http/errors';
import { lambdaHttpHandler } from '../../../shared/http/lambda';
import { ORIGIN_VERIFY_HEADER, OriginGuard, VIEWER_ADDRESS_HEADER } from '../../../shared/http/origin-guard';
import { apiGatewayEvent } from '../../support/api-gateway-events';
import { FakeSecretsManager } from '../../support/fake-secrets-manager';

const SECRET_ID = 'arn:aws:secretsmanager:eu-west-2:123456789012:secret:origin';

function setUp(values: { current: string; previous?: string } = { current: 'first-value' }) {
  const secrets = new FakeSecretsManager(SECRET_ID);
  if (values.previous) secrets.seed('v0', values.previous, ['AWSPREVIOUS']);
  secrets.seed('v1', values.current, ['AWSCURRENT']);
  let now = 0;
  const guard = new OriginGuard(secrets.client, SECRET_ID, { cacheMs: 1_000, clock: () => now });
  return { secrets, guard, advance: (ms: number) => (now += ms) };
}

const refusal = (promise: Promise<void>) =>
  promise.then(
    () => undefined,
    (error: HttpError) => error,
  );

describe('origin guard', () => {
  it('lets through a request carrying the current value, and refuses one without it or with another', async () => {
    const { guard } = setUp();

    await expect(guard.check('first-value')).resolves.toBeUndefined();
    for (const offered of [undefined, '', 'first-valu', 'first-value ', 'FIRST-VALUE']) {
      const error = await refusal(guard.check(offered));
      expect(error, String(offered)).toBeInstanceOf(HttpError);
      expect(error).toMatchObject({ status: 403, code: 'forbidden' });
    }
  });

  it('accepts the previous value too, so a new value can reach CloudFront without refusing anyone meanwhile', async () => {
    const { secrets, guard, advance } = setUp();
    await secrets.client.send(new PutSecretValueCommand({ SecretId: SECRET_ID, ClientRequestToken: 'v2', SecretString: 'second-value' }));
    advance(1_000);

    await expect(guard.check('first-value')).resolves.toBeUndefined();
    await expect(guard.check('second-value')).resolves.toBeUndefined();
    expect((await refusal(guard.check('zeroth-value')))?.status).toBe(403);
  });

  it('reads the secret once per cache period, not per request', async () => {
    const { secrets, guard, advance } = setUp();
    await Promise.all(Array.from({ length: 20 }, () => guard.check('first-value')));
    expect(secrets.calls).toHaveLength(2);

    advance(1_000);
    await guard.check('first-value');
    expect(secrets.calls).toHaveLength(4);
  });

  it('keeps checking against the values it read while Secrets Manager is unreachable', async () => {
    const { secrets, guard, advance } = setUp();
    await guard.check('first-value');
    secrets.unreachable = true;
    advance(1_000);

    await expect(guard.check('first-value')).resolves.toBeUndefined();
    expect((await refusal(guard.check('other')))?.status).toBe(403);
  });

  it('answers 503, never lets a request through, when it has not read the secret yet and cannot', async () => {
    const { secrets, guard } = setUp();
    secrets.unreachable = true;

    const error = await refusal(guard.check('first-value'));

    expect(error).toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'retry-after': '60' } });
    secrets.unreachable = false;
    await expect(guard.check('first-value')).resolves.toBeUndefined();
  });

  it('makes the HTTP adapter refuse a request that bypassed CloudFront before the route runs', async () => {
    const { guard } = setUp();
    let ran = 0;
    const handler = lambdaHttpHandler(async () => {
      ran += 1;
      return { status: 200, body: { ok: true } };
    }, guard);
    const invoke = (headers: Record<string, string>) =>
      handler(apiGatewayEvent({ method: 'GET', path: '/v1/search', headers }), {} as Context) as Promise<APIGatewayProxyStructuredResultV2>;

    const bypassed = await invoke({});
    const forwarded = await invoke({ [ORIGIN_VERIFY_HEADER]: 'first-value' });

    expect(bypassed.statusCode).toBe(403);
    expect(JSON.parse(bypassed.body as string)).toMatchObject({ error: 'forbidden', status: 403 });
    expect(forwarded.statusCode).toBe(200);
    expect(ran).toBe(1);
  });

  it("takes the caller's address from CloudFront's header once the request proved it came through CloudFront, and never otherwise", async () => {
    const { guard } = setUp();
    const seen: string[] = [];
    const handle = async (request: { sourceIp: string }) => {
      seen.push(request.sourceIp);
      return { status: 204 };
    };
    const event = (headers: Record<string, string>) => apiGatewayEvent({ path: '/v1/oauth/token', headers, sourceIp: '130.176.0.1' });

    await lambdaHttpHandler(handle, guard)(
      event({ [ORIGIN_VERIFY_HEADER]: 'first-value', [VIEWER_ADDRESS_HEADER]: '203.0.113.7' }),
      {} as Context,
    );
    await lambdaHttpHandler(handle, guard)(
      event({ [ORIGIN_VERIFY_HEADER]: 'first-value', [VIEWER_ADDRESS_HEADER]: '2001:db8::7' }),
      {} as Context,
    );
    // Not an address: the gateway's is kept rather than a string a caller chose.
    await lambdaHttpHandler(handle, guard)(
      event({ [ORIGIN_VERIFY_HEADER]: 'first-value', [VIEWER_ADDRESS_HEADER]: 'anyone' }),
      {} as Context,
    );
    // Without a guard (the local runtime: no CloudFront in front), the header is anybody's to send.
    await lambdaHttpHandler(handle, undefined)(event({ [VIEWER_ADDRESS_HEADER]: '203.0.113.7' }), {} as Context);

    expect(seen).toEqual(['203.0.113.7', '2001:db8::7', '130.176.0.1', '130.176.0.1']);
  });
});
