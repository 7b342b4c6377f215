import { beforeAll, describe, expect, it } from 'vitest';
import type { Target, TargetFactory } from '../../../cli/context';
import { run } from '../../../cli/main';
import { DynamoClientRegistry } from '../../../shared/auth/dynamo-client-registry';
import { clientsTable, workspaceTable } from '../../../shared/storage/tables';
import { DynamoWorkspaceStore } from '../../../shared/workspace/dynamo-workspace-store';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { testSealer } from '../../support/sealer';

const sealer = testSealer();

let tables: TestTables;
let clientId: string;
beforeAll(async () => {
  tables = await createTestTables([clientsTable, workspaceTable]);
  clientId = (await new DynamoClientRegistry(tables.doc, tables.names.clients as string).create({ name: 'Acme Ltd' })).client.clientId;
});

const target =
  (workspaceOrigin?: string): TargetFactory =>
  async () =>
    ({
      doc: tables.doc,
      tables: {
        clients: tables.names.clients as string,
        companies: 'unused',
        watches: 'unused',
        webhooks: 'unused',
        deliveries: 'unused',
        workspace: tables.names.workspace as string,
      },
      sealer,
      loopbackReceivers: false,
      ...(workspaceOrigin ? { workspaceOrigin } : {}),
      description: 'the test deployment',
      close: async () => {},
    }) satisfies Target;

async function bureau(resolveTarget: TargetFactory, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, { io: { out: (line) => out.push(line), err: (line) => err.push(line) }, resolveTarget, env: {} });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('bureau workspace invite', () => {
  it('prints a one-time link on the workspace origin that lets the person choose a password', async () => {
    const result = await bureau(
      target('https://d111.cloudfront.net'),
      'workspace',
      'invite',
      '--client',
      clientId,
      '--email',
      'Ops@Acme.example',
      '--json',
    );

    expect(result.code).toBe(0);
    const { link, email, expiresAt } = JSON.parse(result.stdout) as { link: string; email: string; expiresAt: string };
    expect(email).toBe('ops@acme.example');
    expect(link).toMatch(/^https:\/\/d111\.cloudfront\.net\/workspace\/#\/invite\/[\w-]{43}$/);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(23 * 3600_000);
    const store = new DynamoWorkspaceStore(tables.doc, tables.names.workspace as string);
    const { person } = await store.redeem(await store.usableInvitation(link.split('/').at(-1) as string), 'scrypt$1$1$1$a$b');
    expect(person).toMatchObject({ email: 'ops@acme.example', clientId });
    expect(result.stderr).toMatch(/Send the link/);
  });

  it('refuses an unknown client, a malformed address, and an address another client has', async () => {
    await bureau(target('https://x.example'), 'workspace', 'invite', '--client', clientId, '--email', 'taken@acme.example');
    const other = (await new DynamoClientRegistry(tables.doc, tables.names.clients as string).create({ name: 'Other' })).client.clientId;

    const unknown = await bureau(
      target('https://x.example'),
      'workspace',
      'invite',
      '--client',
      'cli_0000000000000000',
      '--email',
      'a@b.example',
    );
    const malformed = await bureau(target('https://x.example'), 'workspace', 'invite', '--client', clientId, '--email', 'not-an-address');
    const taken = await bureau(target('https://x.example'), 'workspace', 'invite', '--client', other, '--email', 'taken@acme.example');

    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no client cli_0000000000000000/);
    expect(malformed.code).not.toBe(0);
    expect(malformed.stderr).toMatch(/not an e-mail address/);
    expect(taken.code).not.toBe(0);
    expect(taken.stderr).toMatch(/another client/);
  });
});

describe('bureau workspace passkeys', () => {
  async function personWithPasskeys(email: string, names: readonly string[]) {
    const store = new DynamoWorkspaceStore(tables.doc, tables.names.workspace as string);
    const { person } = await store.invite(clientId, email);
    for (const [i, name] of names.entries()) {
      await store.addPasskey(
        { credentialId: `cred-${email.split('@')[0]}-${i}`, personId: person.personId, publicKey: 'AA', counter: 0, name },
        {
          createdAtMs: Date.now(),
        },
      );
    }
    return { store, person };
  }

  it("lists a person's passkeys with their names, when added and when last used", async () => {
    await personWithPasskeys('listed@acme.example', ['Laptop', 'Phone']);

    const table = await bureau(target(), 'workspace', 'passkeys', 'list', '--email', 'Listed@Acme.example');
    const json = await bureau(target(), 'workspace', 'passkeys', 'list', '--email', 'listed@acme.example', '--json');

    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/Laptop/);
    expect(table.stdout).toMatch(/never/);
    const listed = JSON.parse(json.stdout) as { email: string; passkeys: Array<{ id: string; name: string; lastUsedAt: string | null }> };
    expect(listed.email).toBe('listed@acme.example');
    expect(listed.passkeys.map((passkey) => [passkey.id, passkey.name, passkey.lastUsedAt])).toEqual([
      ['cred-listed-0', 'Laptop', null],
      ['cred-listed-1', 'Phone', null],
    ]);
  });

  it('removes one passkey, or all of them, and keeps each removal in the history as made by an operator', async () => {
    const { store, person } = await personWithPasskeys('removed@acme.example', ['Laptop', 'Phone', 'Key']);

    const one = await bureau(target(), 'workspace', 'passkeys', 'remove', '--email', 'removed@acme.example', '--id', 'cred-removed-0');
    const unknown = await bureau(target(), 'workspace', 'passkeys', 'remove', '--email', 'removed@acme.example', '--id', 'cred-removed-0');
    const all = await bureau(target(), 'workspace', 'passkeys', 'remove', '--email', 'removed@acme.example', '--all', '--json');

    expect(one.code).toBe(0);
    expect(one.stdout).toBe('Removed passkey "Laptop" (cred-removed-0) of removed@acme.example.');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/no passkey cred-removed-0/);
    expect(JSON.parse(all.stdout)).toEqual({ email: 'removed@acme.example', removed: ['cred-removed-1', 'cred-removed-2'] });
    expect(await store.passkeysOf(person.personId)).toEqual([]);
    const removals = (await store.passkeyChanges(person.personId)).filter((entry) => entry.change === 'removed');
    expect(removals.map((entry) => entry.by)).toEqual(['operator', 'operator', 'operator']);
  });

  it('asks for --id or --all, and names an unknown person', async () => {
    await personWithPasskeys('asked@acme.example', ['Laptop']);

    const neither = await bureau(target(), 'workspace', 'passkeys', 'remove', '--email', 'asked@acme.example');
    const nobody = await bureau(target(), 'workspace', 'passkeys', 'list', '--email', 'nobody@acme.example');

    expect(neither.code).not.toBe(0);
    expect(neither.stderr).toMatch(/--id .* or --all/);
    expect(nobody.code).not.toBe(0);
    expect(nobody.stderr).toMatch(/no person nobody@acme.example/);
  });
});
