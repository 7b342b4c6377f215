import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureDemoClient, publishSigningKeys, type StartupContext } from '../../../local/bootstrap';
import { localPaths } from '../../../local/paths';
import { DynamoClientRegistry } from '../../../shared/auth/dynamo-client-registry';
import { PublishedJwksStore } from '../../../shared/auth/published-jwks-store';
import { clientsTable } from '../../../shared/storage/tables';
import { createTestTables } from '../../support/dynamo';

async function startupContext(env: NodeJS.ProcessEnv = {}): Promise<StartupContext & { registry: DynamoClientRegistry }> {
  const { doc, names } = await createTestTables([clientsTable]);
  const paths = localPaths(mkdtempSync(join(tmpdir(), 'bureau-bootstrap-')));
  return { paths, doc, tables: names, env, log: () => {}, registry: new DynamoClientRegistry(doc, names.clients as string) };
}

const storedDemoClient = (context: StartupContext) => JSON.parse(readFileSync(context.paths.demoClient, 'utf8'));

describe('start-up hooks', () => {
  it('generate the demo client once and print the same credentials on every start', async () => {
    const context = await startupContext();

    const first = await ensureDemoClient(context);
    const second = await ensureDemoClient(context);

    expect(first.demoClient?.clientSecret).toMatch(/^bsk_/);
    expect(second.demoClient).toEqual(first.demoClient);
    expect(storedDemoClient(context)).toEqual({ clientId: first.demoClient?.clientId, clientSecret: first.demoClient?.clientSecret });
    expect(statSync(context.paths.demoClient).mode & 0o777).toBe(0o600);
    expect(
      await context.registry.verifyCredentials(first.demoClient?.clientId as string, first.demoClient?.clientSecret as string),
    ).toMatchObject({
      name: 'Demo client',
    });
  });

  it('use the id and secret fixed by BUREAU_DEMO_CLIENT_ID and BUREAU_DEMO_CLIENT_SECRET', async () => {
    const secret = `bsk_${'f'.repeat(43)}`;
    const context = await startupContext({ BUREAU_DEMO_CLIENT_ID: 'ci-demo', BUREAU_DEMO_CLIENT_SECRET: secret });

    const { demoClient } = await ensureDemoClient(context);

    expect(demoClient).toEqual({ clientId: 'ci-demo', clientSecret: secret, disabled: false });
    expect(await context.registry.verifyCredentials('ci-demo', secret)).toBeDefined();
  });

  it('give the demo client a new secret when the kept one no longer works', async () => {
    const context = await startupContext();
    const { demoClient: before } = await ensureDemoClient(context);
    await context.registry.rotateSecret(before?.clientId as string, { graceSeconds: 0 });

    const { demoClient: after } = await ensureDemoClient(context);

    expect(after?.clientId).toBe(before?.clientId);
    expect(after?.clientSecret).not.toBe(before?.clientSecret);
    expect(await context.registry.verifyCredentials(after?.clientId as string, after?.clientSecret as string)).toBeDefined();
    expect(storedDemoClient(context).clientSecret).toBe(after?.clientSecret);
  });

  it('switch the stored client to an environment secret that differs from its own', async () => {
    const context = await startupContext({ BUREAU_DEMO_CLIENT_ID: 'ci-demo' });
    const { demoClient: before } = await ensureDemoClient(context);
    const fixedSecret = `bsk_${'z'.repeat(43)}`;
    const changed = { ...context, env: { BUREAU_DEMO_CLIENT_ID: 'ci-demo', BUREAU_DEMO_CLIENT_SECRET: fixedSecret } };

    const { demoClient: after } = await ensureDemoClient(changed);

    expect(after).toMatchObject({ clientId: 'ci-demo', clientSecret: fixedSecret, disabled: false });
    expect(await context.registry.verifyCredentials('ci-demo', fixedSecret)).toBeDefined();
    expect(await context.registry.verifyCredentials('ci-demo', before?.clientSecret as string)).toBeUndefined();
  });

  it('report a disabled demo client instead of re-enabling it', async () => {
    const context = await startupContext();
    const { demoClient } = await ensureDemoClient(context);
    await context.registry.disable(demoClient?.clientId as string);

    const again = await ensureDemoClient(context);

    expect(again.demoClient).toMatchObject({ clientId: demoClient?.clientId, disabled: true });
    expect((await context.registry.get(demoClient?.clientId as string))?.status).toBe('disabled');
  });

  it('create the signing key file and publish its public keys for the verifiers', async () => {
    const context = await startupContext();

    await publishSigningKeys(context);

    expect(existsSync(context.paths.signingKeys)).toBe(true);
    const published = await new PublishedJwksStore(context.doc, context.tables.clients as string).get();
    expect(published.keys.length).toBeGreaterThan(0);
    expect(published.keys[0]).not.toHaveProperty('d');
  });
});
