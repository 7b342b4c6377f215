import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoClientRegistry } from '../../../shared/auth/client-registry';
import { ensureLocalSigningKeys } from '../../../shared/auth/signing-keys';
import { clientsTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';

let tables: TestTables;
let keyDir: string;

beforeAll(async () => {
  tables = await createTestTables([clientsTable]);
  keyDir = mkdtempSync(join(tmpdir(), 'bureau-token-handler-'));
  const keyFile = join(keyDir, 'signing-keys.json');
  await ensureLocalSigningKeys({ file: keyFile, doc: tables.doc, tableName: tables.names.clients as string });
  Object.assign(process.env, tables.env, { SIGNING_KEY_FILE: keyFile });
});

afterAll(() => {
  rmSync(keyDir, { recursive: true, force: true });
});

function event(method: string, path: string, body: string, headers: Record<string, string>): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers,
    body,
    isBase64Encoded: false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '192.0.2.10', userAgent: 'test' },
      requestId: 'request-1',
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: '01/Mar/2025:12:00:00 +0000',
      timeEpoch: 1_740_830_400_000,
    },
  };
}

describe('the token Lambda handler', () => {
  it('answers an API Gateway token request with a bearer token', async () => {
    const { client, secret } = await new DynamoClientRegistry(tables.doc, tables.names.clients as string).create({ name: 'Lambda test' });
    const { handler } = await import('../../../functions/token/handler');

    const result = await handler(
      event(
        'POST',
        '/v1/oauth/token',
        JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: secret }),
        {
          'Content-Type': 'application/json',
        },
      ),
      {} as Context,
    );

    expect(result.statusCode).toBe(200);
    expect(result.headers).toMatchObject({ 'cache-control': 'no-store' });
    expect(JSON.parse(result.body as string)).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
  });
});
