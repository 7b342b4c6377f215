import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ClientAlreadyExistsError,
  ClientNameRequiredError,
  ClientNotFoundError,
  InvalidClientInputError,
} from '../../../shared/auth/client-registry';
import { DynamoClientRegistry } from '../../../shared/auth/dynamo-client-registry';
import { clientsTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { manualClock } from '../../support/fakes';

let tables: TestTables;
beforeAll(async () => {
  tables = await createTestTables([clientsTable]);
});

function registry() {
  const clock = manualClock();
  return { clock, registry: new DynamoClientRegistry(tables.doc, tables.names.clients as string, clock) };
}

let counter = 0;
const uniqueId = (label: string) => `${label}-${Date.now().toString(36)}-${counter++}`;

describe('the client registry', () => {
  it('creates a client with a generated id and secret, and stores only a hash of the secret', async () => {
    const { registry: clients, clock } = registry();

    const { client, secret } = await clients.create({ name: '  Acme Ltd  ' });

    expect(client).toEqual({
      clientId: expect.stringMatching(/^cli_[A-Za-z0-9_-]{16}$/),
      name: 'Acme Ltd',
      status: 'active',
      createdAt: new Date(clock()).toISOString(),
      updatedAt: new Date(clock()).toISOString(),
      tokensNotBefore: 0,
      secretVersions: [{ version: 1, createdAt: new Date(clock()).toISOString() }],
    });
    expect(secret).toMatch(/^bsk_[A-Za-z0-9_-]{43}$/);
    const stored = await tables.doc.send(
      new GetCommand({ TableName: tables.names.clients, Key: { pk: `CLIENT#${client.clientId}`, sk: 'CLIENT' } }),
    );
    expect(JSON.stringify(stored.Item)).not.toContain(secret);
    expect(await clients.get(client.clientId)).toEqual(client);
  });

  it('accepts a chosen id, secret and rate limit', async () => {
    const { registry: clients } = registry();
    const clientId = uniqueId('chosen');
    const secret = 'a-chosen-secret-of-at-least-32-characters';

    const { client } = await clients.create({ name: 'Chosen', clientId, secret, rateLimitPerMinute: 50 });

    expect(client).toMatchObject({ clientId, rateLimitPerMinute: 50 });
    expect(await clients.verifyCredentials(clientId, secret)).toEqual(client);
  });

  it('refuses a duplicate id, a missing name and malformed input with typed errors', async () => {
    const { registry: clients } = registry();
    const clientId = uniqueId('dup');
    await clients.create({ name: 'First', clientId });

    await expect(clients.create({ name: 'Second', clientId })).rejects.toBeInstanceOf(ClientAlreadyExistsError);
    await expect(clients.create({ name: '   ' })).rejects.toBeInstanceOf(ClientNameRequiredError);
    await expect(clients.create({} as { name: string })).rejects.toBeInstanceOf(ClientNameRequiredError);
    await expect(clients.create({ name: 'x', clientId: 'has space' })).rejects.toMatchObject({ field: 'clientId' });
    await expect(clients.create({ name: 'x', secret: 'short' })).rejects.toMatchObject({ field: 'secret' });
    await expect(clients.create({ name: 'x', rateLimitPerMinute: 0 })).rejects.toBeInstanceOf(InvalidClientInputError);
  });

  it('answers unknown ids with undefined or ClientNotFoundError', async () => {
    const { registry: clients } = registry();

    expect(await clients.get('nobody-here')).toBeUndefined();
    expect(await clients.get('not a valid id')).toBeUndefined();
    await expect(clients.disable('nobody-here')).rejects.toBeInstanceOf(ClientNotFoundError);
    await expect(clients.enable('not a valid id')).rejects.toBeInstanceOf(ClientNotFoundError);
    await expect(clients.rotateSecret('nobody-here', { graceSeconds: 0 })).rejects.toBeInstanceOf(ClientNotFoundError);
  });

  it('verifies credentials only for the right secret of an existing active client', async () => {
    const { registry: clients } = registry();
    const { client, secret } = await clients.create({ name: 'Verify' });

    expect(await clients.verifyCredentials(client.clientId, secret)).toEqual(client);
    expect(await clients.verifyCredentials(client.clientId, `${secret}x`)).toBeUndefined();
    expect(await clients.verifyCredentials('unknown-client', secret)).toBeUndefined();
    expect(await clients.verifyCredentials('', secret)).toBeUndefined();
  });

  it('rotates a secret, keeping the old one working for the grace period only', async () => {
    const { registry: clients, clock } = registry();
    const { client, secret: oldSecret } = await clients.create({ name: 'Rotate' });

    const rotated = await clients.rotateSecret(client.clientId, { graceSeconds: 3600 });

    expect(rotated.version).toBe(2);
    expect(rotated.secret).not.toBe(oldSecret);
    const record = await clients.get(client.clientId);
    expect(record?.tokensNotBefore).toBe(clock() / 1000);
    expect(record?.secretVersions.map((v) => [v.version, v.expiresAt])).toEqual([
      [1, clock() / 1000 + 3600],
      [2, undefined],
    ]);
    expect(await clients.verifyCredentials(client.clientId, oldSecret)).toBeDefined();
    expect(await clients.verifyCredentials(client.clientId, rotated.secret)).toBeDefined();
    clock.advance(3600);
    expect(await clients.verifyCredentials(client.clientId, oldSecret)).toBeUndefined();
    expect(await clients.verifyCredentials(client.clientId, rotated.secret)).toBeDefined();
  });

  it('rotates to a chosen secret, and refuses a chosen secret too weak to be one', async () => {
    const { registry: clients } = registry();
    const { client } = await clients.create({ name: 'Chosen' });
    const chosen = `bsk_${'q'.repeat(43)}`;

    const rotated = await clients.rotateSecret(client.clientId, { graceSeconds: 0, secret: chosen });

    expect(rotated.secret).toBe(chosen);
    expect(await clients.verifyCredentials(client.clientId, chosen)).toBeDefined();
    await expect(clients.rotateSecret(client.clientId, { graceSeconds: 0, secret: 'short' })).rejects.toMatchObject({ field: 'secret' });
  });

  it('rotates with no grace: the old secret stops at once and expired versions are pruned', async () => {
    const { registry: clients } = registry();
    const { client, secret: first } = await clients.create({ name: 'Leaked' });
    const second = await clients.rotateSecret(client.clientId, { graceSeconds: 0 });

    const third = await clients.rotateSecret(client.clientId, { graceSeconds: 0 });

    expect(await clients.verifyCredentials(client.clientId, first)).toBeUndefined();
    expect(await clients.verifyCredentials(client.clientId, second.secret)).toBeUndefined();
    expect(await clients.verifyCredentials(client.clientId, third.secret)).toBeDefined();
    expect((await clients.get(client.clientId))?.secretVersions.map((v) => v.version)).toEqual([3]);
    await expect(clients.rotateSecret(client.clientId, { graceSeconds: -1 })).rejects.toMatchObject({ field: 'graceSeconds' });
  });

  it('keeps every rotation when two happen at once', async () => {
    const { registry: clients } = registry();
    const { client } = await clients.create({ name: 'Race' });

    const results = await Promise.all([
      clients.rotateSecret(client.clientId, { graceSeconds: 600 }),
      clients.rotateSecret(client.clientId, { graceSeconds: 600 }),
    ]);

    expect(results.map((r) => r.version).sort()).toEqual([2, 3]);
    for (const { secret } of results) expect(await clients.verifyCredentials(client.clientId, secret)).toBeDefined();
  });

  it('disables a client, revoking its tokens and refusing its secret, and enables it again', async () => {
    const { registry: clients, clock } = registry();
    const { client, secret } = await clients.create({ name: 'Toggle' });
    clock.advance(10);

    const disabled = await clients.disable(client.clientId);

    expect(disabled).toMatchObject({ status: 'disabled', tokensNotBefore: clock() / 1000, updatedAt: new Date(clock()).toISOString() });
    expect(await clients.verifyCredentials(client.clientId, secret)).toBeUndefined();
    clock.advance(10);
    const enabled = await clients.enable(client.clientId);
    expect(enabled).toMatchObject({ status: 'active', tokensNotBefore: disabled.tokensNotBefore });
    expect(await clients.verifyCredentials(client.clientId, secret)).toBeDefined();
    expect(JSON.stringify(enabled)).not.toContain('sha256');
  });

  it('lists clients page by page, skipping everything that is not a client', async () => {
    const isolated = await createTestTables([clientsTable]);
    const clients = new DynamoClientRegistry(isolated.doc, isolated.names.clients as string);
    const ids = ['c-alpha', 'c-bravo', 'c-charlie', 'c-delta', 'c-echo'];
    for (const clientId of ids) await clients.create({ name: clientId, clientId });
    await isolated.doc.send(new PutCommand({ TableName: isolated.names.clients, Item: { pk: 'RATE#client#c-alpha', sk: '0', count: 3 } }));
    await isolated.doc.send(new PutCommand({ TableName: isolated.names.clients, Item: { pk: 'SIGNING_KEYS', sk: 'JWKS', keys: [] } }));

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await clients.list({ limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.clients.map((c) => c.clientId));
      for (const client of page.clients) expect(JSON.stringify(client)).not.toContain('sha256');
      cursor = page.cursor;
      pages++;
    } while (cursor);

    expect(seen).toEqual(ids);
    expect(pages).toBeGreaterThanOrEqual(3);
    await expect(clients.list({ cursor: 'not-a-cursor!' })).rejects.toMatchObject({ field: 'cursor' });
    await expect(clients.list({ limit: 0 })).rejects.toMatchObject({ field: 'limit' });
  });
});
