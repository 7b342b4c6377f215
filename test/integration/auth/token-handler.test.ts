import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functions } from '../../../infra/catalogue';
import { localFunctionFromSpec } from '../../../infra/local/functions';
import { ensureLocalSigningKeys } from '../../../infra/local/key-file';
import { DynamoClientRegistry } from '../../../shared/auth/dynamo-client-registry';
import { clientsTable } from '../../../shared/storage/tables';
import { apiGatewayEvent } from '../../support/api-gateway-events';
import { createTestTables, type TestTables } from '../../support/dynamo';

let tables: TestTables;
let keyDir: string;
let keyFile: string;

beforeAll(async () => {
  tables = await createTestTables([clientsTable]);
  keyDir = mkdtempSync(join(tmpdir(), 'bureau-token-handler-'));
  keyFile = join(keyDir, 'signing-keys.json');
  await ensureLocalSigningKeys({ file: keyFile, doc: tables.doc, tableName: tables.names.clients as string });
});

afterAll(() => {
  rmSync(keyDir, { recursive: true, force: true });
});

describe('the token Lambda handler', () => {
  it('answers an API Gateway token request with a bearer token, in an instance given only its own environment', async () => {
    const spec = functions.find((candidate) => candidate.id === 'token');
    if (!spec) throw new Error('no token function in the catalogue');
    const { client, secret } = await new DynamoClientRegistry(tables.doc, tables.names.clients as string).create({ name: 'Lambda test' });
    const token = localFunctionFromSpec(spec, {
      root: join(import.meta.dirname, '../../..'),
      environment: { ...(tables.env as Record<string, string>), SIGNING_KEY_FILE: keyFile },
    });

    try {
      const result = (await token.invoke(
        apiGatewayEvent({
          method: 'POST',
          path: '/v1/oauth/token',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: secret }),
        }),
      )) as APIGatewayProxyStructuredResultV2;

      expect(result.statusCode).toBe(200);
      expect(result.headers).toMatchObject({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
      expect(JSON.parse(result.body as string)).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    } finally {
      await token.stop();
    }
  });
});
