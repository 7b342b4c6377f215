import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withLocalGrants } from '../../../local/grants';
import { LOCAL_WEBHOOK_SECRETS_KEY_ID, LocalDataKeys, type LocalKms, LocalKmsKey, startLocalKms } from '../../../local/kms';
import { awsClient } from '../../../shared/aws/clients';
import { KmsDataKeys, webhookSecretSealer } from '../../../shared/crypto/kms-data-keys';
import { EnvelopeSealer } from '../../../shared/crypto/secret-sealer';
import { clientEncryptionContext } from '../../../shared/crypto/webhook-secrets-key';

let kms: LocalKms;
let keyFile: string;

beforeAll(async () => {
  keyFile = join(mkdtempSync(join(tmpdir(), 'bureau-kms-')), 'key');
  kms = await startLocalKms({ keyFile });
});

afterAll(async () => {
  await kms?.stop();
});

const OWNER = { clientId: 'cli_a', owner: 'webhook-signing-secret:cli_a/wh_1' };
const CLIENT_A = clientEncryptionContext('cli_a');

const env = () => ({ KMS_ENDPOINT: kms.endpoint, AWS_REGION: 'eu-west-2', WEBHOOK_SECRETS_KEY_ID: LOCAL_WEBHOOK_SECRETS_KEY_ID });

describe('data keys from KMS, through the SDK, against the local stand-in', () => {
  it('seals through GenerateDataKey and opens through Decrypt, as a function does', async () => {
    const sealer = webhookSecretSealer(env());
    const sealed = await sealer.seal('whsec_secret', OWNER);

    await expect(webhookSecretSealer(env()).open(sealed, OWNER)).resolves.toBe('whsec_secret');
  });

  it('keeps its key in a file only its owner reads, and names a damaged one at start', async () => {
    const damaged = join(mkdtempSync(join(tmpdir(), 'bureau-kms-')), 'key');
    writeFileSync(damaged, 'c2hvcnQ=\n');

    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(() => new LocalKmsKey(damaged)).toThrow(`${damaged} does not hold a 256-bit key`);
  });

  it('opens what an operator tool sealed with the key file, and the other way round', async () => {
    const operator = new EnvelopeSealer(new LocalDataKeys(new LocalKmsKey(keyFile)));
    const function_ = webhookSecretSealer(env());

    await expect(function_.open(await operator.seal('whsec_from_cli', OWNER), OWNER)).resolves.toBe('whsec_from_cli');
    await expect(operator.open(await function_.seal('whsec_from_api', OWNER), OWNER)).resolves.toBe('whsec_from_api');
  });

  it('is refused for a key it does not hold, and for a data key it did not make', async () => {
    const client = awsClient((config) => new KMSClient(config), 'kms', env());
    const unknown = new KmsDataKeys(client, 'alias/someone-else');
    const own = new KmsDataKeys(client, LOCAL_WEBHOOK_SECRETS_KEY_ID);

    await expect(unknown.generate(CLIENT_A)).rejects.toMatchObject({ name: 'NotFoundException' });
    await expect(own.decrypt(Buffer.alloc(60, 7), CLIENT_A)).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
  });

  it('keeps a function that may only open from asking for data keys, as IAM would', async () => {
    const grants = {
      functionId: 'sender',
      functionName: 'bureau-sender',
      accountId: '000000000000',
      tables: [],
      queues: [],
      kms: ['Decrypt'],
    };
    const scoped = { ...env(), BUREAU_LOCAL_GRANTS: JSON.stringify(grants) };
    const client = withLocalGrants(
      awsClient((config) => new KMSClient(config), 'kms', scoped),
      'kms',
      scoped,
    );
    const sealed = await webhookSecretSealer(env()).seal('whsec_x', OWNER);

    await expect(new KmsDataKeys(client, LOCAL_WEBHOOK_SECRETS_KEY_ID).generate(CLIENT_A)).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining('kms:GenerateDataKey'),
    });
    await expect(new EnvelopeSealer(new KmsDataKeys(client, LOCAL_WEBHOOK_SECRETS_KEY_ID)).open(sealed, OWNER)).resolves.toBe('whsec_x');
  });

  it('refuses, as the condition on the grant does, data keys for another purpose or none', async () => {
    const grants = { functionId: 'webhooks', functionName: 'bureau-webhooks', accountId: '000000000000', tables: [], queues: [] };
    const scoped = { ...env(), BUREAU_LOCAL_GRANTS: JSON.stringify({ ...grants, kms: ['GenerateDataKey', 'Decrypt'] }) };
    const client = withLocalGrants(
      awsClient((config) => new KMSClient(config), 'kms', scoped),
      'kms',
      scoped,
    );
    const generate = (EncryptionContext?: Record<string, string>) =>
      client.send(
        new GenerateDataKeyCommand({
          KeyId: LOCAL_WEBHOOK_SECRETS_KEY_ID,
          KeySpec: 'AES_256',
          ...(EncryptionContext ? { EncryptionContext } : {}),
        }),
      );
    const own = await generate(CLIENT_A);

    await expect(generate({ purpose: 'something-else' })).rejects.toMatchObject({ name: 'AccessDeniedException' });
    await expect(generate()).rejects.toMatchObject({ name: 'AccessDeniedException' });
    await expect(generate({ ...CLIENT_A, tenant: 'cli_a' })).rejects.toMatchObject({ name: 'AccessDeniedException' });
    await expect(
      client.send(new DecryptCommand({ KeyId: LOCAL_WEBHOOK_SECRETS_KEY_ID, CiphertextBlob: own.CiphertextBlob })),
    ).rejects.toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining('kms:Decrypt') });
    await expect(
      new KmsDataKeys(client, LOCAL_WEBHOOK_SECRETS_KEY_ID).decrypt(own.CiphertextBlob as Uint8Array, CLIENT_A),
    ).resolves.toEqual(own.Plaintext);
  });

  it("refuses, as KMS does, a data key made for one client when it is asked for under another's context", async () => {
    const keys = new KmsDataKeys(
      awsClient((config) => new KMSClient(config), 'kms', env()),
      LOCAL_WEBHOOK_SECRETS_KEY_ID,
    );
    const made = await keys.generate(CLIENT_A);

    await expect(keys.decrypt(made.encrypted, CLIENT_A)).resolves.toEqual(made.plaintext);
    await expect(keys.decrypt(made.encrypted, clientEncryptionContext('cli_b'))).rejects.toMatchObject({
      name: 'InvalidCiphertextException',
    });
    await expect(keys.decrypt(made.encrypted, { purpose: CLIENT_A.purpose as string })).rejects.toMatchObject({
      name: 'InvalidCiphertextException',
    });
  });

  it('opens, through the SDK, a secret sealed for client A for A alone', async () => {
    const sealer = webhookSecretSealer(env());
    const sealed = await sealer.seal('whsec_a', OWNER);
    const [version, , ...rest] = sealed.split('.');
    const relabelled = [version, Buffer.from('cli_b').toString('base64url'), ...rest].join('.');

    await expect(webhookSecretSealer(env()).open(relabelled, { clientId: 'cli_b', owner: OWNER.owner })).rejects.toMatchObject({
      name: 'InvalidCiphertextException',
    });
    await expect(webhookSecretSealer(env()).open(sealed, OWNER)).resolves.toBe('whsec_a');
  });
});
