import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FunctionSpec, functions } from '../../infra/catalogue';
import { localFunctionEnvironment } from '../../local/function-environment';
import { LocalFunction, localFunctionFromSpec } from '../../local/functions';
import { ensureLocalSigningKeys } from '../../local/key-file';
import { type LocalKms, startLocalKms } from '../../local/kms';
import { repositoryRoot } from '../../local/paths';
import { type LocalSecretsManager, startLocalSecretsManager } from '../../local/secrets-manager';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { apiGatewayEvent } from '../support/api-gateway-events';
import { createTestTables, type TestTables } from '../support/dynamo';

let tables: TestTables;
let keyDir: string;
let keyFile: string;
let secretsManager: LocalSecretsManager;
let kms: LocalKms;
const started: LocalFunction[] = [];

beforeAll(async () => {
  tables = await createTestTables();
  keyDir = mkdtempSync(join(tmpdir(), 'bureau-token-handler-'));
  keyFile = join(keyDir, 'signing-keys.json');
  await ensureLocalSigningKeys({ file: keyFile, doc: tables.doc, tableName: tables.names.clients as string });
  secretsManager = await startLocalSecretsManager({ signingKeyFile: keyFile });
  kms = await startLocalKms({ keyFile: join(keyDir, 'webhook-secrets-key') });
});

afterAll(async () => {
  await Promise.all(started.map((fn) => fn.stop()));
  await secretsManager?.stop();
  await kms?.stop();
  rmSync(keyDir, { recursive: true, force: true });
});

/** A catalogue function as the runtime runs it: its own instance, with the environment its entry grants. */
function deployed(id: string, settings: Record<string, string> = {}): LocalFunction {
  const spec = functions.find((candidate) => candidate.id === id) as FunctionSpec;
  const environment = localFunctionEnvironment(spec, {
    base: { AWS_REGION: 'eu-west-2', DYNAMODB_ENDPOINT: tables.env.DYNAMODB_ENDPOINT as string },
    tables: tables.names,
    queues: {},
    secretsManagerEndpoint: secretsManager.endpoint,
    kmsEndpoint: kms.endpoint,
    settings,
  });
  const fn = localFunctionFromSpec(spec, { root: repositoryRoot, environment });
  started.push(fn);
  return fn;
}

const call = async (fn: LocalFunction, request: Parameters<typeof apiGatewayEvent>[0]) =>
  (await fn.invoke(apiGatewayEvent(request))) as APIGatewayProxyStructuredResultV2;

describe('the functions as deployed', () => {
  it('answer API Gateway requests: a token from the token function opens the watches function, with the settings given', async () => {
    const { client, secret } = await new DynamoClientRegistry(tables.doc, tables.names.clients as string).create({ name: 'Lambda test' });
    const token = deployed('token');
    const watches = deployed('watches', { RATE_LIMIT_PER_MINUTE: '100' });

    const issued = await call(token, {
      method: 'POST',
      path: '/v1/oauth/token',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: secret }),
    });
    const accessToken = JSON.parse(issued.body as string).access_token as string;
    const listed = await call(watches, { path: '/v1/watches', headers: { authorization: `Bearer ${accessToken}` } });

    expect(issued.statusCode).toBe(200);
    expect(issued.headers).toMatchObject({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    expect(listed.statusCode).toBe(200);
    expect(listed.headers).toMatchObject({ 'ratelimit-policy': '"default";q=100;w=60' });
    expect(JSON.parse(listed.body as string)).toEqual({ items: [], nextCursor: null });
  });

  it('fail at start, not later, when an environment lacks what the function needs', async () => {
    const spec = functions.find((candidate) => candidate.id === 'search') as FunctionSpec;
    const withoutCompanies = new LocalFunction({
      functionName: 'bureau-search',
      entry: spec.entry,
      root: repositoryRoot,
      environment: { AWS_REGION: 'eu-west-2', CLIENTS_TABLE: tables.names.clients as string },
    });
    started.push(withoutCompanies);

    await expect(withoutCompanies.invoke(apiGatewayEvent({ path: '/v1/search' }))).rejects.toThrow(/COMPANIES_TABLE is not set/);
  });
});
