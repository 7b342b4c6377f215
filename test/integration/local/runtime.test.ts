import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DescribeTableCommand, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { LocalRuntime } from '../../../local/runtime';
import { LOCAL_SIGNING_KEY_SECRET_ID } from '../../../local/secrets-manager';
import { createDynamoClient } from '../../../shared/storage/dynamo';
import { engineRunningOn } from '../../support/engine';
import { startTestRuntime, type TestRuntime } from '../../support/runtime';

const demoClientId = 'demo-fixed-client';
const demoClientSecret = `bsk_${'x'.repeat(43)}`;
let testRuntime: TestRuntime;
let runtime: LocalRuntime;
let dataDir: string;

beforeAll(async () => {
  // Its own engine, as npm start runs it: these tests read its folder, its table names and its stop.
  testRuntime = await startTestRuntime(
    { BUREAU_DEMO_CLIENT_ID: demoClientId, BUREAU_DEMO_CLIENT_SECRET: demoClientSecret },
    { ownEngine: true },
  );
  runtime = testRuntime.runtime;
  dataDir = runtime.dataDir;
});

afterAll(async () => {
  await testRuntime.stop();
});

describe('local runtime', () => {
  it('records itself in runtime.json for the operator CLI', () => {
    const info = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8'));

    expect(info).toMatchObject({
      pid: process.pid,
      baseUrl: runtime.baseUrl,
      dynamodbEndpoint: runtime.dynamodbEndpoint,
      sqsEndpoint: runtime.sqsEndpoint,
      tables: { clients: 'bureau-clients', companies: 'bureau-companies', watches: 'bureau-watches' },
    });
  });

  it('knows every table, endpoint and queue it provides, and leaves the environment of its own process alone', () => {
    expect(runtime.env).toMatchObject({
      CLIENTS_TABLE: 'bureau-clients',
      COMPANIES_TABLE: 'bureau-companies',
      WATCHES_TABLE: 'bureau-watches',
      DYNAMODB_ENDPOINT: runtime.dynamodbEndpoint,
      SQS_ENDPOINT: runtime.sqsEndpoint,
      DELIVERIES_QUEUE_URL: expect.stringContaining('bureau-deliveries'),
    });
    expect(process.env.COMPANIES_TABLE).toBeUndefined();
    expect(process.env.DYNAMODB_ENDPOINT).toBeUndefined();
  });

  it('gives each function only the tables its catalogue entry grants, and the signing key file only to the signer', () => {
    const { token, search, profile, watches } = runtime.functionEnvironments;

    expect(Object.keys(token ?? {}).filter((name) => name.endsWith('_TABLE'))).toEqual(['CLIENTS_TABLE']);
    expect(
      Object.keys(search ?? {})
        .filter((name) => name.endsWith('_TABLE'))
        .sort(),
    ).toEqual(['CLIENTS_TABLE', 'COMPANIES_TABLE']);
    expect(
      Object.keys(profile ?? {})
        .filter((name) => name.endsWith('_TABLE'))
        .sort(),
    ).toEqual(['CLIENTS_TABLE', 'COMPANIES_TABLE', 'WATCHES_TABLE']);
    expect(
      Object.keys(watches ?? {})
        .filter((name) => name.endsWith('_TABLE'))
        .sort(),
    ).toEqual(['CLIENTS_TABLE', 'WATCHES_TABLE']);
    expect(token?.SIGNING_KEY_SECRET_ID).toBe(LOCAL_SIGNING_KEY_SECRET_ID);
    expect(token?.SECRETS_MANAGER_ENDPOINT).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const other of [search, profile, watches]) expect(other).not.toHaveProperty('SIGNING_KEY_SECRET_ID');
    for (const env of Object.values(runtime.functionEnvironments)) {
      expect(env).not.toHaveProperty('PATH');
      expect(env).not.toHaveProperty('BUREAU_DEMO_CLIENT_SECRET');
    }
  });

  it('serves the catalogue: the demo client fixed by the environment gets a token', async () => {
    const response = await fetch(`${runtime.baseUrl}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: demoClientId, client_secret: demoClientSecret }),
    });

    expect(runtime.demoClient).toEqual({ clientId: demoClientId, clientSecret: demoClientSecret, disabled: false });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(statSync(join(dataDir, 'demo-client.json')).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o777, 'the data folder').toBe(0o700);
    expect(statSync(join(dataDir, 'work')).mode & 0o777, 'the engine folder').toBe(0o700);
  });

  it('gives end-to-end tests a token for the demo client that the protected routes accept', async () => {
    const token = await testRuntime.fetchToken();

    const search = await fetch(`${testRuntime.baseUrl}/v1/search?q=acme&jurisdiction=GB`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const anonymous = await fetch(`${testRuntime.baseUrl}/v1/search?q=acme&jurisdiction=GB`);

    expect(testRuntime.demoClient).toEqual({ clientId: demoClientId, clientSecret: demoClientSecret });
    expect(search.status).toBe(200);
    expect(anonymous.status).toBe(401);
  });

  it('stops everything: no Java process, no runtime.json, the environment put back', async () => {
    expect(engineRunningOn(runtime.dynamodbEndpoint)).toBe(true);

    await runtime.stop();

    expect(engineRunningOn(runtime.dynamodbEndpoint)).toBe(false);
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);
    await expect(fetch(`${runtime.baseUrl}/v1/oauth/token`)).rejects.toThrow();
  });
});

describe('local runtime on a DynamoDB Local it did not start', () => {
  it('names its tables with its own prefix and hands them to its functions; on stop it deletes them and leaves the engine running', async () => {
    const shared = await startTestRuntime();
    const { runtime: guest } = shared;
    const client = createDynamoClient({ DYNAMODB_ENDPOINT: guest.dynamodbEndpoint, AWS_REGION: 'eu-west-2' });
    const exists = (name: string) =>
      client.send(new DescribeTableCommand({ TableName: name })).then(
        () => true,
        (error: unknown) => {
          if (error instanceof ResourceNotFoundException) return false;
          throw error;
        },
      );
    try {
      const prefix = (guest.tables.clients as string).replace(/clients$/, '');
      const names = Object.values(guest.tables);

      expect(guest.dynamodbEndpoint).toBe(inject('dynamodbEndpoint'));
      expect(prefix).toMatch(/^rt-[0-9a-f]{8}-$/);
      expect(names.filter((name) => !name.startsWith(prefix))).toEqual([]);
      expect(guest.functionEnvironments.token?.CLIENTS_TABLE).toBe(guest.tables.clients);
      expect(await Promise.all(names.map(exists))).toEqual(names.map(() => true));
      expect(await shared.fetchToken()).toEqual(expect.any(String));

      await shared.stop();

      expect(await Promise.all(names.map(exists))).toEqual(names.map(() => false));
      expect(engineRunningOn(guest.dynamodbEndpoint)).toBe(true);
    } finally {
      await shared.stop();
      client.destroy();
    }
  });
});
