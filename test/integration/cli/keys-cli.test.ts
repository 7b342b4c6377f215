import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Target, TargetFactory } from '../../../cli/context';
import { run } from '../../../cli/main';
import { resolveStackTarget } from '../../../cli/target';
import { FileKeySetSource } from '../../../local/key-file';
import { PublishedJwksStore } from '../../../shared/auth/published-jwks-store';
import { SecretsManagerKeySetVault } from '../../../shared/auth/secrets-manager-key-sets';
import { type KeySetVault, publicJwks, rotateKeySet } from '../../../shared/auth/signing-keys';
import { clientsTable } from '../../../shared/storage/tables';
import { createTestTables, type TestTables } from '../../support/dynamo';
import { testSealer } from '../../support/sealer';

const sealer = testSealer();

let tables: TestTables;
let workDir: string;
beforeAll(async () => {
  tables = await createTestTables([clientsTable]);
  workDir = mkdtempSync(join(tmpdir(), 'bureau-keys-cli-'));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const targetOver =
  (signingKeys: KeySetVault | undefined): TargetFactory =>
  async () =>
    ({
      doc: tables.doc,
      tables: {
        clients: tables.names.clients as string,
        companies: 'unused',
        watches: 'unused',
        webhooks: 'unused',
        deliveries: 'unused',
        workspace: 'unused',
      },
      ...(signingKeys ? { signingKeys } : {}),
      sealer,
      loopbackReceivers: false,
      description: 'the test deployment',
      close: async () => {},
    }) satisfies Target;

async function bureau(factory: TargetFactory, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, { io: { out: (line) => out.push(line), err: (line) => err.push(line) }, resolveTarget: factory, env: {} });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** The local runtime's arrangement: a key file, its public keys published to the clients table. */
async function localKeys(name: string) {
  const file = new FileKeySetSource(join(workDir, name, 'signing-keys.json'));
  const first = await file.get();
  const keySet = await rotateKeySet(first);
  await file.replace(keySet);
  await new PublishedJwksStore(tables.doc, tables.names.clients as string).publish(publicJwks(keySet));
  return { file, keySet };
}

describe('bureau keys', () => {
  it('lists the keys without their private halves', async () => {
    const { file, keySet } = await localKeys('list');

    const table = await bureau(targetOver(file), 'keys', 'list');
    const json = await bureau(targetOver(file), 'keys', 'list', '--json');

    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`${keySet.current} +\\S+ +yes +yes`));
    expect(JSON.parse(json.stdout)).toHaveLength(2);
    for (const key of keySet.keys) expect(json.stdout + table.stdout).not.toContain(key.d);
  });

  it('revokes the current key: gone from the file and the published keys, a new key signs, and it says how soon it bites', async () => {
    const { file, keySet } = await localKeys('revoke');

    const result = await bureau(targetOver(file), 'keys', 'revoke', keySet.current);

    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Revoked signing key ${keySet.current}: it is no longer published.`);
    expect(result.stdout).toContain('Every verifier refuses the tokens it signed within 60 s.');
    const now = await file.read();
    expect(now?.keys.map((key) => key.kid)).not.toContain(keySet.current);
    expect(result.stdout).toContain(`signs them now`);
    const published = await new PublishedJwksStore(tables.doc, tables.names.clients as string, { cacheSeconds: 0 }).get();
    expect(published.keys.map((key) => key.kid).sort()).toEqual(now?.keys.map((key) => key.kid).sort());
  });

  it('answers an unknown kid with one line and exit code 1', async () => {
    const { file } = await localKeys('unknown');

    const result = await bureau(targetOver(file), 'keys', 'revoke', 'no-such-kid');

    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: No signing key with kid "no-such-kid" is in the key set or the published keys');
  });

  it('says so when the target names no signing key secret, with exit code 2', async () => {
    const result = await bureau(targetOver(undefined), 'keys', 'list');

    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: the test deployment names no signing key secret');
  });

  it('finds the signing key secret of a deployed stack in its outputs', async () => {
    const outputs = ['Clients', 'Companies', 'Watches', 'Webhooks', 'Deliveries', 'Workspace'].map((id) => ({
      OutputKey: `${id}TableName`,
      OutputValue: `${id}-table`,
    }));
    outputs.push({ OutputKey: 'SigningKeySecretArn', OutputValue: 'arn:aws:secretsmanager:eu-west-2:1:secret:keys' });
    const cloudFormation = { send: async () => ({ Stacks: [{ StackName: 'Bureau', Outputs: outputs }] }) };

    const target = await resolveStackTarget('Bureau', 'eu-west-2', cloudFormation as never);
    await target.close();

    expect(target.signingKeys).toBeInstanceOf(SecretsManagerKeySetVault);
  });
});
