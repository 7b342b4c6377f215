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
import { ENCRYPTION_CONTEXT } from '../../../shared/crypto/webhook-secrets-key';

let kms: LocalKms;
let keyFile: string;

beforeAll(async () => {
  keyFile = join(mkdtempSync(join(tmpdir(), 'bureau-kms-')), 'key');
  kms = await startLocalKms({ keyFile });
});

afterAll(async () => {
  await kms?.stop();
});

const env = () => ({ KMS_ENDPOINT: kms.endpoint, AWS_REGION: 'eu-west-2', WEBHOOK_SECRETS_KEY_ID: LOCAL_WEBHOOK_SECRETS_KEY_ID });

describe('data keys from KMS, through the SDK, against the local stand-in', () => {
  it('seals through GenerateDataKey and opens through Decrypt, as a function does', async () => {
    const sealer = webhookSecretSealer(env());
    const sealed = await sealer.seal('whsec_secret', 'owner');

    await expect(webhookSecretSealer(env()).open(sealed, 'owner')).resolves.toBe('whsec_secret');
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

    await expect(function_.open(await operator.seal('whsec_from_cli', 'o'), 'o')).resolves.toBe('whsec_from_cli');
    await expect(operator.open(await function_.seal('whsec_from_api', 'o'), 'o')).resolves.toBe('whsec_from_api');
  });

  it('is refused for a key it does not hold, and for a data key it did not make', async () => {
    const client = awsClient((config) => new KMSClient(config), 'kms', env());
    const unknown = new KmsDataKeys(client, 'alias/someone-else');
    const own = new KmsDataKeys(client, LOCAL_WEBHOOK_SECRETS_KEY_ID);

    await expect(unknown.generate()).rejects.toMatchObject({ name: 'NotFoundException' });
    await expect(own.decrypt(Buffer.alloc(60, 7))).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
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
    const sealed = await webhookSecretSealer(env()).seal('whsec_x', 'o');

    await expect(new KmsDataKeys(client, LOCAL_WEBHOOK_SECRETS_KEY_ID).generate()).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining('kms:GenerateDataKey'),
    });
    await expect(new EnvelopeSealer(new KmsDataKeys(client, LOCAL_WEBHOOK_SECRETS_KEY_ID)).open(sealed, 'o')).resolves.toBe('whsec_x');
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
    const own = await generate(ENCRYPTION_CONTEXT);

    await expect(generate({ purpose: 'something-else' })).rejects.toMatchObject({ name: 'AccessDeniedException' });
    await expect(generate()).rejects.toMatchObject({ name: 'AccessDeniedException' });
    await expect(
      client.send(new DecryptCommand({ KeyId: LOCAL_WEBHOOK_SECRETS_KEY_ID, CiphertextBlob: own.CiphertextBlob })),
    ).rejects.toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining('kms:Decrypt') });
    await expect(new KmsDataKeys(client, LOCAL_WEBHOOK_SECRETS_KEY_ID).decrypt(own.CiphertextBlob as Uint8Array)).resolves.toEqual(
      own.Plaintext,
    );
  });
});
